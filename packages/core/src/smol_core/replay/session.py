"""`recording(agent, path)` and `replaying(agent, path)`: a run taped, and a run played back from tape.

While recording, the agent's model and tools are the user's, each call written to the cassette as
it returns. While replaying, neither is ever called: each model call gets the recorded reply and
each tool call the recorded result, after a check that the run asks for what it asked then. The
first request that differs (a prompt reworded, a template changed, code that calls another tool)
stops the run with a `ReplayDivergenceError` that names the step, what differed and the diff.

How: the agent's `model` is, for the block, a shallow copy of the user's model whose `generate` and
`generate_stream` go through the tape (its type, capabilities and settings are the user's, so the
agent prompts exactly as it did); its tools are stand-ins with the same name, description and
inputs (the prompt is the same) whose `forward` goes through the tape. Both come back after.
"""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from smol_core.durable.tool_ledger import RecordedToolError
from smol_core.executors.worker.protocol import encode
from smol_core.messages import ChatMessage, ChatMessageStreamDelta, agglomerate_stream_deltas
from smol_core.replay.cassette import (
    CassetteWriter,
    ModelEvent,
    ReplayDivergenceError,
    ToolEvent,
    read_cassette,
    request_lines,
)
from smol_core.tools.tool import Tool

_DIFF_LINES = 60


@contextmanager
def recording(agent: Any, path: Any, task: str = "") -> Iterator[CassetteWriter]:
    """Tape every model reply and tool result of the runs in the block into the cassette at `path`."""
    writer = CassetteWriter(path, task)

    def answer(caller: Caller, call: Callable[[], ChatMessage], request: list[str]) -> ChatMessage:
        reply = call()
        writer.model(ModelEvent(_step(caller.agent), request, reply, caller.path))
        return reply

    def use(caller: Caller, tool: Tool, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        step, arguments = _step(caller.agent), _arguments(args, kwargs)
        try:
            result = tool(*args, **kwargs)
        except Exception as error:
            writer.tool(ToolEvent(step, tool.name, arguments, error=_error_text(error), agent=caller.path))
            raise
        writer.tool(ToolEvent(step, tool.name, arguments, result=result, agent=caller.path))
        return result

    restore = _install(agent, answer, use)
    try:
        yield writer
    finally:
        restore()
        writer.close()


@contextmanager
def replaying(agent: Any, path: Any) -> Iterator[Player]:
    """Run the block's runs from the cassette at `path`: no model call and no tool call is made."""
    player = Player(read_cassette(path), agent)

    def answer(caller: Caller, call: Callable[[], ChatMessage], request: list[str]) -> ChatMessage:
        return player.model(request, caller)

    def use(caller: Caller, tool: Tool, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return player.tool(tool.name, _arguments(args, kwargs), caller)

    restore = _install(agent, answer, use)
    try:
        yield player
    except Exception as error:
        # the agent reports a model's failure as its own error, and a tool's to the code: the
        # divergence itself is what the caller needs
        raise player.diverged or _divergence_in(error) or error from None
    finally:
        restore()
    player.finish()


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


def _arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return {"args": list(args), **kwargs} if args else dict(kwargs)


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:2000]


def _step(agent: Any) -> int:
    try:
        return int(agent.step_number)
    except Exception:
        return 0


# --- installing the tape on an agent -------------------------------------------------------------
@dataclass(frozen=True)
class Caller:
    """Whose call goes through the tape: the agent taped or one of its managed agents (`path`:
    their names from the top, "/"-joined; "" for the agent taped), and its step counter."""

    agent: Any
    path: str


Answer = Callable[[Caller, Callable[[], ChatMessage], list[str]], ChatMessage]
Use = Callable[[Caller, Tool, tuple[Any, ...], dict[str, Any]], Any]


def _install(agent: Any, answer: Answer, use: Use, path: str = "") -> Callable[[], None]:
    """Put the taped model and tools on `agent` and, recursively, on its managed agents (their
    calls are the run's too: a replay makes none of them); returns what puts the user's back."""
    caller = Caller(agent, path)
    model, tools = agent.model, agent.tools
    taped = copy.copy(model)

    def generate(
        messages: list[ChatMessage], stop_sequences: list[str] | None = None, **kwargs: Any
    ) -> ChatMessage:
        return answer(
            caller,
            lambda: model.generate(messages, stop_sequences=stop_sequences, **kwargs),
            request_lines(messages, stop_sequences),
        )

    def generate_stream(
        messages: list[ChatMessage], stop_sequences: list[str] | None = None, **kwargs: Any
    ) -> Generator[ChatMessageStreamDelta]:
        deltas: list[ChatMessageStreamDelta] = []

        def streamed() -> ChatMessage:
            for delta in model.generate_stream(messages, stop_sequences=stop_sequences, **kwargs):
                deltas.append(delta)
            return agglomerate_stream_deltas(deltas)

        reply = answer(caller, streamed, request_lines(messages, stop_sequences))
        if deltas:
            yield from deltas
        else:
            yield ChatMessageStreamDelta(content=reply.text, token_usage=reply.token_usage)

    taped.generate = generate
    taped.generate_stream = generate_stream
    agent.model = taped
    agent.tools = {name: _TapedTool(tool, caller, use) for name, tool in tools.items()}
    managed = getattr(agent, "managed_agents", None) or {}
    restores = [
        _install(member, answer, use, f"{path}/{name}" if path else name) for name, member in managed.items()
    ]

    def restore() -> None:
        for undo in restores:
            undo()
        agent.model, agent.tools = model, tools

    return restore


class _TapedTool(Tool):
    """A tool's stand-in: same name, description and inputs (the prompt is the same); its calls go
    through the tape."""

    skip_forward_signature_validation = True

    def __init__(self, tool: Tool, caller: Caller, use: Use) -> None:
        self.name = tool.name
        self.description = tool.description
        self.inputs = tool.inputs
        self.output_type = tool.output_type
        self.output_schema = getattr(tool, "output_schema", None)  # type: ignore[misc]
        self.idempotent = tool.idempotent
        self.requires_approval = tool.requires_approval
        self._tool, self._caller, self._use = tool, caller, use
        super().__init__()
        self.is_initialized = True

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._use(self._caller, self._tool, args, kwargs)
