"""What the Temporal server keeps of a run, on a real server: with a key on the client and the
worker, the workflow history (read by a client without the key) holds no plaintext of the run's
variables or tool results; a checkpoint over Temporal's payload limit goes to a blob folder both
share, by reference, and the run goes on; without a blob folder, it ends the run in one line."""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import os
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from smol_durable_temporal import (
    TemporalRunError,
    approve_on_temporal,
    connect,
    create_worker,
    deny_on_temporal,
    pending_on_temporal,
    run_result,
    start_on_temporal,
)
from smol_durable_temporal.messages import WORKFLOW_NAME
from temporal_agents import (
    ANSWER,
    BIG_CHARS,
    SECRET,
    TOOL_SECRET,
    big_agent,
    secret_agent,
    two_approvals_agent,
)
from temporalio.common import RawValue
from test_temporal_runs import TASK, _client, _logs, _scripted

BASE64_RUN = re.compile(rb"[A-Za-z0-9+/]{24,}={0,2}")


def _revealed(blob: bytes) -> bytes:
    """`blob` and every base64 run in it decoded (a checkpoint travels as base64 text)."""
    found = [blob]
    for run in BASE64_RUN.findall(blob):
        for start in range(4):
            piece = run[start:]
            try:
                found.append(base64.b64decode(piece[: len(piece) // 4 * 4]))
            except (binascii.Error, ValueError):
                pass
    return b"\n".join(found)


async def _history_bytes(address: str, run_id: str) -> list[bytes]:
    """Each event of the run's history, as a client with no key reads it from the server."""
    plain = await _client(address)
    return [
        event.SerializeToString() async for event in plain.get_workflow_handle(run_id).fetch_history_events()
    ]


def _run(address: str, agent: str, factory: Any, *, key: bytes | None, blobs: Path | None) -> tuple[Any, str]:
    async def main() -> tuple[Any, str]:
        await _client(address)  # the server answers
        client = await connect(address, key=key, blob_folder=blobs)
        queue = run_id = f"payloads-{uuid.uuid4().hex}"
        async with create_worker(client, queue, agents={agent: factory}):
            handle = await start_on_temporal(agent, TASK, client=client, task_queue=queue, workflow_id=run_id)
            return await asyncio.wait_for(run_result(handle), 120), run_id

    return asyncio.run(main())


def test_the_history_read_without_the_key_holds_no_secret_of_the_run(
    temporal_address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SMOL_TEMPORAL_BLOBS", raising=False)
    finished, run_id = _run(temporal_address, "secret", secret_agent, key=os.urandom(32), blobs=None)
    assert finished.namespace["api_key"] == SECRET  # the keyed client reads the run back whole
    assert finished.namespace["note"].startswith(TOOL_SECRET)
    history = asyncio.run(_history_bytes(temporal_address, run_id))
    assert len(history) > 10
    for event in history:
        readable = _revealed(event)
        assert SECRET.encode() not in readable, "a secret held in a variable is in the history"
        assert TOOL_SECRET.encode() not in readable, "a tool's result is in the history"
        assert TASK.encode() not in readable, "the task is in the history"


def test_a_history_without_the_key_shows_the_secret_which_is_what_the_key_prevents(
    temporal_address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same run with no key: the attack above finds the secret, so that test can fail."""
    monkeypatch.delenv("SMOL_TEMPORAL_KEY", raising=False)
    monkeypatch.delenv("SMOL_TEMPORAL_KEY_FILE", raising=False)
    monkeypatch.delenv("SMOL_TEMPORAL_BLOBS", raising=False)
    _, run_id = _run(temporal_address, "secret", secret_agent, key=None, blobs=None)
    history = b"".join(_revealed(event) for event in asyncio.run(_history_bytes(temporal_address, run_id)))
    assert SECRET.encode() in history and TOOL_SECRET.encode() in history


def test_a_checkpoint_over_the_payload_limit_goes_on_by_reference(
    temporal_address: str, tmp_path: Path
) -> None:
    blobs = tmp_path / "blobs"
    finished, run_id = _run(temporal_address, "big", big_agent, key=os.urandom(32), blobs=blobs)
    assert finished.final_answer == BIG_CHARS + 1
    assert len(finished.namespace["big"]) == BIG_CHARS + 1
    history = asyncio.run(_history_bytes(temporal_address, run_id))
    assert max(len(event) for event in history) < 64 * 1024, "a big payload sits in the history"
    referenced = [event for event in history if b"smol-folder" in event and b"sha256" in event]
    assert referenced, "the history holds no reference to the stored checkpoints"
    stored = list(blobs.iterdir())
    assert stored and all(len(path.name) == 64 for path in stored)
    for path in stored:  # encrypted before it was stored: no run of the variable's characters
        assert b"x" * 64 not in path.read_bytes()


def test_a_checkpoint_over_the_payload_limit_with_no_blob_folder_ends_the_run_in_one_line(
    temporal_address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SMOL_TEMPORAL_BLOBS", raising=False)
    with pytest.raises(TemporalRunError) as error:
        _run(temporal_address, "big", big_agent, key=None, blobs=None)
    message = str(error.value)
    assert "\n" not in message
    assert "CheckpointTooLargeError" in message and "over Temporal's payload limit" in message
    assert "--blob-folder" in message and "SMOL_TEMPORAL_BLOBS" in message


def _paused_and_approved(address: str, tmp_path: Path) -> tuple[Any, dict[str, Any] | None, bytes]:
    """A keyed run paused for approval: what the keyed client reads of the waiting call, the memo
    as a client with no key reads it, and the run's end once approved."""

    async def main() -> tuple[Any, dict[str, Any] | None, bytes]:
        await _client(address)
        client = await connect(address, key=os.urandom(32), blob_folder=tmp_path / "blobs")
        queue = run_id = f"memo-{uuid.uuid4().hex}"
        async with create_worker(client, queue, agents=_scripted(_logs(tmp_path, needs_approval=True))):
            handle = await start_on_temporal(
                "scripted", TASK, client=client, task_queue=queue, workflow_id=run_id
            )
            while (pending := await pending_on_temporal(client, run_id)) is None:
                await asyncio.sleep(0.1)
            described = await (await _client(address)).get_workflow_handle(run_id).describe()
            memo = described.raw_description.workflow_execution_info.memo.SerializeToString()
            await approve_on_temporal(client, run_id, pending["approval_key"], note="fine")
            return await asyncio.wait_for(run_result(handle), 60), pending, memo

    return asyncio.run(asyncio.wait_for(main(), 120))


def test_a_call_waiting_for_approval_shows_to_the_keyed_client_only(
    temporal_address: str, tmp_path: Path
) -> None:
    finished, pending, memo = _paused_and_approved(temporal_address, tmp_path)
    assert pending is not None and "order-1" in pending["call"]
    assert b"order-1" not in _revealed(memo) and b"record" not in _revealed(memo)
    assert finished.final_answer == ANSWER


def test_a_run_started_without_the_key_is_never_run(temporal_address: str, tmp_path: Path) -> None:
    """A keyed worker refuses a payload not encrypted with its key: its workflow task fails, and
    the run's input is never read (no agent built, no model called)."""

    async def main() -> list[str]:
        await _client(temporal_address)
        keyed = await connect(temporal_address, key=os.urandom(32), blob_folder=tmp_path / "blobs")
        plain = await _client(temporal_address)
        queue = run_id = f"unkeyed-{uuid.uuid4().hex}"
        async with create_worker(keyed, queue, agents=_scripted(_logs(tmp_path))):
            handle = await plain.start_workflow(
                WORKFLOW_NAME,
                {"run_id": run_id, "task": TASK, "agent": "scripted"},
                id=run_id,
                task_queue=queue,
            )
            while True:
                failures = [
                    event.workflow_task_failed_event_attributes.failure.application_failure_info.type
                    async for event in handle.fetch_history_events()
                    if event.HasField("workflow_task_failed_event_attributes")
                ]
                if failures:
                    await handle.terminate()
                    return failures
                await asyncio.sleep(0.1)

    failures = asyncio.run(asyncio.wait_for(main(), 60))
    assert set(failures) == {"PayloadRefusedError"}, (
        failures
    )  # its message is encrypted: the sender has no key
    assert not (tmp_path / "calls.log").exists(), "the agent ran"


def test_a_decision_sent_without_the_key_is_ignored_and_the_run_goes_on(
    temporal_address: str, tmp_path: Path
) -> None:
    """Anyone who reaches the server can signal a run: a decision not encrypted with the key is not
    taken (the call stays waiting), and does not stop the run from taking the keyed one."""

    async def main() -> tuple[Any, dict[str, Any] | None]:
        await _client(temporal_address)
        keyed = await connect(temporal_address, key=os.urandom(32), blob_folder=tmp_path / "blobs")
        plain = await _client(temporal_address)
        queue = run_id = f"signal-{uuid.uuid4().hex}"
        async with create_worker(keyed, queue, agents=_scripted(_logs(tmp_path, needs_approval=True))):
            handle = await start_on_temporal(
                "scripted", TASK, client=keyed, task_queue=queue, workflow_id=run_id
            )
            while await pending_on_temporal(keyed, run_id) is None:
                await asyncio.sleep(0.1)
            await plain.get_workflow_handle(run_id).signal(
                "decide", {"approval": "approved", "note": "forged"}
            )
            await handle.query("progress")  # the signal's workflow task has run once the query answers
            still_waiting = await pending_on_temporal(keyed, run_id)
            assert still_waiting is not None, "a decision sent without the key was taken"
            await deny_on_temporal(keyed, run_id, still_waiting["approval_key"], note="keyed")
            return await asyncio.wait_for(run_result(handle), 60), still_waiting

    finished, still_waiting = asyncio.run(asyncio.wait_for(main(), 120))
    assert still_waiting is not None, "a decision sent without the key was taken"
    assert "receipt" not in finished.namespace  # denied, by the keyed decision
    errors = " ".join(str(getattr(step, "error", "") or "") for step in finished.steps)
    assert "keyed" in errors and "forged" not in errors


def test_a_decision_copied_from_the_history_and_sent_again_decides_nothing(
    temporal_address: str, tmp_path: Path
) -> None:
    """The first pause's (encrypted) approval, taken from the history and signalled again by a
    client with no key when the run pauses a second time: the second call stays waiting."""
    records = tmp_path / "records.log"

    async def main() -> tuple[Any, dict[str, Any] | None]:
        await _client(temporal_address)
        keyed = await connect(temporal_address, key=os.urandom(32), blob_folder=tmp_path / "blobs")
        plain = await _client(temporal_address)
        queue = run_id = f"replay-{uuid.uuid4().hex}"
        agents = {"two": functools.partial(two_approvals_agent, str(records))}
        async with create_worker(keyed, queue, agents=agents):
            handle = await start_on_temporal("two", TASK, client=keyed, task_queue=queue, workflow_id=run_id)
            await _waiting_for(keyed, run_id, "first")
            first = await pending_on_temporal(keyed, run_id)
            assert first is not None
            await approve_on_temporal(keyed, run_id, first["approval_key"], note="first is fine")
            await _waiting_for(keyed, run_id, "second")
            approvals = [
                event.workflow_execution_signaled_event_attributes.input.payloads[0]
                async for event in handle.fetch_history_events()
                if event.HasField("workflow_execution_signaled_event_attributes")
                and event.workflow_execution_signaled_event_attributes.signal_name == "decide"
            ]
            assert len(approvals) == 1
            await plain.get_workflow_handle(run_id).signal("decide", RawValue(approvals[0]))
            await handle.query("progress")  # the signal's workflow task has run once the query answers
            still_waiting = await pending_on_temporal(keyed, run_id)
            assert still_waiting is not None, "the copied decision was taken"
            await deny_on_temporal(keyed, run_id, still_waiting["approval_key"], note="not the second")
            return await asyncio.wait_for(run_result(handle), 60), still_waiting

    finished, still_waiting = asyncio.run(asyncio.wait_for(main(), 120))
    assert still_waiting is not None and "second" in still_waiting["call"], "the copied approval was taken"
    assert records.read_text().split() == ["first"]
    assert finished.final_answer == "done"


async def _waiting_for(client: Any, run_id: str, item: str) -> None:
    while (pending := await pending_on_temporal(client, run_id)) is None or item not in pending["call"]:
        await asyncio.sleep(0.1)
