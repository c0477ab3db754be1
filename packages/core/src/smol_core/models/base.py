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
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from smol_core import instrumentation
from smol_core.errors import ModelAPIError
from smol_core.json_limits import JSONLimitError, find_json_object, parse_arguments
from smol_core.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    TokenUsage,
    remove_content_after_stop_sequences,
)
from smol_core.models.request import ModelRequest
from smol_core.models.retry import RetryPolicy, attempts_made, error_status, is_retryable_error

__all__ = [
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
    "get_tool_json_schema",
    "get_tool_json_schemas",
    "is_retryable_error",
    "parse_json_if_needed",
    "tool_call_from_text",
    "tool_calls_in",
]

logger = logging.getLogger("smol_core.models")

TOOL_ROLE_CONVERSIONS = {
    MessageRole.TOOL_CALL: MessageRole.ASSISTANT,
    MessageRole.TOOL_RESPONSE: MessageRole.USER,
}


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
        return self.capabilities.stop_sequences

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
        data = {k: v for k, v in self.kwargs.items() if k not in SECRET_KEYS}
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


# --- helpers shared by model plugins -----------------------------------------------------------


def parse_json_if_needed(arguments: Any) -> Any:
    """Tool-call arguments as a value: a JSON string is decoded (bounded nesting), other text stays text."""
    return parse_arguments(arguments)


def tool_call_from_text(
    text: str, name_key: str = "name", arguments_key: str = "arguments"
) -> ChatMessageToolCall:
    """Read `{"name": ..., "arguments": {...}}` from free text (models without native tool calling)."""
    try:
        data, start = find_json_object(text or "")  # linear time, bounded nesting
    except JSONLimitError:
        raise
    except ValueError:
        raise ValueError(f"The reply holds no JSON tool call: {(text or '')[:200]!r}") from None
    if name_key not in data:
        raise ValueError(f"The reply's JSON has no {name_key!r} key: {text[start : start + 200]!r}")
    return ChatMessageToolCall(
        function=ChatMessageToolCallFunction(name=str(data[name_key]), arguments=data.get(arguments_key, {})),
        id=f"call_{uuid.uuid4().hex[:12]}",
    )


def tool_calls_in(
    text: str, name_key: str = "name", arguments_key: str = "arguments"
) -> list[ChatMessageToolCall] | None:
    """The tool call a local model wrote as text (a chat template's `<tool_call>{...}</tool_call>` or bare
    JSON), or None: the agent then reports the unparsable reply to the model."""
    try:
        return [tool_call_from_text(text, name_key, arguments_key)]
    except ValueError:
        return None


def get_tool_json_schemas(tools: list[Any] | None) -> list[dict[str, Any]] | None:
    """The OpenAI-style schemas of some tools, or None for none (what chat templates' `tools=` takes)."""
    return [get_tool_json_schema(tool) for tool in tools] if tools else None


def get_tool_json_schema(tool: Any) -> dict[str, Any]:
    """The OpenAI-style function schema of a tool (the shape most APIs accept)."""
    schema: dict[str, Any] = tool.to_tool_calling_schema()
    return schema


def encode_image_base64(image: Any) -> str:
    """PNG bytes of a PIL image (or raw bytes), base64-encoded."""
    import base64
    import io

    if isinstance(image, bytes | bytearray):
        data = bytes(image)
    else:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        data = buffer.getvalue()
    return base64.b64encode(data).decode("ascii")


def get_clean_message_list(
    messages: Sequence[ChatMessage | dict[str, Any]],
    role_conversions: dict[MessageRole, MessageRole] | dict[str, str] | None = None,
    convert_images_to_image_urls: bool = False,
    flatten_messages_as_text: bool = False,
) -> list[dict[str, Any]]:
    """Messages as OpenAI-style dicts: roles converted, consecutive same-role messages merged, images encoded."""
    conversions = {
        MessageRole(k): MessageRole(v) for k, v in (role_conversions or TOOL_ROLE_CONVERSIONS).items()
    }
    output: list[dict[str, Any]] = []
    for raw in messages:
        message = raw if isinstance(raw, ChatMessage) else ChatMessage.from_dict(dict(raw))
        role = MessageRole(message.role)
        role = conversions.get(role, role)
        parts: list[dict[str, Any]]
        if message.content is None:
            parts = []
        elif isinstance(message.content, str):
            parts = [{"type": "text", "text": message.content}]
        else:
            parts = [dict(p) for p in message.content]
        for i, part in enumerate(parts):
            if part.get("type") == "image":
                if flatten_messages_as_text:
                    raise ValueError("This model takes text only; it cannot be given images.")
                encoded = encode_image_base64(part["image"])
                if convert_images_to_image_urls:
                    parts[i] = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{encoded}"}}
                else:
                    parts[i] = {"type": "image", "image": encoded}
        if output and output[-1]["role"] == role.value:
            previous = output[-1]
            if flatten_messages_as_text:
                previous["content"] += "\n" + "".join(p.get("text", "") for p in parts)
            else:
                previous["content"].extend(parts)
            continue
        content: Any = "".join(p.get("text", "") for p in parts) if flatten_messages_as_text else parts
        output.append({"role": role.value, "content": content})
    return output


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
