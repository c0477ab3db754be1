"""A finished team run as a file, and back: `smolagent --num-agents N --save-run FILE` writes it,
`smol team FILE` shows it.

Why a file of its own rather than the console log: the log interleaves N agents' lines as they
happened; after the run a user wants the outcome per agent and the conversation between them, in
order, and wants it again tomorrow. The file is JSON data only. Read back it is untrusted like any
file a user may be handed (`smol_core.untrusted_files`): its size is checked before it is read, the
count and nesting of its values before it is decoded, its shape and types before it is shown, and
every text is escaped before it reaches a terminal (a message body written by a model can hold
terminal control sequences), one field to a line.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smol_core.terminal import escape_controls, escape_line
from smol_core.untrusted_files import UntrustedFileError, decode_error, loads_shaped, read_untrusted

if TYPE_CHECKING:
    from smol_core.teams.team import TeamResult

RECORD_FORMAT = "smol-team-run/1"
MAX_RECORD_BYTES = 32 * 1024 * 1024
MAX_RECORD_VALUES = 500_000
"""JSON values a team-run file may hold (about 70,000 messages): counted before the file is decoded,
so that a file of a million empty objects costs no memory."""
SHOWN_BODY_CHARS = 300


class TeamRecordError(UntrustedFileError):
    """A team-run file that cannot be read, or is not one (a `SmolError` and a `ValueError`)."""


@dataclass(frozen=True)
class AgentLine:
    agent_id: int
    state: str
    steps: int
    output: str | None
    error: str | None


@dataclass(frozen=True)
class MessageLine:
    id: str
    sender: int
    recipient: int
    timestamp: float
    body: Any
    received: bool


@dataclass(frozen=True)
class TeamRecord:
    """A finished team run, checked: what `smol team` shows."""

    output: str | None
    state: str
    started: float
    duration: float | None
    agents: list[AgentLine]
    messages: list[MessageLine] = field(default_factory=list)


def record_of(result: TeamResult) -> dict[str, Any]:
    """The JSON object saved for `result`."""
    return {
        "format": RECORD_FORMAT,
        "output": result.output,
        "state": result.state,
        "started": result.timing.start_time,
        "duration": result.timing.duration,
        "agents": [
            {
                "agent_id": outcome.agent_id,
                "state": outcome.state,
                "steps": outcome.steps,
                "output": outcome.output,
                "error": outcome.error,
            }
            for outcome in sorted(result.agents.values(), key=lambda o: o.agent_id)
        ],
        "messages": list(result.messages),
    }


def save_team_run(result: TeamResult, path: str | os.PathLike[str]) -> Path:
    """Write `result` to `path` whole or not at all (a temporary file renamed into place)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(record_of(result), indent=1, default=repr)
    with tempfile.NamedTemporaryFile(
        "w", dir=target.parent, delete=False, suffix=".tmp", encoding="utf-8"
    ) as out:
        out.write(text)
    os.replace(out.name, target)
    return target


def load_team_run(path: str | os.PathLike[str]) -> TeamRecord:
    """The run saved at `path`, checked; `TeamRecordError` says what is wrong with a bad file."""
    source = Path(path)
    try:
        text = read_untrusted(source, MAX_RECORD_BYTES)
    except UntrustedFileError as error:
        raise TeamRecordError(str(error)) from None
    try:
        data = loads_shaped(text, MAX_RECORD_VALUES)
    except json.JSONDecodeError as error:
        raise TeamRecordError(
            f"{_named(source)} is not a team-run file (not JSON: {decode_error(error)})."
        ) from None
    except ValueError as error:  # too many values, too deep, a number of too many digits
        raise TeamRecordError(f"{_named(source)} is not a team-run file (not JSON: {error}).") from None
    return _checked(data, source)


def _named(source: Path) -> str:
    return escape_line(str(source))


