"""The door every effect of a run goes through, and the extensions that join it.

Why one door: what a run does to the world is a model call (drafts, plans and the last-chance
answer included), a tool call, a call to a team member, a message sent. Durable runs promise that
each is made once across crashes; approval, that a person saw it first; budgets, that it is paid
for; record and replay, that it is taped or answered from tape. When each promise patched the door
it cared about (a copy of the model with its methods swapped, tools swapped for stand-ins, a
ledger handed to one call site), a door nobody patched let effects through: a team member's calls
skipped the ledger, approval and budget, and a model copied for a run was closed with its copy.

So a run holds one `RunDoor`, made when the run starts from the run's extensions (`RunExtension`):
what the agent was given (`agent.run_extensions`, a `recording(...)` block), what the run asked for
(a `run_id`, a `budget`) and, for a team member, what its manager's run hands down
(`RunExtension.child`). The loop makes every effect through the door and knows only this module:
- model calls: while a run with extensions executes, `agent.model` is that run's `RunModel`, a
  wrapper around the user's model (never a copy, never patched) whose `generate` and
  `generate_stream` pass through the door, so a subclass's own step that calls `self.model` is
  covered too; outside such a run, `agent.model` is the user's model itself;
- tool calls and team-member calls: `RunDoor.tool_call` / `tool_call_async`, each a chain of the
  extensions' `tool_call` around the call itself, outermost first.

A run with no extension has an empty door: the model is called directly, as it always was.
"""

from __future__ import annotations

import contextvars
import functools
import math
import threading
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from smol_core.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCallStreamDelta,
    agglomerate_stream_deltas,
)

__all__ = [
    "ModelCall",
    "RunDoor",
    "RunExtension",
    "RunModel",
    "RunSpending",
    "ToolEffect",
    "handed_down",
]


@dataclass
class ModelCall:
    """One model call as the extensions see it: what is asked, and how."""

    messages: list[ChatMessage]
    stop_sequences: list[str] | None
    options: dict[str, Any]
    """Every other keyword the agent passes (`tools_to_call_from`, `grammar`, `response_format`...)."""
    stream: bool
    run: Any = None
    """The `AgentRun` making the call."""
    model: Any = None
    """The user's model, which the call goes to unless an extension answers it."""


@dataclass(frozen=True)
class ToolEffect:
    """One tool call, or one call to a team member, as the extensions see it."""

    name: str
    arguments: Any
    """As the tool receives them: a dict of its inputs, or the one raw value a model passed."""
    kind: Literal["tool", "member"] = "tool"
    idempotent: bool = False
    """The tool says a second call does no harm (`Tool.idempotent`): a call interrupted by a crash
    may be made again. A team member's run is a durable sub-run, so its call is always resumable."""
    requires_approval: bool = False


class RunExtension:
    """Something that joins a run's door. Every method is a no-op here: override what you need.

    Model calls go through three methods, in the order of the run's extensions: `before_model_call`
    (may raise to stop the call: a spent budget), `answer_model_call` (the first that returns a
    reply answers the call, and the model is not asked: a journal or a tape) and `after_model_call`
    (every extension sees the reply, and who answered it: None where the model did). Tool calls go
    through `tool_call`, a chain: call `proceed()` to make the call (or the next extension's part of
    it), or return without calling it (a recorded result). The lifecycle methods let a run keep its
    state with its steps (a checkpoint)."""

    def before_model_call(self, call: ModelCall) -> None:
        """Called before every model call of the run."""

    def answer_model_call(self, call: ModelCall) -> ChatMessage | None:
        """A reply that answers the call without asking the model, or None."""
        return None

    def after_model_call(self, call: ModelCall, reply: ChatMessage, answered_by: RunExtension | None) -> None:
        """Called with every reply the run gets, whoever gave it."""

    def tool_call(self, effect: ToolEffect, proceed: Callable[[], Any]) -> Any:
        """Make the call through `proceed()`, or answer it."""
        return proceed()

    async def tool_call_async(self, effect: ToolEffect, proceed: Callable[[], Awaitable[Any]]) -> Any:
        """`tool_call` for an async tool."""
        return await proceed()

    def open(self, run: Any) -> Any:
        """The run starts (its task not yet in memory): may refuse it by raising, or return a
        checkpoint the run goes on from instead of starting (a resumed run)."""
        return None

    def resumed(self, run: Any) -> None:
        """A run that went on from a checkpoint has its memory back: give back what else the
        extension keeps (a sandbox's variables, the tools' state)."""

    def child(self, member: str) -> RunExtension | None:
        """What this extension becomes in the run of the team member `member` that this run calls
        (called as that run starts, from inside the member call's `tool_call` chain); None: the
        member's run goes without it."""
        return None

    def first_step(self, run: Any) -> int | None:
        """The step the run starts at, where the extension knows better than 1 (a resumed run)."""
        return None

    def step_starting(self, run: Any) -> None:
        """Before each step (planning included): may raise to stop the run there (a budget)."""

    def step_ended(self, run: Any) -> None:
        """A step is in memory: may raise to stop the run (a call waiting for a person)."""

    def run_finished(self, run: Any, output: Any) -> None:
        """The run gave its final answer."""

    def run_ended(self, run: Any) -> None:
        """The run is over, however it ended (idempotent: may be called more than once)."""


