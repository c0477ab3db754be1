"""smol runs as Temporal workflows, on a real Temporal server (conftest.py): a run finishes as it
does in one process; a worker killed with SIGKILL in the middle of a step and started again costs
at most the model call in flight, and never repeats a side-effecting tool call; a factory that gives no agent is
one line."""

from __future__ import annotations

import asyncio
import base64
import functools
import json
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
    TemporalRunError,
    connect,
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


def _logs(tmp_path: Path, **options: Any) -> dict[str, Any]:
    """The scripted agent's options: its logs in `tmp_path`, and `options`."""
    return {"calls": str(tmp_path / "calls.log"), "records": str(tmp_path / "records.log"), **options}


def _scripted(options: dict[str, Any]) -> dict[str, Any]:
    """The agents of a worker in this process: `scripted`, with `options`."""
    return {"scripted": functools.partial(scripted_agent, **options)}


def _lines(path: Path) -> list[str]:
    return [line.split()[0] for line in path.read_text().splitlines()] if path.exists() else []


def test_a_run_on_temporal_ends_as_a_run_in_one_process(temporal_address: str, tmp_path: Path) -> None:
    plain_dir = tmp_path / "plain"
    plain_dir.mkdir()
    store = SQLiteStore(plain_dir / "runs.sqlite3")
    plain = scripted_agent(**_logs(plain_dir))
    plain.checkpoint_store = store
    assert plain.run(TASK, run_id="plain") == ANSWER
    expected = read_checkpoint(store, "plain")
    assert expected is not None

    async def main() -> Any:
        client = await _client(temporal_address)
        queue = f"q-{uuid.uuid4().hex}"
        async with create_worker(client, queue, agents=_scripted(_logs(tmp_path))):
            handle = await start_on_temporal(
                "scripted", TASK, client=client, task_queue=queue, workflow_id=f"run-{uuid.uuid4().hex}"
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


def _worker(
    address: str, queue: str, log: Path, options: dict[str, Any], *more: str, **env: str
) -> subprocess.Popen[bytes]:
    """`python -m smol_durable_temporal` serving the scripted agent with `options`, as `scripted`."""
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])),
        "SMOL_TEST_AGENT": json.dumps(options),
        **env,
    }
    command = [sys.executable, "-m", "smol_durable_temporal", "--address", address, "--task-queue", queue]
    command += ["--agent", "scripted=temporal_agents:from_environment", *more]
    with log.open("ab") as output:
        return subprocess.Popen(command, env=environment, stdout=output, stderr=subprocess.STDOUT)


def _keyed(tmp_path: Path) -> dict[str, str]:
    """The environment of a worker (and a client) whose payloads are encrypted, and stored by
    reference past the limit, as a deployment's are: the heartbeats go through both."""
    key = base64.b64encode(os.urandom(32)).decode()
    return {"SMOL_TEMPORAL_KEY": key, "SMOL_TEMPORAL_BLOBS": str(tmp_path / "blobs")}


def _run_killing_the_worker(address: str, tmp_path: Path, **blocking: Any) -> Any:
    """Start the run on a worker process, SIGKILL it once the model or tool blocks (the flag file
    appears), start another worker, and return the run's last checkpoint. Payloads are encrypted."""
    flag = tmp_path / "blocked.flag"
    options = _logs(tmp_path, flag=str(flag), **blocking)
    queue = f"q-{uuid.uuid4().hex}"
    log = tmp_path / "workers.log"
    keyed = _keyed(tmp_path)

    async def main() -> Any:
        await _client(address)
        key = base64.b64decode(keyed["SMOL_TEMPORAL_KEY"])
        client = await connect(address, key=key, blob_folder=keyed["SMOL_TEMPORAL_BLOBS"])
        first = _worker(address, queue, log, options, **keyed)
        try:
            handle = await start_on_temporal(
                "scripted",
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
        second = _worker(address, queue, log, options, **keyed)
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


def test_a_factory_that_gives_no_agent_fails_the_run_in_one_line(temporal_address: str) -> None:
    async def main() -> None:
        client = await _client(temporal_address)
        queue = f"q-{uuid.uuid4().hex}"
        async with create_worker(client, queue, agents={"broken": temporal_agents.not_an_agent}):
            handle = await start_on_temporal(
                "broken", TASK, client=client, task_queue=queue, workflow_id=f"bad-{uuid.uuid4().hex}"
            )
            await asyncio.wait_for(run_result(handle), 30)  # not retried: it fails at once

    with pytest.raises(TemporalRunError) as error:
        asyncio.run(main())
    message = str(error.value)
    assert "\n" not in message
    assert "AgentFactoryError: agent 'broken': its factory returned a str, not a smol agent" in message


def test_a_team_members_run_goes_on_within_its_managers_step(temporal_address: str, tmp_path: Path) -> None:
    """A member called by a durable run saves its own sub-run's checkpoints in the step's store: they
    were taken for the manager's step boundary (the member's run stopped at its first step)."""
    from temporal_agents import manager_with_member

    async def main() -> Any:
        client = await _client(temporal_address)
        queue = run_id = f"member-{uuid.uuid4().hex}"
        agents = {"manager": functools.partial(manager_with_member, str(tmp_path / "records.log"))}
        async with create_worker(client, queue, agents=agents):
            handle = await start_on_temporal(
                "manager", TASK, client=client, task_queue=queue, workflow_id=run_id
            )
            return await asyncio.wait_for(run_result(handle), 90)

    finished = asyncio.run(main())
    assert "recorded order-7" in str(finished.final_answer)
    assert _lines(tmp_path / "records.log") == ["order-7"]


def test_a_team_members_call_that_waits_for_approval_ends_the_run_in_one_line(
    temporal_address: str, tmp_path: Path
) -> None:
    """Not supported on Temporal yet (the member's sub-run lives within its manager's step): said
    at once, in one line, rather than a step that fails and is retried."""
    from temporal_agents import manager_with_member

    async def main() -> str:
        client = await _client(temporal_address)
        queue = run_id = f"member-asks-{uuid.uuid4().hex}"
        agents = {"manager": functools.partial(manager_with_member, str(tmp_path / "records.log"), True)}
        async with create_worker(client, queue, agents=agents):
            handle = await start_on_temporal(
                "manager", TASK, client=client, task_queue=queue, workflow_id=run_id
            )
            with pytest.raises(TemporalRunError) as ended:
                await asyncio.wait_for(run_result(handle), 90)
            return str(ended.value)

    said = asyncio.run(main())
    assert "MemberApprovalError" in said and "team member's call waits" in said and "\n" not in said
    assert _lines(tmp_path / "records.log") == []
