"""llama.cpp's default thread count leaves out the cores other work keeps busy (issue 28, part 4).

Its threads meet at a spinning barrier many times per token: on a 2-core machine with other work
running, 2 threads generated as few as 1 token/s where 1 thread generated 40 or more, and the main
job took over a minute. The default now gives llama.cpp only the cores the load average leaves free.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

pytest.importorskip("xllamacpp")

from smol_model_llamacpp import engine
from smol_model_llamacpp.engine import EngineSettings, build_params, busy_now, default_threads


@pytest.fixture
def four_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)


def _load(monkeypatch: pytest.MonkeyPatch, one_minute: float, now: int | None = None) -> None:
    """A load average of `one_minute`, and `now` tasks of other work runnable (as many by default)."""
    monkeypatch.setattr(os, "getloadavg", lambda: (one_minute, one_minute, one_minute))
    monkeypatch.setattr(engine, "busy_now", lambda: int(one_minute) if now is None else now)


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


@pytest.mark.usefixtures("four_cores")
def test_a_load_average_left_by_work_that_has_ended_gives_the_cores_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The load average lags by a minute: after a burst it still reads busy while nothing else runs
    (the main job then decoded on 1 of 2 idle cores, at 2.3-2.7 times the model's limit)."""
    _load(monkeypatch, 3.2, now=0)
    assert default_threads() == 4
    _load(monkeypatch, 3.2, now=1)  # both agree on one
    assert default_threads() == 3
    _load(monkeypatch, 0.4, now=3)  # a burst the load average has not seen: not other work yet
    assert default_threads() == 4


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_busy_now_leaves_out_this_process_and_its_descendants(tmp_path: Path) -> None:
    """A fresh `smolagent` starts its sandbox (new interpreters) beside the model's load: its own
    work, not other work. Here a spinning child is ours; the kernel's count is made up."""
    few, many = tmp_path / "few", tmp_path / "many"
    few.write_text("2.00 2.00 2.00 2/120 4242\n")
    many.write_text("9.00 9.00 9.00 12/120 4242\n")
    child = multiprocessing.get_context("spawn").Process(target=_spin, args=(30,))
    child.start()
    try:
        time.sleep(0.5)  # past its start: spinning
        tree = engine._own_process_tree()
        assert child.pid in tree
        assert engine._runnable_threads(tree) >= 2  # this reader and the spinning child
        assert busy_now(loadavg=str(few)) == 0  # both of the 2 runnable are ours
        assert 12 - 4 <= busy_now(loadavg=str(many)) <= 12 - 2
    finally:
        child.kill()
        child.join()


def test_busy_now_without_the_kernels_count_falls_back_to_the_load_average(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (2.7, 2.7, 2.7))
    assert busy_now(loadavg=str(tmp_path / "missing")) == 2
    garbled = tmp_path / "garbled"
    garbled.write_text("not a load average")
    assert busy_now(loadavg=str(garbled)) == 2
