"""The checkpoint format: what a run needs to go on, as versioned JSON.

Why JSON with two versions in it: a checkpoint outlives the process that wrote it and may be read by
another smol. `format_version` says how the fields are laid out; `smol_version` which smol wrote them
(memory steps and the codec may change between releases). A checkpoint of another format or smol
version is refused with a one-line error that names both, before anything is overwritten: the user
resumes it with the smol that wrote it, or deletes it. A blob that is not smol's, or is cut or
garbled, is a `CheckpointFormatError` too. Why not pickle: a checkpoint is a file that other
processes and machines read; a pickle is code.

Size is checked before parsing (`MAX_CHECKPOINT_BYTES`), and values come back through the worker
protocol's budgeted decoder (`executors/host/untrusted.py`), as a worker's values do.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from smol_core.durable.errors import CheckpointFormatError
from smol_core.durable.steps import message_from_data, message_to_data, step_from_data, step_to_data
from smol_core.executors.host.frames import ProtocolLimits
from smol_core.executors.host.untrusted import decode_untrusted
from smol_core.executors.worker.protocol import ProtocolError, encode
from smol_core.memory import MemoryStep
from smol_core.messages import ChatMessage
from smol_core.version import __version__

FORMAT = "smol.checkpoint"
FORMAT_VERSION = 1
MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024
_LIMITS = ProtocolLimits(max_frame_bytes=MAX_CHECKPOINT_BYTES)


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
    """What stateful tools hold between calls (durable/tool_state.py), by tool name: a team
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
    work when a step's state is saved again with a model reply)."""
    document = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "smol_version": smol_version(),
        "run_id": checkpoint.run_id,
        "agent": checkpoint.agent,
        "status": checkpoint.status,
        "task": checkpoint.task,
        "step_number": checkpoint.step_number,
        "max_steps": checkpoint.max_steps,
        "planning_interval": checkpoint.planning_interval,
        "steps": encoded_steps if encoded_steps is not None else [step_to_data(s) for s in checkpoint.steps],
        "namespace": encoded_namespace
        if encoded_namespace is not None
        else {name: encode(value) for name, value in checkpoint.namespace.items()},
        "uncaptured": [list(item) for item in checkpoint.uncaptured],
        "modules": checkpoint.modules,
        "pending_replies": [message_to_data(message) for message in checkpoint.pending_replies],
        "final_answer": encode(checkpoint.final_answer),
        "tool_ledger": [_ledger_entry_to_data(entry) for entry in checkpoint.tool_ledger],
        "tool_states": {str(name): encode(state) for name, state in checkpoint.tool_states.items()},
        "run_state": {str(name): encode(value) for name, value in checkpoint.run_state.items()},
        "spending": checkpoint.spending,
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=True).encode("utf-8")


def load(data: bytes, where: str = "the checkpoint") -> Checkpoint:
    """The checkpoint in `data`; a one-line `CheckpointFormatError` if it cannot be used as is."""
    if len(data) > MAX_CHECKPOINT_BYTES:
        raise CheckpointFormatError(
            f"{where} is {len(data):,} bytes, over the {MAX_CHECKPOINT_BYTES:,} a checkpoint may be"
        )
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise CheckpointFormatError(f"{where} is corrupt (not valid JSON): it cannot be resumed") from None
    if type(document) is not dict or document.get("format") != FORMAT:
        raise CheckpointFormatError(f"{where} is not a smol checkpoint (no {FORMAT!r} format mark)")
    version, written_by = document.get("format_version"), document.get("smol_version")
    if version != FORMAT_VERSION or written_by != smol_version():
        raise CheckpointFormatError(
            f"{where} was written by smol {str(written_by)[:40]} (checkpoint format {str(version)[:10]}); "
            f"this is smol {smol_version()} (format {FORMAT_VERSION}): resume it with that version, or delete it"
        )
    try:
        return _checkpoint(document)
    except CheckpointFormatError:
        raise
    except (ProtocolError, KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise CheckpointFormatError(
            f"{where} is corrupt ({type(error).__name__}: {str(error)[:200]})"
        ) from None


def _checkpoint(document: dict[str, Any]) -> Checkpoint:
    def decode(value: Any) -> Any:
        return decode_untrusted(value, _LIMITS, None)

    namespace = document["namespace"]
    if type(namespace) is not dict:
        raise TypeError("the namespace is not an object")
    pending = [message_from_data(m, decode) for m in document["pending_replies"]]
    tool_states = document.get("tool_states", {})
    if type(tool_states) is not dict:
        raise TypeError("the tools' states are not an object")
    run_state = document.get("run_state", {})
    if type(run_state) is not dict:
        raise TypeError("the run's values are not an object")
    spending = document.get("spending")
    if spending is not None and type(spending) is not list:
        raise TypeError("the run's spending is not a list")
    max_steps, interval = document.get("max_steps"), document.get("planning_interval")
    return Checkpoint(
        run_id=str(document["run_id"]),
        agent=str(document["agent"]),
        task=str(document["task"]),
        step_number=int(document["step_number"]),
        steps=[step_from_data(step, decode) for step in document["steps"]],
        namespace={str(name): decode(value) for name, value in namespace.items()},
        uncaptured=[(str(name), str(kind)) for name, kind in document["uncaptured"]],
        modules={str(name): str(module) for name, module in document["modules"].items()},
        pending_replies=[m for m in pending if m is not None],
        status=str(document["status"]),
        final_answer=decode(document["final_answer"]),
        tool_ledger=[_ledger_entry(entry, decode) for entry in document.get("tool_ledger", [])],
        tool_states={str(name)[:200]: decode(state) for name, state in tool_states.items()},
        run_state={str(name): decode(value) for name, value in run_state.items()},
        spending=spending,
        max_steps=None if max_steps is None else int(max_steps),
        planning_interval=None if interval is None else int(interval),
    )


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
