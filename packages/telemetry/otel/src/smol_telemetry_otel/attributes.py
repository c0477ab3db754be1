"""From the core's neutral span attributes to OpenTelemetry's: GenAI semantic conventions first, and
the OpenInference names Phoenix and other LLM tracing tools read to show inputs, outputs and tokens.

Why the care: an attribute goes over the network to a collector somebody else runs. Content (the
task, prompts, replies, code, tool arguments and results, and error messages, which quote all of
those) is recorded only when the user opted in,
because it holds whatever secrets the run saw; and every value is cut to a bound, with binary data
(bytes, images, audio) named by its size and never sent.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

AttributeValue = str | bool | int | float

DEFAULT_MAX_CHARS = 4096
"""The longest text attribute (a prompt, a tool's result), in characters: enough to read, bounded
so that one huge tool result cannot make every span megabytes."""

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_CAPTURE_VALUES = {"true", "1", "yes", "on", "span_only", "span_and_event"}

OPERATION = {
    "agent": "invoke_agent",
    "model": "chat",
    "tool": "execute_tool",
    "code": "execute_tool",
}
# OpenInference span kinds: what Phoenix shows as AGENT / LLM / TOOL / CHAIN / GUARDRAIL
OPENINFERENCE_KIND = {
    "agent": "AGENT",
    "step": "CHAIN",
    "planning": "CHAIN",
    "model": "LLM",
    "code": "TOOL",
    "tool": "TOOL",
    "check": "GUARDRAIL",
}
CODE_TOOL_NAME = "python_interpreter"
"""The tool a CodeAgent's code runs as (the name its memory records the action under)."""

# neutral key -> names it is recorded under (metadata: always)
_PLAIN: dict[str, tuple[str, ...]] = {
    "agent.name": ("gen_ai.agent.name",),
    "agent.id": ("gen_ai.agent.id",),
    "agent.description": ("gen_ai.agent.description",),
    "agent.class": ("smol.agent.class",),
    "model.id": ("gen_ai.request.model",),
    "model.class": ("smol.model.class",),
    "model.provider": ("gen_ai.provider.name",),
    "model.stream": ("smol.model.stream",),
    "step.number": ("smol.step.number",),
    "step.final": ("smol.step.final_answer",),
    "usage.input_tokens": ("gen_ai.usage.input_tokens",),
    "usage.output_tokens": ("gen_ai.usage.output_tokens",),
    "tool.name": ("gen_ai.tool.name", "tool.name"),
    "tool.call_id": ("gen_ai.tool.call.id",),
    "tool.description": ("gen_ai.tool.description",),
    "check.name": ("smol.check.name",),
    "check.passed": ("smol.check.passed",),
    "code.final_answer": ("smol.code.final_answer",),
}
_MODEL_ONLY: dict[str, tuple[str, ...]] = {
    "model.id": ("llm.model_name",),
    "usage.input_tokens": ("llm.token_count.prompt",),
    "usage.output_tokens": ("llm.token_count.completion",),
}
# neutral content key -> (names it is recorded under, how it is written)
_CONTENT: dict[str, tuple[tuple[str, ...], str]] = {
    "task": (("gen_ai.input.messages",), "task"),
    "input.messages": (("gen_ai.input.messages",), "messages"),
    "output.message": (("gen_ai.output.messages",), "reply"),
    "code": (("smol.code", "gen_ai.tool.call.arguments"), "text"),
    "code.logs": (("smol.code.logs",), "text"),
    "tool.arguments": (("gen_ai.tool.call.arguments",), "json"),
    "tool.result": (("gen_ai.tool.call.result",), "json"),
    "output": (("gen_ai.output.messages",), "answer"),
}
# what Phoenix shows as a span's input and output (OpenInference), from the same content
_OPENINFERENCE_IO = {
    "task": "input.value",
    "input.messages": "input.value",
    "code": "input.value",
    "tool.arguments": "input.value",
    "output.message": "output.value",
    "tool.result": "output.value",
    "output": "output.value",
}
CONTENT_KEYS = frozenset(_CONTENT)
EVENT_CONTENT_KEYS = frozenset({*_CONTENT, "retry.reason", "exception.message", "error.message"})
"""Event attributes that are content: a retry's reason is the failed call's error message, which
may echo the request (the prompt) or the server's reply."""


def error_message(error: BaseException, capture_content: bool, max_chars: int) -> str:
    """What a failed span records of `error`'s message: the message itself only when the user opted
    in to content. Otherwise the type and a redaction: a tool's error quotes its arguments, a parsing
    error the model's raw output, a server's error the request, so the text is content."""
    if capture_content:
        return cut(str(error), max_chars)
    return f"{type(error).__qualname__} (message not recorded: content capture is off)"


def capture_from_environment(environ: Mapping[str, str]) -> bool:
    """The conventions' opt-in switch for recording content."""
    return environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() in _CAPTURE_VALUES


def span_name(kind: str, name: str) -> str:
    """Span names the conventions give (`invoke_agent {name}`, `chat {model}`, `execute_tool {tool}`)."""
    if kind == "agent":
        return f"invoke_agent {name}"
    if kind == "model":
        return f"chat {name}"
    if kind == "tool":
        return f"execute_tool {name}"
    if kind == "code":
        return "execute_code"
    if kind == "check":
        return f"final_answer_check {name}"
    return name


def opening_attributes(kind: str) -> dict[str, AttributeValue]:
    """What every span of `kind` carries whatever the core passed."""
    attributes: dict[str, AttributeValue] = {"openinference.span.kind": OPENINFERENCE_KIND.get(kind, "CHAIN")}
    operation = OPERATION.get(kind)
    if operation is not None:
        attributes["gen_ai.operation.name"] = operation
    if kind == "code":
        attributes["gen_ai.tool.name"] = CODE_TOOL_NAME
        attributes["tool.name"] = CODE_TOOL_NAME
    return attributes


def convert(
    kind: str, key: str, value: Any, capture_content: bool, max_chars: int
) -> Iterable[tuple[str, AttributeValue]]:
    """The OpenTelemetry attributes for one neutral attribute (none for content not opted in)."""
    if value is None:
        return ()
    if key in _CONTENT:
        if not capture_content:
            return ()
        names, style = _CONTENT[key]
        if kind == "code" and key == "output":  # a code action's result is the tool's result
            names, style = ("gen_ai.tool.call.result",), "json"
        text = _content(style, value, max_chars)
        pairs = [(name, text) for name in names]
        io_name = _OPENINFERENCE_IO.get(key)
        if io_name is not None:
            pairs.append((io_name, text))
        return pairs
    if key == "tool.call_id" and not capture_content:
        value = opaque_id(str(value))
    names = _PLAIN.get(key, (f"smol.{key}",))
    if kind == "model":
        names = names + _MODEL_ONLY.get(key, ())
    plain = _plain(value, max_chars)
    return [(name, plain) for name in names]


def opaque_id(text: str) -> str:
    """A tool call's id without content capture: the model may write the id (any text), so it is
    recorded as a digest, which still tells one call from another."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]


def _plain(value: Any, max_chars: int) -> AttributeValue:
    if isinstance(value, bool | int | float):
        return value
    return cut(value if isinstance(value, str) else _describe(value), max_chars)


def cut(text: str, max_chars: int) -> str:
    """`text` within `max_chars`, saying how much was left out."""
    if len(text) <= max_chars:
        return text
    note = f"... ({len(text) - max_chars} more characters)"
    return text[: max(0, max_chars - len(note))] + note


def _content(style: str, value: Any, max_chars: int) -> str:
    if style == "task":
        data: Any = [{"role": "user", "parts": [{"type": "text", "content": cut(str(value), max_chars)}]}]
    elif style == "messages":
        data = [_message(m, max_chars) for m in value] if isinstance(value, list) else _safe(value, max_chars)
    elif style == "reply":
        data = [{**_message(value, max_chars), "finish_reason": "stop"}]
    elif style == "answer":
        data = [{"role": "assistant", "parts": [{"type": "text", "content": _text(value, max_chars)}]}]
    elif style == "text":
        return cut(str(value), max_chars)
    else:
        data = _safe(value, max_chars)
    return cut(json.dumps(data, ensure_ascii=False, default=str), max_chars)


def _message(message: Any, max_chars: int) -> dict[str, Any]:
    """A chat message as the conventions write one: role and parts; images named, never sent."""
    role = getattr(message, "role", None)
    if role is None and isinstance(message, Mapping):
        role = message.get("role")
    content = getattr(message, "content", None)
    if content is None and isinstance(message, Mapping):
        content = message.get("content")
    parts: list[dict[str, Any]] = []
    if isinstance(content, str):
        parts.append({"type": "text", "content": cut(content, max_chars)})
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text":
                parts.append({"type": "text", "content": cut(str(part.get("text", "")), max_chars)})
            else:
                kind = part.get("type", "part") if isinstance(part, Mapping) else type(part).__name__
                parts.append({"type": "blob", "modality": str(kind), "content": "(not recorded)"})
    for call in getattr(message, "tool_calls", None) or []:
        function = getattr(call, "function", None)
        parts.append(
            {
                "type": "tool_call",
                "id": str(getattr(call, "id", "")),
                "name": str(getattr(function, "name", "")),
                "arguments": _safe(getattr(function, "arguments", None), max_chars),
            }
        )
    return {"role": str(getattr(role, "value", role) or "unknown"), "parts": parts}


def _text(value: Any, max_chars: int) -> str:
    if isinstance(value, str):
        return cut(value, max_chars)
    return cut(_describe(value), max_chars)


def _safe(value: Any, max_chars: int, depth: int = 0) -> Any:
    """A JSON-able copy of `value` with binary data named by its size, every string cut, bounded depth
    and width: a tool's result can be anything, and huge."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return cut(value, max_chars)
    if depth > 6:
        return "(nested too deep)"
    if isinstance(value, Mapping):
        items = list(value.items())[:100]
        return {str(k): _safe(v, max_chars, depth + 1) for k, v in items}
    if isinstance(value, list | tuple):
        return [_safe(v, max_chars, depth + 1) for v in list(value)[:100]]
    return _describe(value)


def _describe(value: Any) -> str:
    """A short text for a value that is not plain data: binary content is never sent whole."""
    if isinstance(value, bytes | bytearray | memoryview):
        return f"({type(value).__name__}, {len(value)} bytes, not recorded)"
    size = getattr(value, "size", None)
    if type(value).__name__ in {"AgentImage", "Image", "PngImageFile", "JpegImageFile"} or (
        isinstance(size, tuple) and hasattr(value, "mode")
    ):
        return f"(image {size if isinstance(size, tuple) else ''}, not recorded)"
    if type(value).__name__ == "AgentAudio":
        return "(audio, not recorded)"
    try:
        text = repr(value)
    except Exception:
        text = f"({type(value).__name__})"
    return text[:1000]