def _checked(data: Any, source: Path) -> TeamRecord:
    def bad(what: str) -> TeamRecordError:
        return TeamRecordError(f"{_named(source)} is not a team-run file: {escape_line(what)}.")

    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
        raise bad(f"it does not say format {RECORD_FORMAT!r}")
    agents, messages = data.get("agents"), data.get("messages")
    if not isinstance(agents, list) or not isinstance(messages, list):
        raise bad("'agents' and 'messages' must be lists")
    try:
        return TeamRecord(
            output=_text_or_none(data.get("output")),
            state=_text(data.get("state")),
            started=_number(data.get("started")),
            duration=None if data.get("duration") is None else _number(data.get("duration")),
            agents=[
                AgentLine(
                    agent_id=_integer(a["agent_id"]),
                    state=_text(a["state"]),
                    steps=_integer(a.get("steps", 0)),
                    output=_text_or_none(a.get("output")),
                    error=_text_or_none(a.get("error")),
                )
                for a in agents
            ],
            messages=_messages(messages),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise bad(f"a field has the wrong type or is missing ({error})") from None


def _messages(entries: list[Any]) -> list[MessageLine]:
    """Each message once (the log holds a 'sent' and a 'received' entry per message), in time order."""
    by_id: dict[str, MessageLine] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            raise TypeError("a message entry is not an object")
        message_id = _text(entry["id"])
        received = entry.get("direction") == "received"
        seen = by_id.get(message_id)
        if seen is None or (received and not seen.received):
            by_id[message_id] = MessageLine(
                id=message_id,
                sender=_integer(entry["sender"]),
                recipient=_integer(entry["recipient"]),
                timestamp=_number(entry["timestamp"]) if seen is None else seen.timestamp,
                body=entry.get("message"),
                received=received or (seen is not None and seen.received),
            )
    return sorted(by_id.values(), key=lambda m: m.timestamp)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value


def _text_or_none(value: Any) -> str | None:
    return None if value is None else _text(value)


def _integer(value: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def _number(value: Any) -> float:
    if type(value) not in (int, float):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    try:
        number = float(value)
    except OverflowError:  # an integer too large for a float
        raise ValueError("a number is out of range") from None
    if not math.isfinite(number):  # JSON's NaN and Infinity, as Python reads them
        raise ValueError("a number is not finite")
    return number


def render_team_run(record: TeamRecord) -> str:
    """The run for a terminal: outcome, each agent, then the conversation in time order."""
    took = "" if record.duration is None else f" in {record.duration:.1f} s"
    lines = [
        f"Team run of {len(record.agents)} agents, {_when(record.started)}: {_safe(record.state)}{took}, "
        f"{len(record.messages)} messages",
        f"Answer: {escape_controls(_cut(record.output)) if record.output is not None else '(none)'}",
        "",
    ]
    for agent in record.agents:
        detail = f" - answer: {_safe(agent.output, 200)}" if agent.output is not None else ""
        if agent.error:
            detail += f" - error: {_safe(agent.error, 200)}"
        lines.append(f"agent {agent.agent_id}: {_safe(agent.state)}, {agent.steps} steps{detail}")
    if record.messages:
        lines += ["", "Messages:"]
    for message in record.messages:
        offset = message.timestamp - record.started
        body = message.body if isinstance(message.body, str) else json.dumps(message.body, default=repr)
        mark = "" if message.received else "  (never read)"
        lines.append(
            f"  +{offset:7.2f}s  {message.sender} -> {message.recipient}  {_safe(body, SHOWN_BODY_CHARS)}{mark}"
        )
    return "\n".join(lines)


def _when(seconds: float) -> str:
    """A time of the file as local time, or as the number it is when no calendar holds it."""
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))
    except (OverflowError, OSError, ValueError):
        return f"{seconds:.0f} s after 1970"


def _cut(text: str, limit: int = 2000) -> str:
    """`text` within `limit` characters (cut before it is escaped: escaping a huge text costs)."""
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more characters)"


def _safe(text: str | None, limit: int = 2000) -> str:
    """A field of the file on one line of the terminal: cut, every control character and newline escaped."""
    return escape_line(_cut(str(text), limit))
