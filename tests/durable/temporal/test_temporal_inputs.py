"""What a run's input may say, on a real Temporal server: an agent's name among those the worker
registered, and data (task, run id, limits). Whoever reaches the task queue can start a workflow
with any input: one that names code runs nothing, an agent the worker does not serve ends the run
at once with the names it does, and an input that is not a run's ends it at once, in one line."""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
import temporal_agents
from smol_durable_temporal import (
    TemporalRunError,
    approve_on_temporal,
    create_worker,
    pending_on_temporal,
    run_result,
    start_on_temporal,
)
from smol_durable_temporal.messages import CONFIRM_SIGNAL, WORKFLOW_NAME
from temporalio.client import WorkflowHandle
from test_temporal_runs import TASK, _client, _logs, _scripted

from smol_core.durable import checkpoint as checkpoint_format


async def _ended(handle: WorkflowHandle[Any, Any]) -> str:
    """The one line the client raises for the run's end, and that it took one attempt."""
    with pytest.raises(TemporalRunError) as error:
        await asyncio.wait_for(run_result(handle), 60)  # a retried error would outlast this
    attempts = [
        event.activity_task_started_event_attributes.attempt
        async for event in handle.fetch_history_events()
        if event.HasField("activity_task_started_event_attributes")
    ]
    assert all(attempt == 1 for attempt in attempts), f"retried: attempts {attempts}"
    message = str(error.value)
    assert "\n" not in message
    return message


def _serve_and_start(address: str, tmp_path: Path, raw_input: Any = None, agent: str | None = None) -> str:
    """A worker serving `scripted` and `support`; a run started with `raw_input` (as any client could,
    by the workflow's name) or by `start_on_temporal` with `agent`. Returns the line it ended with."""

    async def main() -> str:
        client = await _client(address)
        queue = run_id = f"inputs-{uuid.uuid4().hex}"
        agents = {**_scripted(_logs(tmp_path)), "support": _scripted(_logs(tmp_path))["scripted"]}
        async with create_worker(client, queue, agents=agents):
            if agent is not None:
                handle = await start_on_temporal(
                    agent, TASK, client=client, task_queue=queue, workflow_id=run_id
                )
            else:
                data = {"run_id": run_id, **raw_input} if isinstance(raw_input, dict) else raw_input
                handle = await client.start_workflow(WORKFLOW_NAME, data, id=run_id, task_queue=queue)
                # confirmed as start_on_temporal confirms it: the crafted input is all that differs
                await handle.signal(CONFIRM_SIGNAL, {"execution": handle.result_run_id})
            return await _ended(handle)

    return asyncio.run(main())


def test_an_input_that_names_code_runs_none_of_it(temporal_address: str, tmp_path: Path) -> None:
    """The attack: a client names a function of a module the worker can import, with arguments."""
    marker = tmp_path / "planted"
    named_code = {"factory": "temporal_agents:plant_marker", "kwargs": {"path": str(marker)}}
    said = _serve_and_start(temporal_address, tmp_path, {"task": TASK, "agent": named_code})
    assert "BadRunInputError: agent: the name of an agent the workers serve" in said
    said = _serve_and_start(
        temporal_address, tmp_path, {"task": TASK, "agent": "temporal_agents:plant_marker"}
    )
    assert "UnknownAgentError" in said
    assert not marker.exists(), "the worker ran code a run's input named"
    assert temporal_agents.plant_marker  # the code was there to be run


def test_an_agent_the_worker_does_not_serve_ends_the_run_with_the_names_it_serves(
    temporal_address: str, tmp_path: Path
) -> None:
    said = _serve_and_start(temporal_address, tmp_path, agent="researcher")
    assert said.endswith(
        "failed: UnknownAgentError: this worker serves no agent 'researcher'; it serves: scripted, support"
    )


@pytest.mark.parametrize(
    ("raw_input", "expected"),
    [
        ({"task": 5, "agent": "scripted"}, "task: text of 1 to 1,000,000 characters, not int '5'"),
        ({"task": TASK, "agent": "scripted", "model_url": "http://evil"}, "unknown field(s) model_url"),
        ({"task": TASK, "agent": "scripted", "max_steps": -1}, "max_steps: a number from 1 to 100000"),
        ({"task": TASK, "agent": "scripted", "checkpoint": "AAAA"}, "checkpoint: a run starts with none"),
        (["a", "list"], "a run's input is an object, not a list"),
    ],
    ids=["task-not-text", "unknown-field", "negative-limit", "checkpoint-at-start", "not-an-object"],
)
def test_an_input_that_is_not_a_runs_ends_the_run_at_once_in_one_line(
    temporal_address: str, tmp_path: Path, raw_input: Any, expected: str
) -> None:
    said = _serve_and_start(temporal_address, tmp_path, raw_input)
    assert "BadRunInputError: " in said and expected in said


def test_a_worker_given_no_agents_says_how_to_give_them() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "smol_durable_temporal", "--address", "127.0.0.1:9"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert (
        "a worker needs at least one agent" in done.stderr and "--agent NAME=module:function" in done.stderr
    )


def test_a_checkpoint_the_format_refuses_ends_the_run_at_once_in_one_line(
    temporal_address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run paused for approval, its checkpoint written in a format this smol does not read (as a
    newer smol would write it): the step that goes on refuses it once, and the run ends with the
    core's own line. Whether a format is read is the core's rule (smol_core.durable.checkpoint);
    the plugin adds none."""

    async def main() -> str:
        client = await _client(temporal_address)
        queue = run_id = f"format-{uuid.uuid4().hex}"
        async with create_worker(client, queue, agents=_scripted(_logs(tmp_path, needs_approval=True))):
            with monkeypatch.context() as patch:
                patch.setattr(
                    checkpoint_format, "KIND", dataclasses.replace(checkpoint_format.KIND, format_version=99)
                )
                handle = await start_on_temporal(
                    "scripted", TASK, client=client, task_queue=queue, workflow_id=run_id
                )
                while (waiting := await pending_on_temporal(client, run_id)) is None:
                    await asyncio.sleep(0.1)
            await approve_on_temporal(client, run_id, waiting["approval_key"])
            return await _ended(handle)

    said = asyncio.run(asyncio.wait_for(main(), 120))
    assert "failed: CheckpointFormatError: " in said and "99" in said
