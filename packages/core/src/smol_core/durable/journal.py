"""Model calls of a durable run, each recorded before the run goes on with its reply.

Why: "a model call whose result was checkpointed is never repeated". A step's state is saved when the
step ends, but its model reply arrives in the middle (the code, or a tool, runs after it); a run
killed in between would ask the model again on resume, and get another reply (and pay for it).
So every reply is saved with the run's last step state as soon as it arrives (`DurableRun.record`),
and a resumed run takes the saved replies, in order, instead of calling the model: as Temporal does
with an activity's result.

How it is wired: while a durable run is going, the agent's `model` is a shallow copy of the user's
model whose `generate` and `generate_stream` go through the current run's journal (its type,
capabilities and settings are the user's model's, so the agent behaves the same). A call made
outside a durable run (another run of the same agent) goes straight to the model. The user's model
comes back when the last durable run of the agent ends.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from smol_core.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCallStreamDelta,
    agglomerate_stream_deltas,
)

if TYPE_CHECKING:
    from smol_core.durable.runner import DurableRun

_INSTALLED = "_smol_durable_model"


def _durable(agent: Any) -> DurableRun | None:
    run = agent._current_run()  # the agent's run executing in this context (agents/run_state.py)
    return getattr(run, "durable", None) if run is not None else None


def _generate(agent: Any, inner: Any, *args: Any, **kwargs: Any) -> ChatMessage:
    durable = _durable(agent)
    if durable is None:
        return inner(*args, **kwargs)  # type: ignore[no-any-return]
    replayed = durable.replay_next()
    if replayed is not None:
        return replayed
    message: ChatMessage = inner(*args, **kwargs)
    durable.record(message)
    return message


def _generate_stream(agent: Any, inner: Any, *args: Any, **kwargs: Any) -> Generator[ChatMessageStreamDelta]:
    durable = _durable(agent)
    if durable is None:
        yield from inner(*args, **kwargs)
        return
    replayed = durable.replay_next()
    if replayed is not None:
        yield _as_delta(replayed)
        return
    deltas: list[ChatMessageStreamDelta] = []
    for delta in inner(*args, **kwargs):
        deltas.append(delta)
        yield delta
    durable.record(agglomerate_stream_deltas(deltas))


def _as_delta(message: ChatMessage) -> ChatMessageStreamDelta:
    calls = [
        ChatMessageToolCallStreamDelta(index=i, id=call.id, type=call.type, function=call.function)
        for i, call in enumerate(message.tool_calls or [])
    ]
    return ChatMessageStreamDelta(
        content=message.text, tool_calls=calls or None, token_usage=message.token_usage
    )


def install(agent: Any) -> None:
    """Route the agent's model calls through the journal of its current durable run (counted)."""
    model = agent.model
    installed = getattr(model, _INSTALLED, None)
    if installed is not None:
        installed[1] += 1
        return
    try:
        journaled: Any = copy.copy(model)
        journaled.generate = functools.partial(_generate, agent, model.generate)
        journaled.generate_stream = functools.partial(_generate_stream, agent, model.generate_stream)
        setattr(journaled, _INSTALLED, [model, 1])
    except Exception:  # a model that cannot be copied or takes no attributes (slots): a plain proxy
        journaled = _Proxy(model, agent)
    agent.model = journaled


class _Proxy:
    """The journaled model for a model `install` cannot copy: every other attribute is the model's."""

    def __init__(self, model: Any, agent: Any) -> None:
        self.generate = functools.partial(_generate, agent, model.generate)
        self.generate_stream = functools.partial(_generate_stream, agent, model.generate_stream)
        setattr(self, _INSTALLED, [model, 1])
        self._model = model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def __call__(self, *args: Any, **kwargs: Any) -> ChatMessage:
        return self.generate(*args, **kwargs)


def uninstall(agent: Any) -> None:
    """Undo one `install`; the last gives the agent its own model back."""
    installed = getattr(agent.model, _INSTALLED, None)
    if installed is None:
        return
    installed[1] -= 1
    if installed[1] <= 0:
        agent.model = installed[0]
