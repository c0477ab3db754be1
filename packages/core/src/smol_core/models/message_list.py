"""Messages as the chat-completions dicts most model APIs and chat templates take.

`get_clean_message_list` is smolagents' function of that name, with its behaviour: roles converted
(tool calls and tool responses become assistant and user turns by default), consecutive messages of
one role merged (their text parts joined by a newline), images encoded as base64 PNG (or data URLs),
and, for text-only backends, each message flattened to one string. Model plugins and users' own
models share it, so that every backend sees the same conversation.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

from smol_core.messages import ChatMessage, MessageRole

__all__ = ["TOOL_ROLE_CONVERSIONS", "encode_image_base64", "get_clean_message_list", "make_image_url"]

TOOL_ROLE_CONVERSIONS = {
    MessageRole.TOOL_CALL: MessageRole.ASSISTANT,
    MessageRole.TOOL_RESPONSE: MessageRole.USER,
}


def encode_image_base64(image: Any) -> str:
    """PNG bytes of a PIL image (or raw bytes, taken as they are), base64-encoded."""
    if isinstance(image, bytes | bytearray):
        data = bytes(image)
    else:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        data = buffer.getvalue()
    return base64.b64encode(data).decode("ascii")


def make_image_url(base64_image: str) -> str:
    """A data URL for a base64 PNG, as OpenAI-style APIs take images."""
    return f"data:image/png;base64,{base64_image}"


def _as_message(raw: ChatMessage | dict[str, Any]) -> ChatMessage:
    if isinstance(raw, ChatMessage):
        return raw
    data = dict(raw)
    data["role"] = _role(data.get("role"))
    return ChatMessage.from_dict(data)


def _role(value: Any) -> MessageRole:
    try:
        return MessageRole(value)
    except ValueError:
        raise ValueError(
            f"Incorrect role {value}, only {MessageRole.roles()} are supported for now."
        ) from None


def _parts(message: ChatMessage, convert_images_to_image_urls: bool, flatten: bool) -> list[dict[str, Any]]:
    """The message's content as a fresh list of typed parts, images encoded (the input is not changed)."""
    if message.content is None:
        return []
    if isinstance(message.content, str):
        return [{"type": "text", "text": message.content}]
    parts = []
    for raw in message.content:
        part = dict(raw)
        if part.get("type") == "image":
            if flatten:
                raise ValueError(
                    "This model takes text only (flatten_messages_as_text): it cannot be given images."
                )
            encoded = encode_image_base64(part["image"])
            if convert_images_to_image_urls:
                part = {"type": "image_url", "image_url": {"url": make_image_url(encoded)}}
            else:
                part["image"] = encoded
        parts.append(part)
    return parts


def _text(parts: list[dict[str, Any]]) -> str:
    return "".join(str(p.get("text", "")) for p in parts if p.get("type", "text") == "text")


def get_clean_message_list(
    messages: Sequence[ChatMessage | dict[str, Any]],
    role_conversions: dict[MessageRole, MessageRole] | dict[str, str] | None = None,
    convert_images_to_image_urls: bool = False,
    flatten_messages_as_text: bool = False,
) -> list[dict[str, Any]]:
    """Messages as chat-completions dicts (`{"role": ..., "content": ...}`), as smolagents builds them.

    Args:
        messages: `ChatMessage`s or dicts of the same shape, mixed as you like; they are not modified.
        role_conversions: roles to rename (`{"tool-response": "user"}`); by default tool calls become
            assistant turns and tool responses user turns, which every chat API accepts.
        convert_images_to_image_urls: images as `image_url` data URLs (OpenAI style) rather than
            `{"type": "image", "image": <base64>}` (chat templates' style).
        flatten_messages_as_text: each message's content as one string, for text-only backends.
    """
    given = TOOL_ROLE_CONVERSIONS if role_conversions is None else role_conversions
    conversions = {_role(k): _role(v) for k, v in given.items()}
    output: list[dict[str, Any]] = []
    for raw in messages:
        message = _as_message(raw)
        role = _role(message.role)
        role = conversions.get(role, role)
        parts = _parts(message, convert_images_to_image_urls, flatten_messages_as_text)
        if output and output[-1]["role"] == role:
            previous = output[-1]
            if flatten_messages_as_text:
                previous["content"] += "\n" + _text(parts)
                continue
            for part in parts:
                last = previous["content"][-1] if previous["content"] else None
                if part.get("type") == "text" and last is not None and last.get("type") == "text":
                    last["text"] = f"{last['text']}\n{part.get('text', '')}"  # one text part, as smolagents
                else:
                    previous["content"].append(part)
            continue
        content: Any = _text(parts) if flatten_messages_as_text else parts
        output.append({"role": role.value, "content": content})
    return output
