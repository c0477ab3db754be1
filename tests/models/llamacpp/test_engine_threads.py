"""llama.cpp's default thread count leaves out the cores other work keeps busy (issue 28, part 4).

Its threads meet at a spinning barrier many times per token: on a 2-core machine with other work
running, 2 threads generated as few as 1 token/s where 1 thread generated 40 or more, and the main
job took over a minute. The default now gives llama.cpp only the cores the load average leaves free.
"""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xllamacpp")

from smol_model_llamacpp.engine import EngineSettings, build_params, default_threads


@pytest.fixture
def four_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)


def _load(monkeypatch: pytest.MonkeyPatch, one_minute: float) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (one_minute, one_minute, one_minute))


@pytest.mark.usefixtures("four_cores")
def test_an_idle_machine_gives_every_core(monkeypatch: pytest.MonkeyPatch) -> None:
    _load(monkeypatch, 0.4)
    assert default_threads() == 4


@pytest.mark.usefixtures("four_cores")
def test_busy_cores_get_no_thread_and_at_least_one_thread_remains(monkeypatch: pytest.MonkeyPatch) -> None:
    _load(monkeypatch, 1.7)
    assert default_threads() == 3
    _load(monkeypatch, 3.2)
    assert default_threads() == 1
    _load(monkeypatch, 120.0)
    assert default_threads() == 1


@pytest.mark.usefixtures("four_cores")
def test_the_default_applies_to_prefill_and_generation_and_n_threads_overrides_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _load(monkeypatch, 2.5)
    params = build_params(EngineSettings(model_path="unused.gguf"))
    assert params.cpuparams.n_threads == params.cpuparams_batch.n_threads == 2
    given = build_params(EngineSettings(model_path="unused.gguf", n_threads=4))
    assert given.cpuparams.n_threads == given.cpuparams_batch.n_threads == 4
