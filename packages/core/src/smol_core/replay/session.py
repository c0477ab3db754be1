"""`recording(agent, path)` and `replaying(agent, path)`: a run taped, and a run played back from tape.

While recording, the agent's model and tools are the user's, each call written to the cassette as
it returns. While replaying, neither is ever called: each model call gets the recorded reply and
each tool call the recorded result, after a check that the run asks for what it asked then. The
first request that differs (a prompt reworded, a template changed, code that calls another tool)
stops the run with a `ReplayDivergenceError` that names the step, what differed and the diff.

How: for the block, the tape joins the door of every run of the agent (`effects.py`) as a
run extension, and, handed down, the door of every team member's run they call: each model reply
and tool result passes it. The model and the tools are never touched, so the agent prompts exactly
as it would, and they are as they were after the block.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from smol_core.durable.tool_ledger import RecordedToolError
from smol_core.effects import ModelCall, RunExtension, ToolEffect
from smol_core.executors.worker.protocol import encode
from smol_core.messages import ChatMessage
from smol_core.replay.cassette import (
    CassetteWriter,
    ModelEvent,
    ReplayDivergenceError,
    ToolEvent,
    read_cassette,
    request_lines,
)

_DIFF_LINES = 60


@contextmanager
def recording(agent: Any, path: Any, task: str = "") -> Iterator[CassetteWriter]:
    """Tape every model reply and tool result of the runs in the block into the cassette at `path`."""
    writer = CassetteWriter(path, task)

    def answer(caller: Caller, call: Callable[[], ChatMessage], request: list[str]) -> ChatMessage:
        reply = call()
        writer.model(ModelEvent(_step(caller.agent), request, reply, caller.path))
        return reply

    def use(caller: Caller, name: str, arguments: Any, call: Callable[[], Any]) -> Any:
        step = _step(caller.agent)
        try:
            result = call()
        except Exception as error:
            writer.tool(ToolEvent(step, name, arguments, error=_error_text(error), agent=caller.path))
            raise
        writer.tool(ToolEvent(step, name, arguments, result=result, agent=caller.path))
        return result

    with _taped(agent, Tape(answer, use, answers=False)):
        try:
            yield writer
        finally:
            writer.close()


@contextmanager
def replaying(agent: Any, path: Any) -> Iterator[Player]:
    """Run the block's runs from the cassette at `path`: no model call and no tool call is made."""
    player = Player(read_cassette(path), agent)

    def answer(caller: Caller, call: Callable[[], ChatMessage], request: list[str]) -> ChatMessage:
        return player.model(request, caller)

    def use(caller: Caller, name: str, arguments: Any, call: Callable[[], Any]) -> Any:
        return player.tool(name, arguments, caller)

    with _taped(agent, Tape(answer, use, answers=True)):
        try:
            yield player
        except Exception as error:
            # the agent reports a model's failure as its own error, and a tool's to the code: the
            # divergence itself is what the caller needs
            raise player.diverged or _divergence_in(error) or error from None
    player.finish()


@contextmanager
def _taped(agent: Any, tape: Tape) -> Iterator[None]:
    agent.run_extensions.append(tape)
    try:
        yield
    finally:
        agent.run_extensions.remove(tape)


def _divergence_in(error: BaseException) -> ReplayDivergenceError | None:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, ReplayDivergenceError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


