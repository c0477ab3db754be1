"""The step activity on its own (Temporal's ActivityEnvironment, no server): what a retry does with
the heartbeat details a killed attempt left."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from smol_durable_temporal.agents import AgentRegistry
from smol_durable_temporal.messages import StepRequest
from smol_durable_temporal.step import StepActivity, encode_checkpoint
from temporal_agents import ANSWER, scripted_agent
from temporalio.testing import ActivityEnvironment

from smol_core.durable import SQLiteStore

TASK = "Compute the answer."


def test_a_retry_after_the_runs_end_was_saved_returns_that_end(tmp_path: Path) -> None:
    """An attempt killed after the final answer's save went out as a heartbeat, before it returned:
    the retry finds a finished run in the details. It used to resume it, and fail the whole run
    with RunFinishedError ("nothing to resume"; 15 of 200 runs in bench/durable_kills_temporal.py)."""
    calls, records = tmp_path / "calls.log", tmp_path / "records.log"
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    agent = scripted_agent(str(calls), str(records))
    agent.checkpoint_store = store
    assert agent.run(TASK, run_id="done") == ANSWER
    finished = store.load("done")
    assert finished is not None and finished.status == "finished"
    made = calls.read_text()

    environment = ActivityEnvironment()
    environment.info = dataclasses.replace(
        environment.info, heartbeat_details=[encode_checkpoint(finished.data)], task_queue="step-test"
    )
    agents = AgentRegistry({"scripted": lambda: scripted_agent(str(calls), str(records))})
    steps = StepActivity(agents, offloads=False)
    result = environment.run(steps.run_one_step, StepRequest("done", TASK, "scripted", None))
    assert (result.status, result.step) == ("finished", finished.step)
    assert result.checkpoint == encode_checkpoint(finished.data)
    assert calls.read_text() == made, "the finished run was run again"
