"""A cassette: every model reply and tool result of a run, in order, as JSON lines.

Why: a run that went wrong (or right) in production can be run again on a laptop with no model and
no tools, exactly, to find where a change of prompt, template or code makes it go another way. Each
model event keeps what the model was asked (the messages as text, the stop sequences) so that a
replay can say which step diverged and show the difference, not only that it did.

The file is written line by line as the run goes, flushed after each event, so a run that crashed
still leaves the cassette of everything up to the crash. It is smol's file format
(`durable/file_format.py`): the header line is the one every run file starts with, values go through
the worker protocol's typed codec, and they come back under one budget for the whole cassette (a
cassette is a file someone may hand you). It is created readable by its owner only (0600): it holds
every prompt and tool result of a run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import smol_core.durable.file_format as ff
from smol_core.durable.file_format import FieldError, FileKind, FileReader
from smol_core.durable.steps import message_from_data, message_to_data
from smol_core.errors import SmolError
from smol_core.executors.worker.protocol import encode
from smol_core.messages import ChatMessage, MessageRole

FORMAT = "smol.cassette"
VERSION = 1
MAX_CASSETTE_BYTES = 256 * 1024 * 1024


class CassetteError(SmolError):
    """A cassette cannot be written or read (missing, corrupt, not a cassette, another version)."""


KIND = FileKind(FORMAT, VERSION, "cassette", CassetteError)


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
            self._file: TextIO = _open_private(self.path)
        except OSError as error:
            raise CassetteError(f"cannot write the cassette {self.path}: {error.strerror or error}") from None
        self._write({**ff.header(KIND), "task": task})

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
        self._file.write(ff.dumps(line).decode("utf-8") + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def _open_private(path: Path) -> TextIO:
    """`path` for writing, readable by its owner only (0600, whatever the umask; a folder it creates
    is 0700): a cassette holds every prompt and tool result of a run."""
    if not path.parent.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        os.fchmod(fd, 0o600)  # a cassette recorded again over an older one keeps no wider mode
        return os.fdopen(fd, "w", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def read_cassette(path: str | os.PathLike[str]) -> Cassette:
    """The cassette at `path`; a one-line `CassetteError` when it cannot be replayed as it is."""
    where = Path(path)
    reader = FileReader(KIND, f"the cassette {where}", MAX_CASSETTE_BYTES)
    try:
        if where.stat().st_size > MAX_CASSETTE_BYTES:
            raise reader.error(f"is over {MAX_CASSETTE_BYTES:,} bytes")
        data = where.read_bytes()
    except OSError as error:
        raise CassetteError(f"cannot read the cassette {where}: {error.strerror or error}") from None
    reader.check_bytes(data)
    lines = data.splitlines()
    if not lines:
        raise reader.error("is empty")
    header = reader.parse(lines[0])
    # cassettes written before the common header said "version" for the same format version 1
    version_key = "format_version" if type(header) is dict and "format_version" in header else "version"
    reader.check_header(header, version_key)
    with reader.reading():
        task = ff.text(header.get("task", ""), "task")
        return Cassette(task=task, events=[_event(reader.parse(line), reader) for line in lines[1:]])


def _event(line: Any, reader: FileReader) -> ModelEvent | ToolEvent:
    line = ff.mapping(line, "event")
    step = ff.whole(line.get("step"), "event step")
    agent = ff.text(line.get("agent", ""), "event agent", 1000)
    kind = line.get("kind")
    if kind == "model":
        reply = message_from_data(line.get("reply"), reader.value)
        if reply is None:
            raise FieldError("it holds a model event without a reply")
        request = [ff.text(item, "request line") for item in ff.listed(line.get("request"), "request")]
        return ModelEvent(step, request, reply, agent)
    if kind == "tool":
        return ToolEvent(
            step,
            ff.text(line.get("tool"), "tool", 1000),
            reader.value(line.get("arguments")),
            reader.value(line["result"]) if "result" in line else None,
            ff.text(line["error"], "tool error") if "error" in line else None,
            agent,
        )
    raise FieldError(f"it holds an event of unknown kind {str(kind)[:40]!r}")
