"""Red-team attacks on the run's door itself (effects.py) in durable runs: a stream dropped half way,
a user's extension that fails in the middle of a call. Each keeps a promise of docs/durable.md."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent
from smol_core.durable import SQLiteStore
from smol_core.effects import RunExtension
from smol_core.testing import FunctionModel, ResumableScript

REPLIES = ["<code>\nx = 20\n</code>", "<code>\ny = x + 1\n</code>", "<code>\nfinal_answer(x + y)\n</code>"]


def _agent(store: SQLiteStore, calls: Path) -> CodeAgent:
    model = FunctionModel(ResumableScript(REPLIES, log=calls))
    return CodeAgent(tools=[], model=model, verbosity_level=0, checkpoint_store=store)


def test_a_durable_stream_dropped_half_way_gives_its_lease_back_and_resumes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    calls = tmp_path / "calls.log"
    with _agent(store, calls) as agent:
        events = agent.run("Add.", run_id="stream", stream=True)
        next(events)
        next(events)  # a step or two in, the consumer goes away
        del events
        gc.collect()
        store.release(store.acquire("stream"))  # RunLockedError if the lease stayed with the dead stream
        assert agent.resume("stream") == 41
    assert calls.read_text().split() == ["0", "1", "2"]  # each reply asked for once


class FailsAfterReplies(RunExtension):
    """A user's audit hook whose backend fails after the model answered."""

    def after_model_call(self, call: Any, reply: Any, answered_by: Any) -> None:
        if answered_by is None:
            raise ConnectionError("audit backend down")


def test_a_users_extension_that_fails_after_a_reply_costs_no_second_model_call(tmp_path: Path) -> None:
    """The reply was paid for: the durable journal has it whatever the user's extension does after,
    so the resumed run takes it from the checkpoint instead of asking the model again."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    calls = tmp_path / "calls.log"
    with _agent(store, calls) as agent:
        agent.run_extensions.append(FailsAfterReplies())
        with pytest.raises(Exception, match="audit backend down"):
            agent.run("Add.", run_id="audited")
    with _agent(store, calls) as agent:
        assert agent.resume("audited") == 41
    assert calls.read_text().split() == ["0", "1", "2"]
