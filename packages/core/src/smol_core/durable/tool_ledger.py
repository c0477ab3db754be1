"""The tools' ledger: every tool call of a durable run's current step, saved as it starts and ends.

Why: a step's state is saved when the step ends, but its tool calls happen in the middle. A run
killed mid-step is resumed from its last step: the step's model reply comes from the journal
(durable/journal.py) and its code runs again, and so would every tool call the code makes, a second
`send_email` included. With the ledger, a call whose result was saved is not made again: the saved
result (or error) is given back. A call that was still running when the process died (started,
never ended) is repeated only when its tool says it is safe to repeat (`Tool.idempotent`); otherwise
the code gets a `ToolCallInterruptedError` that says the call may or may not have taken effect, so
the model checks before it calls again, and nothing runs twice behind the user's back.

Calls are matched by tool name and arguments, in order for each such pair: a resumed step that
makes its calls in another order (parallel tool calls) still finds each one's result, and a call the
first attempt never made is simply made.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from smol_core.errors import SmolError
from smol_core.executors.worker.protocol import UnserializableValue, encode

Save = Callable[[], None]


class ToolCallInterruptedError(SmolError):
    """A tool call that is not safe to repeat was running when the run's process died: it is not
    made again, as it may already have taken effect."""


class RecordedToolError(Exception):
    """The error a tool call raised before the run's process died, given back instead of calling again."""


def call_key(tool: str, arguments: Any) -> str:
    """The call's identity in the ledger: the tool's name and a digest of its encoded arguments."""
    encoded = json.dumps(encode(arguments), sort_keys=True, ensure_ascii=False, default=str)
    return f"{tool}:{hashlib.sha256(encoded.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}"


class ToolLedger:
    """The current step's calls (`entries`, saved with the run's state) and, in a resumed step, the
    calls its first attempt made (`recorded`), taken back as the step calls them again."""

    def __init__(self, entries: list[dict[str, Any]], save: Save) -> None:
        self.entries = entries
        self.recorded = list(entries)  # what the first attempt of this step made, if it is resumed
        self._save = save
        self._lock = threading.Lock()

    def step_done(self) -> list[dict[str, Any]]:
        """A new step begins: nothing recorded any longer applies. Returns the new (empty) entries."""
        with self._lock:
            self.entries.clear()
            self.recorded.clear()
            return self.entries

    def call(self, tool: str, arguments: Any, idempotent: bool, make_call: Callable[[], Any]) -> Any:
        """`make_call()` once across crashes: its saved result when the first attempt finished it."""
        replayed, entry = self._begin(tool, arguments, idempotent)
        if replayed is not None:
            return replayed()
        try:
            result = make_call()
        except BaseException as error:
            self._failed(entry, error)
            raise
        self._done(entry, result)
        return result

    async def call_async(
        self, tool: str, arguments: Any, idempotent: bool, make_call: Callable[[], Awaitable[Any]]
    ) -> Any:
        """`call` for an async tool."""
        replayed, entry = self._begin(tool, arguments, idempotent)
        if replayed is not None:
            return replayed()
        try:
            result = await make_call()
        except BaseException as error:
            self._failed(entry, error)
            raise
        self._done(entry, result)
        return result

    def _begin(
        self, tool: str, arguments: Any, idempotent: bool
    ) -> tuple[Callable[[], Any] | None, dict[str, Any]]:
        key = call_key(tool, arguments)
        with self._lock:
            recorded = next((entry for entry in self.recorded if entry["key"] == key), None)
            if recorded is not None:
                self.recorded.remove(recorded)
        if recorded is not None:
            replayed = self._replay(recorded, idempotent)
            if replayed is not None:
                return replayed, recorded
        entry: dict[str, Any] = {"tool": tool, "key": key, "status": "started"}
        with self._lock:
            self.entries.append(entry)
        if not idempotent:
            self._save()  # the call is known to be in flight before it can take effect
        return None, entry

    def _failed(self, entry: dict[str, Any], error: BaseException) -> None:
        entry.update(status="failed", error=f"{type(error).__name__}: {error}"[:2000])
        self._save()

    def _done(self, entry: dict[str, Any], result: Any) -> None:
        entry.update(status="done", result=result)
        self._save()

    def _replay(self, recorded: dict[str, Any], idempotent: bool) -> Callable[[], Any] | None:
        """What a call the first attempt made gives back now; None: make the call again."""
        status = recorded.get("status")
        result = recorded.get("result")
        with self._lock:
            self.entries.append(recorded)
        if status == "done" and not isinstance(result, UnserializableValue):
            return lambda: result
        if status == "failed":
            message = str(recorded.get("error", "the tool failed"))
            return lambda: _raise(RecordedToolError(message))
        with self._lock:
            self.entries.remove(recorded)
        if idempotent:
            return None
        what = "its result could not be saved" if status == "done" else "it was still running"
        entry = {**recorded, "status": "failed", "error": f"ToolCallInterruptedError: {what}"}
        with self._lock:
            self.entries.append(entry)
        self._save()
        tool = recorded.get("tool", "the tool")
        return lambda: _raise(
            ToolCallInterruptedError(
                f"the call to {tool} was made before this run was resumed and {what} when the run's "
                "process stopped: it may or may not have taken effect, so it is not made again. Check "
                f"whether it did before calling {tool} again."
            )
        )


def _raise(error: BaseException) -> Any:
    raise error
