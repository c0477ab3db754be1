"""The tools' ledger: every tool call of a durable run's current step, saved as it starts and ends.

Why: a step's state is saved when the step ends, but its tool calls happen in the middle. A run
killed mid-step is resumed from its last step: the step's model reply comes from the journal
(durable/runner.py) and its code runs again, and so would every tool call the code makes, a second
`send_email` included. With the ledger, a call whose result was saved is not made again: the saved
result (or error) is given back. A call that was still running when the process died (started,
never ended) is repeated only when its tool says it is safe to repeat (`Tool.idempotent`); otherwise
the code gets a `ToolCallInterruptedError` that says the call may or may not have taken effect, so
the model checks before it calls again, and nothing runs twice behind the user's back.

Calls are matched by tool name and arguments, in order for each such pair: a resumed step that
makes its calls in another order (parallel tool calls) still finds each one's result, and a call the
first attempt never made is simply made.

A call that is made again (it was in flight at the crash, and its tool is `idempotent`) can tell
that it is the same call: `idempotency_key()`, asked from inside the tool, names the call the same
way in every attempt (the run, the step, the call's tool and arguments, and how many such calls the
step made before it). A tool whose service takes an idempotency key (a payment API, a queue that
drops duplicate ids) passes it on and so is safe to repeat: the team's `send_message` uses it as the
message's id, which every receiver drops when it comes a second time.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, NoReturn

from smol_core.durable.call_view import approval_key, short_call
from smol_core.durable.errors import ApprovalPendingError, ToolCallDeniedError
from smol_core.errors import BudgetExceededError, SmolError
from smol_core.executors.worker.protocol import UnserializableValue, decode, encode

Save = Callable[[], None]
_CALL_KEY: contextvars.ContextVar[str | None] = contextvars.ContextVar("smol_tool_call_key", default=None)


def idempotency_key() -> str | None:
    """The key of the tool call in progress in a durable run: the same in every attempt at that call
    (after a crash and a resume), different for every other call; None outside a durable run's tool
    call. 32 hex characters."""
    return _CALL_KEY.get()


@contextlib.contextmanager
def _calling(key: str) -> Iterator[None]:
    token = _CALL_KEY.set(key)
    try:
        yield
    finally:
        _CALL_KEY.reset(token)


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

    def __init__(
        self,
        entries: list[dict[str, Any]],
        save: Save,
        approval_policy: Callable[[str, Any], bool] | None = None,
        run_id: str = "",
    ) -> None:
        self.entries = entries
        self.recorded = list(entries)  # what the first attempt of this step made, if it is resumed
        self._save = save
        self._lock = threading.Lock()
        self.approval_policy = approval_policy
        self.run_id = run_id
        self.step = 0
        """The step these calls belong to (the run sets it): part of each call's idempotency key."""
        self._begun: Counter[str] = Counter()  # calls begun this step, by call key
        self.pending: dict[str, Any] | None = None
        """The call this step waits on a person's decision for: the run pauses when the step ends."""
        self.halted: BaseException | None = None
        """What stopped a call of this step that stops the whole run (a team member's run paused
        for a person, or its budget spent): the call stays in flight, to be resumed with the run,
        and nothing more runs in the step, even where the code caught the error."""

    def step_done(self) -> list[dict[str, Any]]:
        """A new step begins: nothing recorded any longer applies. Returns the new (empty) entries."""
        with self._lock:
            self.entries.clear()
            self.recorded.clear()
            self._begun.clear()
            self.pending = None
            self.halted = None
            return self.entries

    def call(
        self,
        tool: str,
        arguments: Any,
        idempotent: bool,
        make_call: Callable[[], Any],
        requires_approval: bool = False,
        resumable: bool = False,
    ) -> Any:
        """`make_call()` once across crashes: its saved result when the first attempt finished it;
        not before a person approved it, when the tool or the agent's policy asks for approval.
        `resumable`: the call is a team member's durable sub-run, which a pause for a person or a
        spent budget stops without failing it (`RUN_STOPPERS`): it then stays in flight, resumed
        with the run, and stops the rest of the step."""
        replayed, entry = self._begin(tool, arguments, idempotent, requires_approval)
        if replayed is not None:
            return replayed()
        try:
            with _calling(entry["attempt_key"]):
                result = make_call()
        except BaseException as error:
            if resumable and isinstance(error, RUN_STOPPERS):
                self.halted = self.halted or error
            elif _tool_failure(error):
                self._failed(entry, error)
            raise
        self._done(entry, result)
        return result

    async def call_async(
        self,
        tool: str,
        arguments: Any,
        idempotent: bool,
        make_call: Callable[[], Awaitable[Any]],
        requires_approval: bool = False,
    ) -> Any:
        """`call` for an async tool."""
        replayed, entry = self._begin(tool, arguments, idempotent, requires_approval)
        if replayed is not None:
            return replayed()
        try:
            with _calling(entry["attempt_key"]):
                result = await make_call()
        except BaseException as error:
            if _tool_failure(error):
                self._failed(entry, error)
            raise
        self._done(entry, result)
        return result

    def _begin(
        self, tool: str, arguments: Any, idempotent: bool, requires_approval: bool = False
    ) -> tuple[Callable[[], Any] | None, dict[str, Any]]:
        """A call's entry, ready to be made; or what a recorded call gives back instead. Entries
        are kept in place (a recorded one is updated, never copied), so the saved ledger holds
        each call once, those a resumed step has not reached yet included."""
        if self.pending is not None:  # nothing more runs in a step that waits for a decision
            raise ApprovalPendingError(self.pending_message())
        if self.halted is not None:  # nor in one a team member's pause or spent budget stopped
            raise self.halted
        key = call_key(tool, arguments)
        with self._lock:
            occurrence = self._begun[key]
            self._begun[key] += 1
            recorded = next((entry for entry in self.recorded if entry["key"] == key), None)
            if recorded is not None:
                self.recorded.remove(recorded)
        attempt_key = hashlib.sha256(f"{self.run_id}\0{self.step}\0{key}\0{occurrence}".encode()).hexdigest()[
            :32
        ]
        if recorded is not None and recorded.get("status") == "awaiting_approval":
            entry = self._decision(recorded)  # raises unless a person approved the call
        elif recorded is not None:
            replayed = self._replay(recorded, idempotent)
            if replayed is not None:
                return replayed, recorded
            entry = recorded  # an interrupted call, safe to repeat: made again
        else:
            entry = {"tool": tool, "key": key}
            with self._lock:
                self.entries.append(entry)
            if requires_approval or self._policy_asks(tool, arguments):
                entry.update(arguments=_kept_arguments(arguments), approval_key=approval_key(attempt_key))
                self._wait_for_approval(entry)
        entry["status"] = "started"
        entry["attempt_key"] = attempt_key
        if not idempotent:
            self._save()  # the call is known to be in flight before it can take effect
        return None, entry

    # --- approval -----------------------------------------------------------------------------
    def _policy_asks(self, tool: str, arguments: Any) -> bool:
        return self.approval_policy is not None and bool(self.approval_policy(tool, arguments))

    def _wait_for_approval(self, entry: dict[str, Any]) -> NoReturn:
        """Mark the call as waiting for a person and stop it (the run pauses when the step ends)."""
        entry["status"] = "awaiting_approval"
        entry.pop("approval", None)
        with self._lock:
            self.pending = entry
        self._save()
        raise ApprovalPendingError(self.pending_message())

    def _decision(self, recorded: dict[str, Any]) -> dict[str, Any]:
        """A call that waited for approval, asked again: its entry when a person approved it."""
        approval, note = recorded.get("approval"), recorded.get("note")
        if approval == "approved":
            return recorded
        if approval == "denied":
            recorded.update(status="failed", error=f"denied: {note or 'no reason given'}")
            self._save()
            shown, _ = short_call(str(recorded.get("tool", "a tool")), recorded.get("arguments"))
            raise ToolCallDeniedError(
                f"a person denied the call {shown}"
                + (f": {note}" if note else "")
                + ". It was not made; do not call it again the same way."
            )
        self._wait_for_approval(recorded)

    def pending_message(self) -> str:
        """What the run says when it pauses: the call (each argument shortened, and then said so),
        the key a person approves it by, and the commands that decide it."""
        pending = self.pending or {}
        run = f"run {self.run_id!r}" if self.run_id else "the run"
        shown, cut = short_call(str(pending.get("tool", "a tool")), pending.get("arguments"))
        key = str(pending.get("approval_key", "KEY"))
        whole = f" (shortened: `smol runs show {self.run_id}` shows the whole call)" if cut else ""
        return (
            f"{run} is paused: its call {shown}{whole} waits for a person's decision on key {key}: "
            f"`smol runs approve {self.run_id} {key}` or `smol runs deny {self.run_id} {key} --note WHY` "
            "(smol_core.durable.approve/deny in Python), then resume it"
        )

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
        if status == "done" and not isinstance(result, UnserializableValue):
            return lambda: result
        if status == "failed":
            message = str(recorded.get("error", "the tool failed"))
            return lambda: _raise(RecordedToolError(message))
        if idempotent:
            return None
        what = "its result could not be saved" if status == "done" else "it was still running"
        recorded.pop("result", None)
        recorded.update(status="failed", error=f"ToolCallInterruptedError: {what}")
        self._save()
        tool = recorded.get("tool", "the tool")
        return lambda: _raise(
            ToolCallInterruptedError(
                f"the call to {tool} was made before this run was resumed and {what} when the run's "
                "process stopped: it may or may not have taken effect, so it is not made again. Check "
                f"whether it did before calling {tool} again."
            )
        )


def _tool_failure(error: BaseException) -> bool:
    """Whether `error` is the call's own outcome, given back as it is on resume. Not a run a tool
    drives that paused for a person, nor a stop of the process raised where it was (Ctrl-C, a team
    agent's SIGTERM): the call is then in flight, made again on resume if it is safe to repeat."""
    return isinstance(error, Exception) and not isinstance(error, ApprovalPendingError)


RUN_STOPPERS = (ApprovalPendingError, BudgetExceededError)
"""What a call raises when it stops the run rather than failing: a team member's run that paused for
a person, or that spent the budget it shares with its manager. Not a result: the call is resumed."""


def _kept_arguments(arguments: Any) -> Any:
    """The arguments as the ledger keeps them for a person to read: a copy through the checkpoint's
    codec, so the view, the saved checkpoint and the key all describe the same values, whatever the
    caller does with its own objects afterwards."""
    return decode(encode(arguments))


def _raise(error: BaseException) -> Any:
    raise error
