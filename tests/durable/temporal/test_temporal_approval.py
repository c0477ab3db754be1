"""A call that needs a person's approval pauses a run on Temporal: the workflow holds it, with no
worker busy, until `approve_on_temporal` or `deny_on_temporal` arrives from any process; then any
worker goes on with it. Deciding on a run that waits for nothing, or on no run, is one line."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from smol_durable_temporal import (
    TemporalRunError,
    approve_on_temporal,
    create_worker,
    deny_on_temporal,
    pending_on_temporal,
    run_result,
    start_on_temporal,
)
from temporal_agents import ANSWER
from test_temporal_runs import TASK, _client, _lines, _logs, _scripted, _worker

DECIDE = """
import asyncio, json, os, sys
from temporalio.client import Client
import smol_durable_temporal as t

async def main(address, run_id, decision, note):
    client = await Client.connect(address)
    decide = t.approve_on_temporal if decision == "approve" else t.deny_on_temporal
    shown = await t.pending_on_temporal(client, run_id)  # what the person reads, and its key
    print(json.dumps(await decide(client, run_id, shown["approval_key"], note)))

asyncio.run(main(*sys.argv[1:]))
sys.stdout.flush()
# the Temporal SDK's Rust runtime threads can still call into Python while the interpreter
# finalizes ("Fatal Python error: PyGILState_Release"): this process is done, so leave at once
os._exit(0)
"""


def _decide_elsewhere(address: str, run_id: str, decision: str, note: str) -> dict[str, Any]:
    """The decision, made by another process (as `smol runs approve` would be, on another machine)."""
    done = subprocess.run(
        [sys.executable, "-c", DECIDE, address, run_id, decision, note],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _paused_then_decided(
    address: str, tmp_path: Path, decision: str, note: str
) -> tuple[Any, dict[str, Any]]:
    """Start the run on a worker process until it pauses; stop that worker; decide from another
    process; finish the run on a new worker. Returns the run's end and what the pause showed."""
    queue = run_id = f"approval-{uuid.uuid4().hex}"
    log = tmp_path / "workers.log"
    options = _logs(tmp_path, needs_approval=True)

    async def main() -> tuple[Any, dict[str, Any]]:
        client = await _client(address)
        first = _worker(address, queue, log, options)
        try:
            handle = await start_on_temporal(
                "scripted",
                TASK,
                client=client,
                task_queue=queue,
                workflow_id=run_id,
            )
            deadline = time.monotonic() + 60
            while (pending := await pending_on_temporal(client, run_id)) is None:
                assert time.monotonic() < deadline, log.read_text()[-3000:]
                await asyncio.sleep(0.1)
        finally:
            first.terminate()
            first.wait(20)
        decided = _decide_elsewhere(address, run_id, decision, note)
        assert decided == pending
        second = _worker(address, queue, log, options)
        try:
            return await asyncio.wait_for(run_result(handle), 90), pending
        finally:
            second.terminate()
            second.wait(20)

    return asyncio.run(main())


def test_an_approved_call_is_made_once_and_the_run_finishes(temporal_address: str, tmp_path: Path) -> None:
    finished, pending = _paused_then_decided(temporal_address, tmp_path, "approve", "fine by me")
    assert pending["tool"] == "record" and "order-1" in pending["call"]
    assert finished.final_answer == ANSWER
    assert finished.namespace["receipt"] == "recorded order-1"
    assert _lines(tmp_path / "records.log") == ["order-1"]
    assert _lines(tmp_path / "calls.log") == ["0", "1", "2", "3"]  # the paused step's reply was kept


def test_a_denied_call_is_not_made_and_the_model_reads_why(temporal_address: str, tmp_path: Path) -> None:
    finished, _ = _paused_then_decided(temporal_address, tmp_path, "deny", "not this order")
    assert finished.final_answer == ANSWER  # the scripted model goes on without the receipt
    assert "receipt" not in finished.namespace
    assert _lines(tmp_path / "records.log") == []
    errors = " ".join(str(getattr(step, "error", "") or "") for step in finished.steps)
    assert "denied" in errors and "not this order" in errors


def test_deciding_on_a_run_that_waits_for_nothing_or_on_no_run_is_one_line(
    temporal_address: str, tmp_path: Path
) -> None:
    from smol_durable_temporal import create_worker

    async def main() -> list[str]:
        client = await _client(temporal_address)
        queue = run_id = f"no-wait-{uuid.uuid4().hex}"
        said = []
        async with create_worker(client, queue, agents=_scripted(_logs(tmp_path))):
            handle = await start_on_temporal(
                "scripted", TASK, client=client, task_queue=queue, workflow_id=run_id
            )
            await run_result(handle)
            for target in (run_id, "no-such-run"):
                with pytest.raises(TemporalRunError) as error:
                    await approve_on_temporal(client, target, "0123456789ab")
                said.append(str(error.value))
        return said

    finished_run, missing_run = asyncio.run(main())
    assert "\n" not in finished_run and "waits for no decision" in finished_run
    assert "\n" not in missing_run and "no run 'no-such-run'" in missing_run


def test_a_decision_with_another_calls_key_is_refused_and_the_run_waits_on(
    temporal_address: str, tmp_path: Path
) -> None:
    """What a person approves is the call they read: a key of another call (the run moved on, or a
    second operator's stale view) decides nothing, on the client and on the worker."""
    from smol_core.durable import ApprovalKeyError

    async def main() -> tuple[dict[str, Any] | None, str]:
        client = await _client(temporal_address)
        queue = run_id = f"stale-key-{uuid.uuid4().hex}"
        async with create_worker(client, queue, agents=_scripted(_logs(tmp_path, needs_approval=True))):
            handle = await start_on_temporal(
                "scripted", TASK, client=client, task_queue=queue, workflow_id=run_id
            )
            while (pending := await pending_on_temporal(client, run_id)) is None:
                await asyncio.sleep(0.1)
            with pytest.raises(ApprovalKeyError) as refused:
                await approve_on_temporal(client, run_id, "0123456789ab")
            # a signal that carries another key, past the client's check, is not taken by the worker
            await client.get_workflow_handle(run_id).signal(
                "decide", {"approval": "approved", "note": "x", "pause": None, "key": "0123456789ab"}
            )
            await handle.query("progress")
            still = await pending_on_temporal(client, run_id)
            await deny_on_temporal(client, run_id, pending["approval_key"], note="stop")
            await asyncio.wait_for(run_result(handle), 60)
            return still, str(refused.value)

    still, said = asyncio.run(asyncio.wait_for(main(), 120))
    assert still is not None and "changed" in said and "\n" not in said
    assert _lines(tmp_path / "records.log") == []  # the call was never made
