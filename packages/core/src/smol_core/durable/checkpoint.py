"""The checkpoint: what a run needs to go on, in smol's file format (`durable/file_format.py`).

Why that format: a checkpoint outlives the process that wrote it and may be read by another smol, on
another machine, or handed over by someone else. Its header's `format_version` decides whether it
loads: one written by another smol of the same format version (a patch upgrade with runs in
flight) is resumed; another format version is refused in one line naming both, before anything is
overwritten. A blob that is not smol's, is cut or garbled, or has a field of the wrong type or
range is a one-line `CheckpointFormatError` too. Why not pickle: a checkpoint is a file that other
processes and machines read; a pickle is code.

Size is checked when a checkpoint is written (`CheckpointTooLargeError`: the store keeps the last
one that fits) and before one is parsed (`MAX_CHECKPOINT_BYTES`); its values then come back
through the worker protocol's budgeted decoder, under one budget for the whole file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import smol_core.durable.file_format as ff
from smol_core.durable.errors import CheckpointError, CheckpointFormatError
from smol_core.durable.file_format import FieldError, FileKind, FileReader
from smol_core.durable.steps import message_from_data, message_to_data, step_from_data, step_to_data
from smol_core.executors.worker.protocol import encode
from smol_core.memory import MemoryStep
from smol_core.messages import ChatMessage
from smol_core.version import __version__

FORMAT = "smol.checkpoint"
FORMAT_VERSION = 1
MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024
KIND = FileKind(FORMAT, FORMAT_VERSION, "checkpoint", CheckpointFormatError)
STATUSES = frozenset({"running", "finished", "awaiting_approval", "stopped"})
"""`stopped`: not driven any longer (a team's agent stopped with its team), and resumable."""


class CheckpointTooLargeError(CheckpointError):
    """A run's state is over `MAX_CHECKPOINT_BYTES`: it is not saved, and the store keeps the last
    checkpoint that fit (a checkpoint too large to load again would make the run unresumable)."""


def smol_version() -> str:
    return __version__


@dataclass
class Checkpoint:
    """A run's state after a step: enough to resume it in another process."""

    run_id: str
    agent: str
    """The agent's class (and name): a resumed run is driven by an agent configured the same way."""
    task: str
    step_number: int
    """The next step to run."""
    steps: list[MemoryStep] = field(default_factory=list)
    namespace: dict[str, Any] = field(default_factory=dict)
    """The sandbox's variables (a CodeAgent), as the worker protocol carries them."""
    uncaptured: list[tuple[str, str]] = field(default_factory=list)
    """Variables that could not be captured (functions, classes, modules, open files...): name, type."""
    modules: dict[str, str] = field(default_factory=dict)
    """Variables bound to modules (`import numpy as np`: np -> numpy): imported again on resume."""
    pending_replies: list[ChatMessage] = field(default_factory=list)
    """Model replies received after this step's state was saved: a resumed run takes them instead of
    calling the model again."""
    tool_ledger: list[dict[str, Any]] = field(default_factory=list)
    """The tool calls of the step in progress: started, done (with the result) or failed."""
    tool_states: dict[str, Any] = field(default_factory=dict)
    """What stateful tools hold between calls (`smol_core.durable.tool_state`), by tool name: a team
    member's inbox position."""
    run_state: dict[str, Any] = field(default_factory=dict)
    """A ToolCallingAgent's `additional_args` (a CodeAgent's are among the sandbox's variables)."""
    spending: list[Any] | None = None
    """What the run's own model calls cost so far (`agents.budget.RunSpending.to_data`)."""
    status: str = "running"
    final_answer: Any = None
    max_steps: int | None = None
    planning_interval: int | None = None


def dump(
    checkpoint: Checkpoint,
    encoded_steps: list[dict[str, Any]] | None = None,
    encoded_namespace: dict[str, Any] | None = None,
) -> bytes:
    """The checkpoint as bytes (`encoded_steps`, `encoded_namespace`: already encoded, to spare the
    work when a step's state is saved again with a model reply); `CheckpointTooLargeError` if they
    are over `MAX_CHECKPOINT_BYTES`, which no load would accept."""
    steps = encoded_steps if encoded_steps is not None else [step_to_data(s) for s in checkpoint.steps]
    namespace = (
        encoded_namespace
        if encoded_namespace is not None
        else {name: encode(value) for name, value in checkpoint.namespace.items()}
    )
    data = ff.dump(
        KIND,
        {
            "run_id": checkpoint.run_id,
            "agent": checkpoint.agent,
            "status": checkpoint.status,
            "task": checkpoint.task,
            "step_number": checkpoint.step_number,
            "max_steps": checkpoint.max_steps,
            "planning_interval": checkpoint.planning_interval,
            "steps": steps,
            "namespace": namespace,
            "uncaptured": [list(item) for item in checkpoint.uncaptured],
            "modules": checkpoint.modules,
            "pending_replies": [message_to_data(message) for message in checkpoint.pending_replies],
            "final_answer": encode(checkpoint.final_answer),
            "tool_ledger": [_ledger_entry_to_data(entry) for entry in checkpoint.tool_ledger],
            "tool_states": {str(name): encode(state) for name, state in checkpoint.tool_states.items()},
            "run_state": {str(name): encode(value) for name, value in checkpoint.run_state.items()},
            "spending": checkpoint.spending,
        },
    )
    refused = ff.over_budget(data, MAX_CHECKPOINT_BYTES)
    if refused is not None:
        raise CheckpointTooLargeError(_too_large(checkpoint, refused, steps, namespace))
    return data


def _too_large(checkpoint: Checkpoint, refused: str, steps: list[Any], namespace: dict[str, Any]) -> str:
    """What makes the checkpoint big, and what to do: said when it is refused (the slow path)."""
    parts = {f"variable {name!r}": _size(value) for name, value in namespace.items()}
    parts["the memory steps"] = _size(steps)
    biggest = sorted(parts.items(), key=lambda item: -item[1])[:3]
    shown = ", ".join(f"{what} {bytes_:,} B" for what, bytes_ in biggest)
    return (
        f"the checkpoint of run {checkpoint.run_id!r} after step {checkpoint.step_number - 1} would hold "
        f"{refused} (largest: {shown}); it was not "
        "saved and the run stopped: keep large data in files rather than in the agent's variables, then resume "
        "from the last checkpoint saved"
    )


def _size(encoded: Any) -> int:
    """Bytes in the file, plus what its images decode to (what the limits count)."""
    text = json.dumps(encoded, ensure_ascii=False, separators=(",", ":"), allow_nan=True).encode("utf-8")
    return len(text) + ff.image_bytes(text)


def load(data: bytes, where: str = "the checkpoint") -> Checkpoint:
    """The checkpoint in `data`; a one-line `CheckpointFormatError` if it cannot be used as is."""
    reader = FileReader(KIND, where, MAX_CHECKPOINT_BYTES)
    reader.check_bytes(data)
    document = reader.parse(data)
    reader.check_header(document)
    with reader.reading():
        return _checkpoint(document, reader)


def _checkpoint(document: dict[str, Any], reader: FileReader) -> Checkpoint:
    decode = reader.value
    namespace = ff.mapping(document.get("namespace"), "namespace")
    tool_states = ff.mapping(document.get("tool_states", {}), "tool_states")
    run_state = ff.mapping(document.get("run_state", {}), "run_state")
    pending = [
        message_from_data(m, decode) for m in ff.listed(document.get("pending_replies"), "pending_replies")
    ]
    return Checkpoint(
        run_id=ff.text(document.get("run_id"), "run_id", 200, line=True),
        agent=ff.text(document.get("agent"), "agent", 1000, line=True),
        task=ff.text(document.get("task"), "task"),
        step_number=ff.whole(document.get("step_number"), "step_number"),
        steps=[step_from_data(step, decode) for step in ff.listed(document.get("steps"), "steps")],
        namespace={ff.text(name, "variable name", 1000): decode(value) for name, value in namespace.items()},
        uncaptured=[_uncaptured(item) for item in ff.listed(document.get("uncaptured"), "uncaptured")],
        modules={
            ff.text(name, "module variable", 1000): ff.text(module, "module name", 1000)
            for name, module in ff.mapping(document.get("modules"), "modules").items()
        },
        pending_replies=[m for m in pending if m is not None],
        status=ff.choice(document.get("status"), "status", STATUSES),
        final_answer=decode(document.get("final_answer")),
        tool_ledger=[
            _ledger_entry(entry, decode)
            for entry in ff.listed(document.get("tool_ledger", []), "tool_ledger")
        ],
        tool_states={ff.text(name, "tool name", 200): decode(state) for name, state in tool_states.items()},
        run_state={ff.text(name, "run value name", 1000): decode(value) for name, value in run_state.items()},
        spending=_spending(document.get("spending")),
        max_steps=ff.optional_whole(document.get("max_steps"), "max_steps"),
        planning_interval=ff.optional_whole(document.get("planning_interval"), "planning_interval", 1),
    )


def _spending(data: Any) -> list[Any] | None:
    """What the run's model calls cost: [tokens, cost or null, calls, calls whose usage was unknown]."""
    if data is None:
        return None
    if type(data) is not list or len(data) != 4:
        raise FieldError(f"spending is {str(data)[:40]!r}, not [tokens, cost, calls, uncounted]")
    tokens, cost, calls, uncounted = data
    return [
        ff.whole(tokens, "spending tokens"),
        None if cost is None else ff.real(cost, "spending cost"),
        ff.whole(calls, "spending calls"),
        ff.whole(uncounted, "spending uncounted"),
    ]


def _uncaptured(item: Any) -> tuple[str, str]:
    if type(item) is not list or len(item) != 2:
        raise FieldError(f"an uncaptured variable is {str(item)[:40]!r}, not [name, type]")
    return ff.text(item[0], "uncaptured name", 1000), ff.text(item[1], "uncaptured type", 1000)


_LEDGER_STATUSES = frozenset({"started", "done", "failed", "awaiting_approval"})
_LEDGER_TEXT = ("tool", "key", "status", "error", "approval_key", "approval", "note")
_LEDGER_VALUES = ("arguments", "result")
_APPROVAL_KEY = re.compile(r"[0-9a-f]{1,64}")
"""Kept through the typed codec: a waiting call's whole arguments (what a person approves), a result."""


def _ledger_entry_to_data(entry: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {key: entry[key] for key in _LEDGER_TEXT if key in entry}
    for key in _LEDGER_VALUES:
        if key in entry:
            data[key] = encode(entry[key])
    return data


def _ledger_entry(data: Any, decode: Any) -> dict[str, Any]:
    if type(data) is not dict or data.get("status") not in _LEDGER_STATUSES:
        raise ValueError("a tool ledger entry is not a call record")
    entry: dict[str, Any] = {
        "tool": str(data["tool"])[:200],
        "key": str(data["key"])[:300],
        "status": data["status"],
    }
    for key in ("error", "note"):
        if key in data:
            entry[key] = str(data[key])[:2000]
    if "approval_key" in data:  # shown in terminals and pages: hex only, or the checkpoint is corrupt
        key = data["approval_key"]
        if type(key) is not str or _APPROVAL_KEY.fullmatch(key) is None:
            raise ValueError("an approval key is not a short hex string")
        entry["approval_key"] = key
    if data.get("approval") in ("approved", "denied"):
        entry["approval"] = data["approval"]
    for key in _LEDGER_VALUES:
        if key in data:
            entry[key] = decode(data[key])
    return entry


load_checkpoint = load
"""`load` by the name `smol_core.plugin_api` exports it under (a durable engine reads checkpoints)."""
