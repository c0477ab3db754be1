"""Models that are not `Model`s but have smolagents' `generate` method.

Why: smolagents calls `agent.model.generate(messages, stop_sequences=...)` on whatever it was given,
so its users pass objects that only have that method: a model class of their own that subclasses
nothing, or a `unittest.mock.MagicMock` whose `generate.return_value` is the reply. Such an object
is also callable (a mock is), and taking it for a plain function `f(messages)` would call the wrong
thing. So an object with a `generate` method is asked through that method, with the keywords the
agent gives (those it leaves unset are not sent, so a narrow `generate(messages, stop_sequences)`
keeps working), and its reply is read as a `ChatMessage`.
"""

from __future__ import annotations

from typing import Any

from smol_core.messages import ChatMessage, MessageRole
from smol_core.models.base import Model
from smol_core.models.callable_model import as_model

__all__ = ["GenerateMethodModel", "as_agent_model"]


class GenerateMethodModel(Model):
    """A `Model` that answers through another object's `generate(messages, **keywords)`."""

    def __init__(self, target: Any) -> None:
        model_id = getattr(target, "model_id", None)
        super().__init__(model_id=model_id if isinstance(model_id, str) else type(target).__name__)
        self.target = target

    def generate(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> ChatMessage:
        keywords = {
            "stop_sequences": stop_sequences,
            "response_format": response_format,
            "tools_to_call_from": tools_to_call_from,
            **kwargs,
        }
        reply = self.target.generate(messages, **{k: v for k, v in keywords.items() if v is not None})
        return as_chat_message(reply)

    def __getattr__(self, name: str) -> Any:
        """What the wrapped object has and a `Model` has not (`agent.model.some_setting`)."""
        if name.startswith("_") or name == "target":
            raise AttributeError(name)
        return getattr(self.target, name)

    def __eq__(self, other: object) -> bool:
        """Equal to the object it wraps: `agent.model == the_model_given` holds, as in smolagents."""
        return (
            other is self
            or other is self.target
            or (isinstance(other, GenerateMethodModel) and other.target is self.target)
        )

    __hash__ = Model.__hash__


def as_chat_message(reply: Any) -> ChatMessage:
    """A reply as a `ChatMessage`: a message as it is, anything else by its `content` (or its text)."""
    if isinstance(reply, ChatMessage):
        return reply
    content = getattr(reply, "content", reply)
    return ChatMessage(MessageRole.ASSISTANT, content if isinstance(content, str | list) else str(content))


def as_agent_model(obj: Any) -> Model:
    """What an agent's `model=` becomes: a `Model` as it is; an object with a `generate` method asked
    through it (smolagents' duck typing); a plain callable `f(messages)` through `as_model`."""
    if not isinstance(obj, Model) and callable(getattr(obj, "generate", None)):
        return GenerateMethodModel(obj)
    return as_model(obj)