class Player:
    """Hands out a cassette's events in order, checking each request against the recorded one."""

    def __init__(self, cassette: Any, agent: Any) -> None:
        self.task = cassette.task
        self.events: list[ModelEvent | ToolEvent] = list(cassette.events)
        self.position = 0
        self._agent = agent
        self.diverged: ReplayDivergenceError | None = None
        """The first divergence: later calls (the model asked again after a tool's error) repeat it."""

    def model(self, request: list[str], caller: Caller | None = None) -> ChatMessage:
        if self.diverged is not None:
            raise self.diverged
        caller = caller or Caller(self._agent, "")
        step = _step(caller.agent)
        event = self.events[self.position] if self.position < len(self.events) else None
        if not isinstance(event, ModelEvent) or event.agent != caller.path:
            what = f"the model{_of(caller.path)} was called"
            raise self._diverged(step, what, "where the recording", event, [])
        if event.request != request:
            diff = list(
                difflib.unified_diff(event.request, request, "recorded", "replayed", lineterm="", n=2)
            )
            first = next(
                (i for i, (a, b) in enumerate(zip(event.request, request, strict=False)) if a != b), None
            )
            where = f"line {first + 1}" if first is not None else "its length"
            raise self._first(
                ReplayDivergenceError(
                    f"the replay diverged at step {step}{_of(caller.path)}: the model request differs from "
                    f"the recorded one (first at {where} of {len(event.request)}); the diff follows",
                    step=step,
                    what="model request",
                    diff=diff[:_DIFF_LINES],
                )
            )
        self.position += 1
        return event.reply

    def tool(self, name: str, arguments: Any, caller: Caller | None = None) -> Any:
        if self.diverged is not None:
            raise self.diverged
        caller = caller or Caller(self._agent, "")
        step = _step(caller.agent)
        wanted = _canonical(arguments)
        # calls of one step may come in another order (parallel tool calls): look in the run of tool
        # events at the cursor for this one
        end = self.position
        while end < len(self.events) and isinstance(self.events[end], ToolEvent):
            end += 1
        for index in range(self.position, end):
            event = self.events[index]
            assert isinstance(event, ToolEvent)
            if event.tool == name and event.agent == caller.path and _canonical(event.arguments) == wanted:
                self.events.insert(self.position, self.events.pop(index))
                self.position += 1
                if event.error is not None:
                    raise RecordedToolError(event.error)
                return event.result
        recorded = self.events[self.position] if self.position < len(self.events) else None
        what = f"the tool {name} was called{_of(caller.path)} with {_short(arguments)}"
        raise self._diverged(step, what, "where the recording", recorded, [])

    def finish(self) -> None:
        """The replay ended: every recorded event must have been asked for."""
        if self.diverged is not None:
            raise self.diverged
        if self.position < len(self.events):
            left = self.events[self.position]
            raise ReplayDivergenceError(
                f"the replay diverged: the run ended where the recording went on with {_describe(left)} "
                f"({len(self.events) - self.position} event(s) not replayed)",
                step=left.step,
                what="run ended early",
            )

    def _diverged(
        self, step: int, what: str, where: str, event: Any, diff: list[str]
    ) -> ReplayDivergenceError:
        recorded = _describe(event) if event is not None else "ended"
        message = f"the replay diverged at step {step}: {what}, {where} {recorded}"
        return self._first(ReplayDivergenceError(message, step=step, what=what, diff=diff))

    def _first(self, error: ReplayDivergenceError) -> ReplayDivergenceError:
        """The divergence to report: the first one (a later one only follows from it)."""
        self.diverged = self.diverged or error
        return self.diverged


def _describe(event: ModelEvent | ToolEvent) -> str:
    where = f"step {event.step}{_of(event.agent)}"
    if isinstance(event, ModelEvent):
        return f"called the model ({where})"
    return f"called the tool {event.tool} with {_short(event.arguments)} ({where})"


def _of(path: str) -> str:
    """Which agent a call was of, in a message: nothing for the agent taped."""
    return f" of the managed agent {path!r}" if path else ""


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _canonical(arguments: Any) -> str:
    return json.dumps(encode(arguments), sort_keys=True, ensure_ascii=False, default=str)


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:2000]


def _step(agent: Any) -> int:
    try:
        return int(agent.step_number)
    except Exception:
        return 0


# --- the tape at a run's door ----------------------------------------------------------------------
@dataclass(frozen=True)
class Caller:
    """Whose call goes through the tape: the run taped or the run of one of the team members it
    calls (`path`: their names from the top, "/"-joined; "" for the agent taped), and so its step."""

    agent: Any
    path: str


Answer = Callable[[Caller, Callable[[], ChatMessage], list[str]], ChatMessage]
Use = Callable[[Caller, str, Any, Callable[[], Any]], Any]


class Tape(RunExtension):
    """A cassette at a run's door: every model reply and tool result goes through `answer` and
    `use` (recorded, or given from the tape when `answers`), the team members' runs under their path."""

    def __init__(self, answer: Answer, use: Use, answers: bool, path: str = "") -> None:
        self._answer, self._use, self.answers, self.path = answer, use, answers, path
        self.run: Any = None

    def open(self, run: Any) -> None:
        self.run = run

    def child(self, member: str) -> Tape:
        return Tape(self._answer, self._use, self.answers, f"{self.path}/{member}" if self.path else member)

    def _caller(self, run: Any) -> Caller:
        return Caller(run if run is not None else self.run, self.path)

    def answer_model_call(self, call: ModelCall) -> ChatMessage | None:
        if not self.answers:
            return None
        request = request_lines(call.messages, call.stop_sequences)
        return self._answer(self._caller(call.run), _unreachable, request)

    def after_model_call(self, call: ModelCall, reply: ChatMessage, answered_by: RunExtension | None) -> None:
        if not self.answers:
            self._answer(
                self._caller(call.run), lambda: reply, request_lines(call.messages, call.stop_sequences)
            )

    def tool_call(self, effect: ToolEffect, proceed: Callable[[], Any]) -> Any:
        if effect.kind == "member":
            return proceed()  # the member's own calls are taped, under its path
        arguments = effect.arguments if isinstance(effect.arguments, dict) else {"args": [effect.arguments]}
        return self._use(self._caller(None), effect.name, arguments, proceed)


def _unreachable() -> ChatMessage:
    raise AssertionError("a replay never asks the model")
