"""`Model`: what the agent loop asks of every language model.

A model takes provider-neutral `ChatMessage`s and returns one, with token usage. Plugins subclass
`Model` (or `ApiModel` for remote services, which holds the request/retry/parse skeleton they share)
and translate a `ModelRequest` to their provider. Capabilities are
declared, not guessed, so the agent adapts: a model without `stop` support gets its reply cut
client-side; one without native tools gets tool calls parsed from text.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from smol_core import instrumentation
from smol_core.errors import ModelAPIError
from smol_core.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    MessageRole,
    TokenUsage,
    remove_content_after_stop_sequences,
)
from smol_core.models.message_list import (
    TOOL_ROLE_CONVERSIONS,
    encode_image_base64,
    get_clean_message_list,
    make_image_url,
)
from smol_core.models.options import REMOVE_PARAMETER, layer_options, supports_stop_parameter
from smol_core.models.request import ModelRequest
from smol_core.models.retry import RetryPolicy, attempts_made, error_status, is_retryable_error
from smol_core.models.tool_calls import (
    get_tool_call_from_text,
    get_tool_json_schema,
    get_tool_json_schemas,
    parse_json_if_needed,
    tool_call_from_text,
    tool_calls_in,
)

__all__ = [
    "REMOVE_PARAMETER",
    "TOOL_ROLE_CONVERSIONS",
    "ApiModel",
    "CallableModel",
    "Model",
    "ModelCapabilities",
    "ModelRequest",
    "RetryPolicy",
    "StopSequenceFilter",
    "as_model",
    "encode_image_base64",
    "error_status",
    "get_clean_message_list",
    "get_tool_call_from_text",
    "get_tool_json_schema",
    "get_tool_json_schemas",
    "is_retryable_error",
    "layer_options",
    "make_image_url",
    "parse_json_if_needed",
    "supports_stop_parameter",
    "tool_call_from_text",
    "tool_calls_in",
]

logger = logging.getLogger("smol_core.models")


@dataclass(frozen=True)
class ModelCapabilities:
    """What a backend can do natively. The agent and the base class work around what it cannot."""

    stop_sequences: bool = True
    tool_calling: bool = True
    structured_output: bool = False
    vision: bool = False
    streaming: bool = True
    grammar: bool = False
    """Takes `grammar=` (a GBNF grammar, as llama.cpp does): then constrained decoding can keep the
    plain-text action format that small models copy best, instead of JSON."""
    small: bool = False
    """A small model (some hundred million parameters) that copies patterns rather than following
    instructions: agents give it a compact prompt, worked examples picked for the task and, under a
    grammar, short code blocks that open with the task as a comment."""


class Model:
    """Base class of language models.

    Subclasses implement `request` (and `request_stream` if they can stream): the seed's `generate(...)`
    call, which agents and users make, arrives there as one `ModelRequest`. A subclass that overrides
    `generate` itself, as in the seed system, is answered by it instead.
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
        """The seed system's call. It becomes one `ModelRequest`, which `request` answers.

        Subclasses implement `request` (and `request_stream` if they can stream); one that still
        overrides `generate` the seed's way keeps working, and `request` then calls it.
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
        """The seed system's streaming call, answered by `request_stream` (traced as one model call)."""
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
        if type(self).generate is not Model.generate:  # a model written the seed's way
            return self.generate(**request.to_call())
        raise NotImplementedError(f"{type(self).__name__} must implement request() (or generate()).")

    def request_stream(self, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        """Stream the reply. The default yields the whole reply at once, so every model can stream."""
        message = self.request(request)
        yield ChatMessageStreamDelta(content=message.text, token_usage=message.token_usage)

    def __call__(self, *args: Any, **kwargs: Any) -> ChatMessage:
        return self.generate(*args, **kwargs)

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


class CallableModel(Model):
    """Wrap a plain function `f(messages) -> str | ChatMessage` as a model."""

    capabilities = ModelCapabilities(stop_sequences=False, tool_calling=False)

    def __init__(self, func: Callable[..., str | ChatMessage], model_id: str | None = None) -> None:
        super().__init__(model_id=model_id or getattr(func, "__name__", "callable"))
        self.func = func

    def request(self, request: ModelRequest) -> ChatMessage:
        reply = self.func(request.messages)
        if isinstance(reply, ChatMessage):
            return reply
        text = remove_content_after_stop_sequences(str(reply), request.stop_sequences)
        return ChatMessage(role=MessageRole.ASSISTANT, content=text, token_usage=TokenUsage(0, 0))


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


def as_model(obj: Any) -> Model:
    """Accept a `Model` or a plain callable wherever a model is expected."""
    if isinstance(obj, Model):
        return obj
    if callable(obj):
        return CallableModel(obj)
    raise TypeError(
        f"Expected a Model or a callable taking messages, got {type(obj).__name__}. "
        "Build one with e.g. smol_core.load_model('openai', model_id=...)."
    )


# --- models behind an API -------------------------------------------------------------------------

DEFAULT_TIMEOUT = 60.0
"""Seconds to wait for a server's answer. With `RetryPolicy.deadline`, a dead server surfaces in about
a minute; a backend that takes longer to write a long reply without streaming needs `timeout=`."""
CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a connection: a server that is up accepts in milliseconds."""


class ApiModel(Model):
    """Base of models behind an API: one client, and the request/retry/parse skeleton every one shares.

    `request` builds the provider's payload (`build_request`), sends it under the rate limit and the
    retry policy (`call_api`, one attempt), and reads the reply (`parse_response`); `request_stream`
    does the same for a stream (`parse_stream`), closing it and recording usage (unknown if the
    server sent none). Every failure comes out as one `ModelAPIError` (`error_class`), with status,
    model id and provider; `error_message` words it. A plugin implements the four hooks and
    `create_client`; `retry_without` lets it ask again without an option the server refused.
    """

    provider_name: ClassVar[str] = "API"
    error_class: ClassVar[type[ModelAPIError]] = ModelAPIError

    def __init__(
        self,
        model_id: str,
        custom_role_conversions: dict[str, str] | None = None,
        client: Any | None = None,
        requests_per_minute: float | None = None,
        retry: bool = True,
        retry_policy: RetryPolicy | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(model_id=model_id, **kwargs)
        self.custom_role_conversions = custom_role_conversions or {}
        if retry_policy is not None:
            self.retry_policy = retry_policy
        else:
            self.retry_policy = RetryPolicy() if retry else RetryPolicy(max_attempts=1)
        self.requests_per_minute = requests_per_minute
        self._last_request = 0.0
        self.client = client or self.create_client()

    def create_client(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement create_client().")

    @property
    def endpoint(self) -> str:
        """Where requests go, for error messages."""
        return str(getattr(self, "api_base", None) or "the provider's API")

    # --- the skeleton ------------------------------------------------------------------------------

    def request(self, request: ModelRequest) -> ChatMessage:
        response = self.send(self.build_request(request, stream=False), stream=False)
        try:
            message = self.parse_response(response, request)
        except ValueError as error:
            raise self.error_class(
                f"{self.provider_name} at {self.endpoint} sent a malformed reply for {self.model_id!r}: {error}",
                status=None,
                model_id=self.model_id,
                provider=self.provider_name,
                retryable=False,
            ) from error
        message.token_usage = message.token_usage or TokenUsage(0, 0)
        return message

    def request_stream(self, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        stream = self.send(self.build_request(request, stream=True), stream=True)
        usage_seen = False
        try:
            for delta in self.parse_stream(stream, request):
                usage_seen = usage_seen or delta.token_usage is not None
                yield delta
        except ModelAPIError:
            raise
        except Exception as error:  # not retried: the text so far is out already
            raise self.describe_error(error, during_stream=True) from error
        finally:
            close = getattr(stream, "close", None)
            if callable(close):
                close()
        if not usage_seen:  # every call records its usage, if only as unknown
            yield ChatMessageStreamDelta(token_usage=TokenUsage(0, 0))

    def send(self, payload: dict[str, Any], stream: bool) -> Any:
        """One API call under the rate limit and the retry policy; a failure comes out as `ModelAPIError`."""
        self._apply_rate_limit()
        try:
            return self.retry_policy.run(
                lambda: self.call_api(payload, stream),
                describe=f"{self.provider_name} {self.model_id} at {self.endpoint}",
            )
        except ModelAPIError:
            raise
        except Exception as error:
            again = self.retry_without(error, payload)
            if again is not None:
                return self.send(again, stream)
            raise self.describe_error(error) from error

    def call_with_retries(self, call: Callable[[], Any], describe: str | None = None) -> Any:
        """Run one API call under the rate limit and the retry policy (the last error propagates)."""
        self._apply_rate_limit()
        return self.retry_policy.run(call, describe=describe or f"{type(self).__name__} {self.model_id}")

    # --- hooks a plugin implements -------------------------------------------------------------------

    def build_request(self, request: ModelRequest, stream: bool) -> dict[str, Any]:
        """The provider's payload for `request` (streamed or not)."""
        raise NotImplementedError(f"{type(self).__name__} must implement build_request().")

    def call_api(self, payload: dict[str, Any], stream: bool) -> Any:
        """One attempt: send `payload` with the client and return its reply (or, if `stream`, its stream)."""
        raise NotImplementedError(f"{type(self).__name__} must implement call_api().")

    def parse_response(self, response: Any, request: ModelRequest) -> ChatMessage:
        """The reply as a `ChatMessage` (a ValueError means the reply was malformed)."""
        raise NotImplementedError(f"{type(self).__name__} must implement parse_response().")

    def parse_stream(self, stream: Any, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        """The streamed reply as deltas (errors propagate, for the skeleton to describe)."""
        raise NotImplementedError(f"{type(self).__name__} must implement parse_stream().")

    def retry_without(self, error: Exception, payload: dict[str, Any]) -> dict[str, Any] | None:
        """A payload to send again after `error` (the server refused an option), or None to fail."""
        return None

    # --- errors ------------------------------------------------------------------------------------

    def describe_error(self, error: Exception, during_stream: bool = False) -> ModelAPIError:
        """`error` as this model's `ModelAPIError`: status, model id, provider, and what to do."""
        if isinstance(error, ModelAPIError):
            return error
        status = error_status(error)
        return self.error_class(
            self.error_message(error, status, during_stream),
            status=status,
            model_id=self.model_id,
            provider=self.provider_name,
            retryable=is_retryable_error(error),
        )

    def error_message(self, error: Exception, status: int | None, during_stream: bool) -> str:
        """The words of a failure; plugins override it to add their own hints."""
        where = f"{self.provider_name} at {self.endpoint}"
        if during_stream:
            return (
                f"{where} broke off the streamed reply of {self.model_id!r}: {type(error).__name__}: {error}"
            )
        return (
            f"{where} failed for {self.model_id!r} (status {status}, {self.attempts(error)} attempt(s)): "
            f"{type(error).__name__}: {error}"
        )

    def attempts(self, error: Exception) -> int:
        """How many attempts were made before `error` (for messages)."""
        return attempts_made(error, self.retry_policy.max_attempts)

    def _apply_rate_limit(self) -> None:
        if not self.requests_per_minute:
            return
        interval = 60.0 / self.requests_per_minute
        wait = self._last_request + interval - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._last_request = time.monotonic()


class StopSequenceFilter:
    """Cut a streamed reply at the first stop sequence, across chunk boundaries.

    For servers that ignore or refuse `stop`, and for local models whose streamers hand out text in
    chunks that can split a stop string in two ("...Obs" + "ervation:"). `feed` returns the text safe
    to show now, holding back only a tail that could still grow into a stop sequence; `finish` the
    rest; `stopped` tells when to stop reading. No part of a stop sequence is ever emitted.
    """

    def __init__(self, stop_sequences: list[str] | None) -> None:
        self.stops = [s for s in stop_sequences or [] if s]
        self.buffer = ""
        self.stopped = False

    def feed(self, text: str) -> str:
        if self.stopped or not text:
            return ""
        if not self.stops:
            return text
        self.buffer += text
        cut = remove_content_after_stop_sequences(self.buffer, self.stops) or ""
        if len(cut) < len(self.buffer):
            self.stopped = True
            self.buffer = ""
            return cut
        ready = len(self.buffer) - self._longest_stop_prefix_at_end()
        out, self.buffer = self.buffer[:ready], self.buffer[ready:]
        return out

    def finish(self) -> str:
        out, self.buffer = ("" if self.stopped else self.buffer), ""
        return out

    flush = finish

    def _longest_stop_prefix_at_end(self) -> int:
        best = 0
        for stop in self.stops:
            for size in range(min(len(stop) - 1, len(self.buffer)), best, -1):
                if self.buffer.endswith(stop[:size]):
                    best = size
                    break
        return best
