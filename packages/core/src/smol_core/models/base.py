"""`Model`: what the agent loop asks of every language model.

A model takes provider-neutral `ChatMessage`s and returns one, with token usage. Plugins subclass
`Model` (or `ApiModel` for remote services) and translate to their provider. Capabilities are
declared, not guessed, so the agent adapts: a model without `stop` support gets its reply cut
client-side; one without native tools gets tool calls parsed from text.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

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
    """Base class of language models. Subclasses implement `generate` (and `generate_stream` if they can)."""

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
        raise NotImplementedError(f"{type(self).__name__} must implement generate().")

    def generate_stream(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatMessageStreamDelta]:
        """Stream the reply. The default yields the whole reply at once, so every model can stream."""
        message = self.generate(messages, stop_sequences, response_format, tools_to_call_from, **kwargs)
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

    def generate(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> ChatMessage:
        reply = self.func(messages)
        if isinstance(reply, ChatMessage):
            return reply
        text = remove_content_after_stop_sequences(str(reply), stop_sequences)
        return ChatMessage(role=MessageRole.ASSISTANT, content=text, token_usage=TokenUsage(0, 0))


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
    messages: list[ChatMessage | dict[str, Any]],
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


# --- retries ---------------------------------------------------------------------------------------


def error_status(error: BaseException) -> int | None:
    """The HTTP status an SDK's error carries (`error.status_code` or `error.response.status_code`)."""
    for status in (
        getattr(error, "status_code", None),
        getattr(getattr(error, "response", None), "status_code", None),
    ):
        if isinstance(status, int):
            return status
    return None


def is_retryable_error(error: BaseException) -> bool:
    """Rate limits, server errors and time-outs are worth another try; bad requests and bad keys are not."""
    status = error_status(error)
    if isinstance(status, int):
        return status == 429 or status >= 500 or status == 408
    if isinstance(error, TimeoutError | ConnectionError):
        return True
    # SDK connection errors (openai.APIConnectionError, httpx.ConnectError, ...) subclass neither.
    lineage = " ".join(cls.__name__.lower() for cls in type(error).__mro__)
    if "connecterror" in lineage or "connectionerror" in lineage or "timeout" in lineage:
        return True
    text = f"{type(error).__name__} {error}".lower()
    return any(
        marker in text
        for marker in (
            "429",
            "rate limit",
            "too many requests",
            "timeout",
            "timed out",
            "overloaded",
            "503",
            "502",
        )
    )


@dataclass
class RetryPolicy:
    """Exponential backoff with jitter, for remote models."""

    max_attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0
    jitter: bool = True

    def run(self, call: Callable[[], Any], describe: str = "model call") -> Any:
        attempt = 0
        while True:
            attempt += 1
            try:
                return call()
            except Exception as error:
                if attempt >= self.max_attempts or not is_retryable_error(error):
                    raise
                delay = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
                if self.jitter:
                    delay *= 0.5 + random.random()
                logger.info(
                    "%s failed (%s); retry %d/%d in %.1fs",
                    describe,
                    error,
                    attempt,
                    self.max_attempts - 1,
                    delay,
                )
                time.sleep(delay)


class ApiModel(Model):
    """Base of models behind an API: a client made once, retries with backoff, optional rate limiting."""

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

    def _apply_rate_limit(self) -> None:
        if not self.requests_per_minute:
            return
        interval = 60.0 / self.requests_per_minute
        wait = self._last_request + interval - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._last_request = time.monotonic()

    def call_with_retries(self, call: Callable[[], Any], describe: str | None = None) -> Any:
        """Run one API call under the rate limit and the retry policy (the last error propagates)."""
        self._apply_rate_limit()
        return self.retry_policy.run(call, describe=describe or f"{type(self).__name__} {self.model_id}")


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
