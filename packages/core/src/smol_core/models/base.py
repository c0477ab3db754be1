"""`Model`: what the agent loop asks of every language model.

A model takes provider-neutral `ChatMessage`s and returns one, with token usage. Plugins subclass
`Model` (or `ApiModel` in `smol_core.models.api_model`, for remote services) and translate a
`ModelRequest` to their provider. Capabilities (`ModelCapabilities`) are declared, not guessed, so the
agent adapts: a model without `stop` support gets its reply cut client-side; one without native tools
gets tool calls parsed from text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from smol_core import instrumentation
from smol_core.messages import ChatMessage, ChatMessageStreamDelta, MessageRole, TokenUsage
from smol_core.models.capabilities import ModelCapabilities
from smol_core.models.message_list import TOOL_ROLE_CONVERSIONS, get_clean_message_list
from smol_core.models.options import REMOVE_PARAMETER, layer_options, supports_stop_parameter
from smol_core.models.request import ModelRequest
from smol_core.models.tool_calls import get_tool_json_schema, parse_json_if_needed, tool_call_from_text

__all__ = ["EXPORTED_ATTRIBUTES", "SECRET_KEYS", "Model"]


class Model:
    """Base class of language models.

    Subclasses implement `request` (and `request_stream` if they can stream): smolagents' `generate(...)`
    call, which agents and users make, arrives there as one `ModelRequest`. A subclass that overrides
    `generate` itself, as in smolagents, is answered by it instead.
    """

    capabilities = ModelCapabilities()

    # Class-level defaults: a subclass written for smolagents whose `__init__` never calls
    # `super().__init__()` still has every attribute the agent loop and `to_dict` read.
    model_id: str | None = None
    flatten_messages_as_text: bool = False
    tool_name_key: str = "name"
    tool_arguments_key: str = "arguments"
    kwargs: Mapping[str, Any] = MappingProxyType({})
    """Default request options, sent with every call (`REMOVE_PARAMETER` drops one)."""

    def __init__(
        self,
        model_id: str | None = None,
        flatten_messages_as_text: bool = False,
        tool_name_key: str = "name",
        tool_arguments_key: str = "arguments",
        **kwargs: Any,
    ) -> None:
        self.model_id = model_id
        self.flatten_messages_as_text = flatten_messages_as_text
        self.tool_name_key = tool_name_key
        self.tool_arguments_key = tool_arguments_key
        self.kwargs = kwargs

    @property
    def supports_stop_parameter(self) -> bool:
        """Whether requests carry `stop`: the backend takes it (`capabilities`) and the model is not
        one of the reasoning models that refuse it (`supports_stop_parameter(model_id)`)."""
        return self.capabilities.stop_sequences and supports_stop_parameter(self.model_id or "")

    def _prepare_completion_kwargs(
        self,
        messages: list[ChatMessage | dict[str, Any]],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        custom_role_conversions: dict[str, str] | None = None,
        convert_images_to_image_urls: bool = False,
        tool_choice: str | dict[str, Any] | None = "required",
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The keyword arguments of a chat-completions call, built as smolagents builds them.

        For models written the smolagents way, whose `generate` calls an SDK itself. The model's
        own options (`Model(max_tokens=...)`) override the call's keywords, which override what is
        derived from the arguments; an option set to `REMOVE_PARAMETER` is left out. `stop` is sent
        only where `supports_stop_parameter`; tools come with `tool_choice` unless it is None.
        """
        flatten = kwargs.pop("flatten_messages_as_text", self.flatten_messages_as_text)
        completion_kwargs: dict[str, Any] = {
            "messages": get_clean_message_list(
                messages,
                role_conversions=custom_role_conversions or TOOL_ROLE_CONVERSIONS,
                convert_images_to_image_urls=convert_images_to_image_urls,
                flatten_messages_as_text=flatten,
            )
        }
        if stop_sequences is not None and self.supports_stop_parameter:
            completion_kwargs["stop"] = stop_sequences
        if response_format is not None:
            completion_kwargs["response_format"] = response_format
        if tools_to_call_from:
            completion_kwargs["tools"] = [get_tool_json_schema(tool) for tool in tools_to_call_from]
            if tool_choice is not None:
                completion_kwargs["tool_choice"] = tool_choice
        return layer_options(completion_kwargs, kwargs, self.kwargs)

    def with_options(self, payload: Mapping[str, Any], request: ModelRequest) -> dict[str, Any]:
        """`payload` with the model's default options on top, then the call's own (the call wins);
        an option set to `REMOVE_PARAMETER` on the model or the call is left out."""
        return layer_options(payload, self.kwargs, request.keywords)

    def generate(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> ChatMessage:
        """smolagents' call. It becomes one `ModelRequest`, which `request` answers.

        Subclasses implement `request` (and `request_stream` if they can stream); one that still
        overrides `generate` the smolagents way keeps working, and `request` then calls it.
        Every model call of an agent passes here (or through `generate_stream`): it is traced here.
        """
        request = ModelRequest.from_call(
            messages, stop_sequences, response_format, tools_to_call_from, **kwargs
        )
        if not instrumentation.active():
            return self.request(request)
        attributes = instrumentation.model_attributes(self, messages, stream=False)
        with instrumentation.span("model", str(attributes["model.id"]), attributes) as scope:
            message = self.request(request)
            instrumentation.record_reply(scope, message)
            return message

    def generate_stream(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatMessageStreamDelta]:
        """smolagents' streaming call, answered by `request_stream` (traced as one model call)."""
        request = ModelRequest.from_call(
            messages, stop_sequences, response_format, tools_to_call_from, **kwargs
        )
        if not instrumentation.active():
            return self.request_stream(request)
        attributes = instrumentation.model_attributes(self, messages, stream=True)
        scope = instrumentation.span("model", str(attributes["model.id"]), attributes)
        return instrumentation.traced_iter(scope, _recording_usage(scope, self.request_stream(request)))

    def request(self, request: ModelRequest) -> ChatMessage:
        """Answer one request: what a model plugin implements."""
        if type(self).generate is not Model.generate:  # a model written the smolagents way
            return self.generate(**request.to_call())
        raise NotImplementedError(f"{type(self).__name__} must implement request() (or generate()).")

    def request_stream(self, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        """Stream the reply. The default yields the whole reply at once, so every model can stream."""
        message = self.request(request)
        yield ChatMessageStreamDelta(content=message.text, token_usage=message.token_usage)

    def __call__(self, *args: Any, **kwargs: Any) -> ChatMessage:
        return self.generate(*args, **kwargs)

    def cost_of(self, usage: TokenUsage) -> float | None:
        """What calls that used `usage` cost, in US dollars; None when this model knows no prices
        (a run's cost budget, `smol_core.agents.budget`, needs them). Plugins that know prices override it."""
        return None

    def parse_tool_calls(self, message: ChatMessage) -> ChatMessage:
        """Make sure `message.tool_calls` is filled: read a JSON call from the text if the API gave none."""
        message.role = MessageRole.ASSISTANT
        if not message.tool_calls:
            message.tool_calls = [
                tool_call_from_text(message.text, self.tool_name_key, self.tool_arguments_key)
            ]
        for call in message.tool_calls:
            call.function.arguments = parse_json_if_needed(call.function.arguments)
        return message

    def to_dict(self) -> dict[str, Any]:
        """Settings to rebuild this model (secrets such as `api_key` and `token` are never exported)."""
        data = {k: v for k, v in self.kwargs.items() if k not in SECRET_KEYS and v is not REMOVE_PARAMETER}
        data["model_id"] = self.model_id
        for attribute in EXPORTED_ATTRIBUTES:
            if hasattr(self, attribute):
                data[attribute] = getattr(self, attribute)
        return data

    @classmethod
    def from_dict(cls, model_dictionary: dict[str, Any]) -> Model:
        return cls(**model_dictionary)


SECRET_KEYS = {"api_key", "token", "aws_secret_access_key", "aws_session_token", "client"}
EXPORTED_ATTRIBUTES = [
    "temperature",
    "max_tokens",
    "provider",
    "timeout",
    "api_base",
    "torch_dtype",
    "device_map",
    "organization",
    "project",
    "azure_endpoint",
]


def _recording_usage(
    scope: Any, deltas: Iterator[ChatMessageStreamDelta]
) -> Iterator[ChatMessageStreamDelta]:
    """The deltas, passed on as they come; the usage they report is put on the model call's span."""
    input_tokens = output_tokens = 0
    seen = False
    for delta in deltas:
        if delta.token_usage is not None:
            seen = True
            input_tokens += delta.token_usage.input_tokens
            output_tokens += delta.token_usage.output_tokens
        yield delta
    if seen:
        scope.set("usage.input_tokens", input_tokens)
        scope.set("usage.output_tokens", output_tokens)
