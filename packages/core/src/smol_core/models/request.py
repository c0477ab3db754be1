"""`ModelRequest`: one model call as one value, instead of a long signature repeated in every plugin.

smolagents' call is `model.generate(messages, stop_sequences, response_format,
tools_to_call_from, **kwargs)`, and users and third-party models keep making and overriding it.
Inside smol, `Model.generate` turns that call into a `ModelRequest` once, and plugins implement
`Model.request(request)`: options that used to travel hidden in `**kwargs` (`grammar`, `tool_choice`)
are named fields, and every other keyword is kept, as given, in `options`. `to_call()` gives the smolagents
call back, for models that still override `generate` the old way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from smol_core.messages import ChatMessage
from smol_core.models.options import layer_options

__all__ = ["ModelRequest"]


@dataclass(frozen=True)
class ModelRequest:
    """What the agent asks of a model in one call.

    Attributes:
        messages: the conversation, provider-neutral.
        stop_sequences: strings the reply must stop before (cut client-side where a backend cannot).
        response_format: an OpenAI-style `response_format` (a JSON schema the reply must follow).
        tools_to_call_from: tools the reply must call one of (native tool calling or a schema).
        grammar: a GBNF grammar the reply must follow (backends with `capabilities.grammar`).
        tool_choice: "required" (the default meaning of tools), "auto", "none", or a provider's dict.
        options: every other per-call keyword (`temperature`, `max_tokens`, `extra_body`...), as given;
            they override the model's defaults.
    """

    messages: list[ChatMessage]
    stop_sequences: list[str] | None = None
    response_format: dict[str, Any] | None = None
    tools_to_call_from: list[Any] | None = None
    grammar: str | None = None
    tool_choice: str | dict[str, Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_call(
        cls,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> ModelRequest:
        """The request a smolagents-style `generate(...)` call makes (its keywords sorted into fields)."""
        options = dict(kwargs)
        return cls(
            messages=list(messages),
            stop_sequences=list(stop_sequences) if stop_sequences is not None else None,
            response_format=response_format,
            tools_to_call_from=list(tools_to_call_from) if tools_to_call_from is not None else None,
            grammar=options.pop("grammar", None),
            tool_choice=options.pop("tool_choice", None),
            options=options,
        )

    @property
    def keywords(self) -> dict[str, Any]:
        """The call's keywords beyond smolagents' four, as a smolagents-style call would pass them on."""
        extra: dict[str, Any] = {}
        if self.grammar is not None:
            extra["grammar"] = self.grammar
        if self.tool_choice is not None:
            extra["tool_choice"] = self.tool_choice
        return {**extra, **self.options}

    def to_call(self) -> dict[str, Any]:
        """The smolagents call's keyword arguments: `model.generate(**request.to_call())` asks the same."""
        return {
            "messages": list(self.messages),
            "stop_sequences": self.stop_sequences,
            "response_format": self.response_format,
            "tools_to_call_from": self.tools_to_call_from,
            **self.keywords,
        }

    def options_over(self, defaults: Mapping[str, Any]) -> dict[str, Any]:
        """The model's default options with this call's own on top (the call wins); an option set to
        `REMOVE_PARAMETER` by either is left out."""
        return layer_options({}, defaults, self.options)