_HANDED_DOWN: contextvars.ContextVar[tuple[RunExtension, ...] | None] = contextvars.ContextVar(
    "smol_handed_down_extensions", default=None
)


def handed_down() -> tuple[RunExtension, ...]:
    """The extensions a manager's run hands to the member run starting now (taken once: the member's
    own tools' and members' runs get theirs from its door, not from here)."""
    extensions = _HANDED_DOWN.get()
    if extensions is None:
        return ()
    _HANDED_DOWN.set(None)
    return extensions


@dataclass
class RunDoor:
    """A run's door: its extensions, in order, and the wrapper model the run's model calls go through."""

    extensions: Sequence[RunExtension] = ()
    run: Any = None
    _models: dict[int, RunModel] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.extensions)

    def model(self, model: Any) -> Any:
        """`model` as this run calls it: itself where nothing joined the door, else its `RunModel`."""
        if not self.extensions:
            return model
        wrapped = self._models.get(id(model))
        if wrapped is None or wrapped.wrapped is not model:
            wrapped = self._models[id(model)] = RunModel(model, self)
        return wrapped

    # --- model calls ----------------------------------------------------------------------------
    def _answer(self, call: ModelCall) -> tuple[ChatMessage | None, RunExtension | None]:
        for extension in self.extensions:
            extension.before_model_call(call)
        for extension in self.extensions:
            reply = extension.answer_model_call(call)
            if reply is not None:
                return reply, extension
        return None, None

    def _replied(self, call: ModelCall, reply: ChatMessage, answered_by: RunExtension | None) -> None:
        if answered_by is None and self.run is not None:
            self.run.spending.count(reply, call.model)  # counted where it is made, before anyone saves
        _every(self.extensions, lambda extension: extension.after_model_call(call, reply, answered_by))

    def generate(self, model: Any, call: ModelCall) -> ChatMessage:
        reply, answered_by = self._answer(call)
        if reply is None:
            reply = model.generate(call.messages, stop_sequences=call.stop_sequences, **call.options)
        self._replied(call, reply, answered_by)
        return reply

    def generate_stream(self, model: Any, call: ModelCall) -> Generator[ChatMessageStreamDelta]:
        reply, answered_by = self._answer(call)
        if reply is not None:
            yield as_delta(reply)
        else:
            deltas: list[ChatMessageStreamDelta] = []
            for delta in model.generate_stream(
                call.messages, stop_sequences=call.stop_sequences, **call.options
            ):
                deltas.append(delta)
                yield delta
            reply = agglomerate_stream_deltas(deltas)
        self._replied(call, reply, answered_by)

    # --- tool and member calls ------------------------------------------------------------------
    def tool_call(self, effect: ToolEffect, make_call: Callable[[], Any]) -> Any:
        """`make_call()` through every extension's `tool_call`, the first extension outermost. A team
        member's run started inside it gets what each extension hands down (`RunExtension.child`)."""
        proceed = self._handing_down(effect, make_call)
        for extension in reversed(self.extensions):
            proceed = functools.partial(extension.tool_call, effect, proceed)
        return proceed()

    async def tool_call_async(self, effect: ToolEffect, make_call: Callable[[], Awaitable[Any]]) -> Any:
        proceed = make_call
        for extension in reversed(self.extensions):
            proceed = functools.partial(extension.tool_call_async, effect, proceed)
        return await proceed()

    def _handing_down(self, effect: ToolEffect, make_call: Callable[[], Any]) -> Callable[[], Any]:
        if effect.kind != "member":
            return make_call

        def call_member() -> Any:
            children = tuple(
                child for extension in self.extensions if (child := extension.child(effect.name)) is not None
            )
            token = _HANDED_DOWN.set(children)
            try:
                return make_call()
            finally:
                _HANDED_DOWN.reset(token)

        return call_member

    # --- the run's life -------------------------------------------------------------------------
    def open(self) -> Any:
        """Open every extension, in order; the checkpoint one of them returns, if any. An extension
        that refuses the run (raises) leaves those opened before it to `run_ended`."""
        found = None
        for extension in self.extensions:
            checkpoint = extension.open(self.run)
            if checkpoint is not None:
                found = checkpoint
        return found

    def resumed(self) -> None:
        for extension in self.extensions:
            extension.resumed(self.run)

    def first_step(self) -> int:
        for extension in self.extensions:
            step = extension.first_step(self.run)
            if step is not None:
                return step
        return 1

    def step_starting(self) -> None:
        for extension in self.extensions:
            extension.step_starting(self.run)

    def step_ended(self) -> None:
        for extension in self.extensions:
            extension.step_ended(self.run)

    def run_finished(self, output: Any) -> None:
        for extension in self.extensions:
            extension.run_finished(self.run, output)

    def run_ended(self) -> None:
        _every(self.extensions, lambda extension: extension.run_ended(self.run))


