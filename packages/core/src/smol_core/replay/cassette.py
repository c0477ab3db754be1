"""A cassette: every model reply and tool result of a run, in order, as JSON lines.

Why: a run that went wrong (or right) in production can be run again on a laptop with no model and
no tools, exactly, to find where a change of prompt, template or code makes it go another way. Each
model event keeps what the model was asked (the messages as text, the stop sequences) so that a
replay can say which step diverged and show the difference, not only that it did.

The file is written line by line as the run goes, flushed after each event, so a run that crashed
still leaves the cassette of everything up to the crash. Values go through the worker protocol's
typed codec and come back through the budgeted decoder (a cassette is a file someone may hand you).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from smol_core.durable.steps import message_from_data, message_to_data
from smol_core.errors import SmolError
from smol_core.executors.host.frames import ProtocolLimits
from smol_core.executors.host.untrusted import decode_untrusted
from smol_core.executors.worker.protocol import encode
from smol_core.messages import ChatMessage, MessageRole

FORMAT = "smol.cassette"
VERSION = 1
MAX_CASSETTE_BYTES = 256 * 1024 * 1024
_LIMITS = ProtocolLimits(max_frame_bytes=MAX_CASSETTE_BYTES)


class CassetteError(SmolError):
    """A cassette cannot be written or read (missing, corrupt, not a cassette, another version)."""


class ReplayDivergenceError(SmolError):
    """A replayed run asked for something its cassette does not hold at that point: `step`, `what`
    (the model request, a tool call) and `diff` (recorded against now, as unified-diff lines)."""

    def __init__(self, message: str, step: int = 0, what: str = "", diff: list[str] | None = None) -> None:
        super().__init__(message)
        self.step = step
        self.what = what
        self.diff = list(diff or [])


@dataclass
class ModelEvent:
    """One model call: what it was asked (as text) and what it answered."""

    step: int
    request: list[str]
    reply: ChatMessage
    agent: str = ""
    """Whose call: "" for the agent taped, a managed agent's name path ("researcher/searcher")."""


@dataclass
class ToolEvent:
    """One tool call: the tool, its arguments, and its result or the error it raised."""

    step: int
    tool: str
    arguments: Any
    result: Any = None
    error: str | None = None
    agent: str = ""
    """Whose call, as `ModelEvent.agent`."""


@dataclass
class Cassette:
    """A recorded run: its task and its events, in the order they happened."""

    task: str = ""
    events: list[ModelEvent | ToolEvent] = field(default_factory=list)


def request_lines(messages: list[ChatMessage], stop_sequences: list[str] | None) -> list[str]:
    """A model request as the lines a person compares: each message's role and text, then the stops."""
    lines: list[str] = []
    for message in messages:
        role = message.role.value if isinstance(message.role, MessageRole) else str(message.role)
        lines.append(f"[{role}]")
        lines.extend((message.text or "").splitlines() or [""])
        for call in message.tool_calls or []:
            lines.append(f"(calls {call.function.name} {call.function.arguments!r})")
    lines.append(f"[stop] {list(stop_sequences or [])!r}")
    return lines


class CassetteWriter:
    """Appends a run's events to a cassette file as they happen."""

    def __init__(self, path: str | os.PathLike[str], task: str = "") -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file: TextIO = self.path.open("w", encoding="utf-8")
        except OSError as error:
            raise CassetteError(f"cannot write the cassette {self.path}: {error.strerror or error}") from None
        self._write({"format": FORMAT, "version": VERSION, "task": task})

    def model(self, event: ModelEvent) -> None:
        self._write(
            {
                "kind": "model",
                "step": event.step,
                "request": event.request,
                "reply": message_to_data(event.reply),
                **({"agent": event.agent} if event.agent else {}),
            }
        )

    def tool(self, event: ToolEvent) -> None:
        line: dict[str, Any] = {
            "kind": "tool",
            "step": event.step,
            "tool": event.tool,
            "arguments": encode(event.arguments),
            **({"agent": event.agent} if event.agent else {}),
        }
        if event.error is not None:
            line["error"] = event.error
        else:
            line["result"] = encode(event.result)
        self._write(line)

    def _write(self, line: dict[str, Any]) -> None:
        self._file.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def read_cassette(path: str | os.PathLike[str]) -> Cassette:
    """The cassette at `path`; a one-line `CassetteError` when it cannot be replayed as it is."""
    where = Path(path)
    try:
        if where.stat().st_size > MAX_CASSETTE_BYTES:
            raise CassetteError(f"the cassette {where} is over {MAX_CASSETTE_BYTES:,} bytes")
        lines = where.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise CassetteError(
            f"cannot read the cassette {where}: {getattr(error, 'strerror', None) or error}"
        ) from None
    if not lines:
        raise CassetteError(f"the cassette {where} is empty")
    try:
        header = json.loads(lines[0])
        if type(header) is not dict or header.get("format") != FORMAT:
            raise CassetteError(f"{where} is not a smol cassette (no {FORMAT!r} header)")
        if header.get("version") != VERSION:
            raise CassetteError(
                f"the cassette {where} is of version {header.get('version')!r}; this smol reads {VERSION}"
            )
        return Cassette(task=str(header.get("task", "")), events=list(_events(lines[1:])))
    except CassetteError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
        raise CassetteError(
            f"the cassette {where} is corrupt ({type(error).__name__}: {str(error)[:200]})"
        ) from None


def _events(lines: list[str]) -> Iterator[ModelEvent | ToolEvent]:
    def decode(value: Any) -> Any:
        return decode_untrusted(value, _LIMITS, None)

    for text in lines:
        line = json.loads(text)
        if line["kind"] == "model":
            reply = message_from_data(line["reply"], decode)
            if reply is None:
                raise ValueError("a model event without a reply")
            request = [str(item) for item in line["request"]]
            yield ModelEvent(int(line["step"]), request, reply, str(line.get("agent", "")))
        elif line["kind"] == "tool":
            yield ToolEvent(
                int(line["step"]),
                str(line["tool"]),
                decode(line["arguments"]),
                decode(line["result"]) if "result" in line else None,
                str(line["error"]) if "error" in line else None,
                str(line.get("agent", "")),
            )
        else:
            raise ValueError(f"an event of unknown kind {str(line['kind'])[:40]!r}")
