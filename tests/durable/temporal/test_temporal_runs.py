"""smol runs as Temporal workflows, on a real Temporal server (conftest.py): a run finishes as it
does in one process; a worker killed with SIGKILL in the middle of a step and started again costs
at most the model call in flight, and never repeats a side-effecting tool call; a bad agent spec is
one line."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import temporal_agents
from smol_durable_temporal import (
    AgentSpec,
    AgentSpecError,
    TemporalRunError,
    create_worker,
    run_result,
    start_on_temporal,
)
from temporal_agents import ANSWER, scripted_agent
from temporalio.client import Client

from smol_core.durable import SQLiteStore
from smol_core.durable.runner import read_checkpoint

HERE = Path(__file__).resolve().parent
TASK = "Compute the answer."


async def _client(address: str) -> Client:
    deadline = time.monotonic() + 30
    while True:
        try:
            return await Client.connect(address)
        except Exception:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


def _logs(tmp_path: Path, **options: Any) -> AgentSpec:
    return AgentSpec.of(
        scripted_agent, calls=str(tmp_path / "calls.log"), records=str(tmp_path / "records.log"), **options
    )


def _lines(path: Path) -> list[str]:
    return [line.split()[0] for line in path.read_text().splitlines()] if path.exists() else []


def test_a_run_on_temporal_ends_as_a_run_in_one_process(temporal_address: str, tmp_path: Path) -> None:
    plain_dir = tmp_path / "plain"
    plain_dir.mkdir()
    store = SQLiteStore(plain_dir / "runs.sqlite3")
    plain = _logs(plain_dir).build()
    plain.checkpoint_store = store
    assert plain.run(TASK, run_id="plain") == ANSWER
    expected = read_checkpoint(store, "plain")
    assert expected is not None

    async def main() -> Any:
        client = await _client(temporal_address)
        queue = f"q-{uuid.uuid4().hex}"
        async with create_worker(client, queue):
            handle = await start_on_temporal(
                _logs(tmp_path), TASK, client=client, task_queue=queue, workflow_id=f"run-{uuid.uuid4().hex}"
            )
            return await run_result(handle)

    finished = asyncio.run(main())
    assert finished.status == "finished"
    assert finished.final_answer == ANSWER
    assert (
        finished.namespace
        == expected.namespace
        == {"x": 21, "name": "answer", "receipt": "recorded order-1", "y": 42}
    )
    assert _lines(tmp_path / "calls.log") == ["0", "1", "2", "3"]  # one model call per step
    assert _lines(tmp_path / "records.log") == ["order-1"]


def _worker(address: str, queue: str, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])),
    }
    with log.open("ab") as output:
        return subprocess.Popen(
            [sys.executable, "-m", "smol_durable_temporal", "--address", address, "--task-queue", queue],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )


def _run_killing_the_worker(address: str, tmp_path: Path, **blocking: Any) -> Any:
    """Start the run on a worker process, SIGKILL it once the model or tool blocks (the flag file
    appears), start another worker, and return the run's last checkpoint."""
    flag = tmp_path / "blocked.flag"
    spec = _logs(tmp_path, flag=str(flag), **blocking)
    queue = f"q-{uuid.uuid4().hex}"
    log = tmp_path / "workers.log"

    async def main() -> Any:
        client = await _client(address)
        first = _worker(address, queue, log)
        try:
            handle = await start_on_temporal(
                spec,
                TASK,
                client=client,
                task_queue=queue,
                workflow_id=f"run-{uuid.uuid4().hex}",
                heartbeat_timeout_s=5.0,
            )
            deadline = time.monotonic() + 60
            while not flag.exists():
                assert first.poll() is None, log.read_text()[-3000:]
                assert time.monotonic() < deadline, log.read_text()[-3000:]
                await asyncio.sleep(0.05)
            # at once: the save made as the call started is on the server before the call runs
            # (heartbeats.py; a queued heartbeat was lost with a worker killed in that moment)
            first.send_signal(signal.SIGKILL)
            first.wait()
        finally:
            if first.poll() is None:
                first.kill()
                first.wait()
        second = _worker(address, queue, log)
        try:
            return await asyncio.wait_for(run_result(handle), 90)
        finally:
            second.terminate()
            second.wait(20)

    return asyncio.run(main())


def test_a_worker_killed_during_a_model_call_costs_only_that_call(
    temporal_address: str, tmp_path: Path
) -> None:
    finished = _run_killing_the_worker(temporal_address, tmp_path, block_model_at=2)
    assert finished.final_answer == ANSWER
    assert finished.namespace["y"] == 42
    assert _lines(tmp_path / "calls.log") == [
        "0",
        "1",
        "2",
        "2",
        "3",
    ]  # the call in flight, and no other, again
    assert _lines(tmp_path / "records.log") == ["order-1"]
    pids = {line.split()[1] for line in (tmp_path / "calls.log").read_text().splitlines()}
    assert len(pids) == 2  # two worker processes ran the steps


def test_a_worker_killed_during_a_tool_call_does_not_make_it_again(
    temporal_address: str, tmp_path: Path
) -> None:
    finished = _run_killing_the_worker(temporal_address, tmp_path, block_tool=True)
    assert finished.final_answer == ANSWER
    assert _lines(tmp_path / "records.log") == [
        "order-1"
    ]  # reported to the code as interrupted, not made again
    assert _lines(tmp_path / "calls.log") == ["0", "1", "2", "3"]  # the step's reply came from the heartbeat
    cut_off = [
        step
        for step in finished.steps
        if "may or may not have taken effect" in str(getattr(step, "error", ""))
    ]
    assert len(cut_off) == 1, "the step whose tool call was cut off says so to the model"
    assert "receipt" not in finished.namespace and finished.namespace["y"] == 42


def test_a_worker_killed_the_moment_a_tool_call_starts_does_not_make_it_again(
    temporal_address: str, tmp_path: Path
) -> None:
    """The tool kills its own worker as its side effect is made: the save recorded as the call
    started must be on the server by then (a queued heartbeat died with the worker, and the retry
    made the call again)."""
    finished = _run_killing_the_worker(temporal_address, tmp_path, die_in_tool=True)
    assert finished.final_answer == ANSWER
    assert _lines(tmp_path / "records.log") == ["order-1"]
    assert "receipt" not in finished.namespace and finished.namespace["y"] == 42


def test_a_spec_no_worker_can_import_fails_before_the_run_starts(temporal_address: str) -> None:
    async def main() -> None:
        client = await _client(temporal_address)
        await start_on_temporal(
            "no_such_module_here:factory", TASK, client=client, task_queue="unused", workflow_id="never"
        )

    with pytest.raises(AgentSpecError) as error:
        asyncio.run(main())
    message = str(error.value)
    assert "\n" not in message
    assert "no_such_module_here:factory" in message and "cannot import" in message


def test_a_factory_that_gives_no_agent_fails_the_run_in_one_line(temporal_address: str) -> None:
    async def main() -> None:
        client = await _client(temporal_address)
        queue = f"q-{uuid.uuid4().hex}"
        async with create_worker(client, queue):
            handle = await start_on_temporal(
                temporal_agents.not_an_agent,
                TASK,
                client=client,
                task_queue=queue,
                workflow_id=f"bad-{uuid.uuid4().hex}",
            )
            await asyncio.wait_for(run_result(handle), 30)  # not retried: it fails at once

    with pytest.raises(TemporalRunError) as error:
        asyncio.run(main())
    message = str(error.value)
    assert "\n" not in message
    assert "AgentSpecError: agent spec temporal_agents:not_an_agent: the factory returned a str" in message