def _every(extensions: Sequence[RunExtension], notify: Callable[[RunExtension], None]) -> None:
    """`notify` each extension, even where one before it raises, then raise the first error: a
    user's audit hook that fails must not keep the journal from saving a reply already paid for, or
    a durable run's lease from going back."""
    failure: BaseException | None = None
    for extension in extensions:
        try:
            notify(extension)
        except BaseException as error:
            failure = failure or error
    if failure is not None:
        raise failure


@dataclass
class RunSpending:
    """What one run's own model calls cost, counted at its door as each reply arrives."""

    tokens: int = 0
    cost: float | None = 0.0
    model_calls: int = 0
    uncounted: int = 0
    """Replies whose usage was missing or negative: what they cost is not known."""

    def count(self, reply: ChatMessage, model: Any) -> None:
        usage = reply.token_usage
        if usage is None or usage.input_tokens < 0 or usage.output_tokens < 0:
            with _SPENDING_LOCK:
                self.model_calls += 1
                self.uncounted += 1
            return
        price = _price(model, usage) if self.cost is not None else None
        with _SPENDING_LOCK:
            self.model_calls += 1
            self.tokens += usage.total_tokens
            self.cost = None if self.cost is None or price is None else self.cost + price

    def hand_over(self, to: RunSpending) -> None:
        """Add what this run spent to `to` (its manager's run, which a team member's finished run
        answers to) and count nothing here any more: the manager's checkpoint then holds it, and a
        budget that counts both runs counts it once."""
        with _SPENDING_LOCK:
            to.tokens += self.tokens
            to.cost = None if to.cost is None or self.cost is None else to.cost + self.cost
            to.model_calls += self.model_calls
            to.uncounted += self.uncounted
            self.tokens, self.cost, self.model_calls, self.uncounted = 0, 0.0, 0, 0

    def to_data(self) -> list[Any]:
        return [self.tokens, self.cost, self.model_calls, self.uncounted]

    @classmethod
    def from_data(cls, data: Any) -> RunSpending:
        """What a checkpoint saved (a file someone may hand you: anything else is a ValueError)."""
        if not isinstance(data, list) or len(data) != 4:
            raise ValueError("the run's spending is not [tokens, cost, calls, uncounted]")
        tokens, cost, calls, uncounted = data
        counts = (tokens, calls, uncounted)
        if not all(type(n) is int and 0 <= n < 2**53 for n in counts):
            raise ValueError("the run's spending counts are not whole numbers")
        if cost is not None and not (type(cost) in (int, float) and 0 <= cost < math.inf):
            raise ValueError("the run's spent cost is not a number")
        return cls(tokens, None if cost is None else float(cost), calls, uncounted)


_SPENDING_LOCK = threading.Lock()
"""Spending is counted from the threads of parallel tool calls (team members called at once)."""


def _price(model: Any, usage: Any) -> float | None:
    price = getattr(model, "cost_of", None)
    return price(usage) if callable(price) else None


class RunModel:
    """The user's model as one run calls it: every call through the run's door.

    A wrapper, never a copy: the model object (and what it holds: a loaded llama.cpp engine, an HTTP
    client) stays the user's, untouched, and is usable by any other run at the same time. Every
    attribute but the two calls is the model's own."""

    def __init__(self, model: Any, door: RunDoor) -> None:
        self.wrapped = model
        self._door = door

    def generate(
        self, messages: list[ChatMessage], stop_sequences: list[str] | None = None, **options: Any
    ) -> ChatMessage:
        call = ModelCall(list(messages), stop_sequences, options, False, self._door.run, self.wrapped)
        return self._door.generate(self.wrapped, call)

    def generate_stream(
        self, messages: list[ChatMessage], stop_sequences: list[str] | None = None, **options: Any
    ) -> Generator[ChatMessageStreamDelta]:
        call = ModelCall(list(messages), stop_sequences, options, True, self._door.run, self.wrapped)
        return self._door.generate_stream(self.wrapped, call)

    def __call__(
        self, messages: list[ChatMessage], stop_sequences: list[str] | None = None, **options: Any
    ) -> ChatMessage:
        return self.generate(messages, stop_sequences=stop_sequences, **options)

    def __getattr__(self, name: str) -> Any:
        if name in ("wrapped", "_door"):
            raise AttributeError(name)
        return getattr(self.wrapped, name)

    def __eq__(self, other: object) -> bool:
        return other is self or self.wrapped == other

    def __hash__(self) -> int:
        return hash(self.wrapped)

    def __repr__(self) -> str:
        return repr(self.wrapped)


def as_delta(message: ChatMessage) -> ChatMessageStreamDelta:
    """A whole reply as the one delta of a stream (a journaled or taped reply, streamed): its text,
    its tool calls and its token usage, so an agent that streams reads the same message."""
    calls = [
        ChatMessageToolCallStreamDelta(index=i, id=call.id, type=call.type, function=call.function)
        for i, call in enumerate(message.tool_calls or [])
    ]
    return ChatMessageStreamDelta(
        content=message.text, tool_calls=calls or None, token_usage=message.token_usage
    )
