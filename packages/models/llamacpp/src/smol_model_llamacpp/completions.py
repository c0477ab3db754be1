"""A streamed chat completion put back together as the reply a plain request returns.

Why every request streams: llama.cpp's plain request holds the calling thread until the whole
reply is decoded, and on the main thread that defers Python's signal handlers: a SIGTERM (`kill`,
`docker stop`) or Ctrl-C waited for the rest of the reply, 5-15 s with drafts on a busy machine,
past what `docker stop` waits before SIGKILL. Streamed on a worker thread, the caller waits on a
queue (a wait a signal interrupts), and stopping asks llama.cpp to stop at the next token.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["assemble_completion"]


def assemble_completion(chunks: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The non-streamed `chat.completion` that `chunks` (OpenAI-style `chat.completion.chunk`s from
    one streamed request) add up to: its content, tool calls, token log-probabilities, finish reason
    and usage, with the first chunk's id, model and creation time."""
    completion: dict[str, Any] = {"object": "chat.completion"}
    content: list[str] = []
    logprobs: list[Any] = []
    tool_calls: dict[int, dict[str, Any]] = {}
    finish_reason: str | None = None
    for chunk in chunks:
        for key in ("id", "model", "created", "system_fingerprint"):
            if key in chunk:
                completion.setdefault(key, chunk[key])
        for key in ("usage", "timings"):
            if chunk.get(key):
                completion[key] = chunk[key]
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                content.append(delta["content"])
            for call in delta.get("tool_calls") or []:
                _add_tool_call_delta(tool_calls, call)
            logprobs.extend(((choice.get("logprobs") or {}).get("content")) or [])
            finish_reason = choice.get("finish_reason") or finish_reason
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "".join(content) if content or not tool_calls else None,
    }
    if tool_calls:
        message["tool_calls"] = [tool_calls[index] for index in sorted(tool_calls)]
    choice_out: dict[str, Any] = {"index": 0, "finish_reason": finish_reason, "message": message}
    if logprobs:
        choice_out["logprobs"] = {"content": logprobs}
    completion["choices"] = [choice_out]
    return completion


def _add_tool_call_delta(calls: dict[int, dict[str, Any]], delta: dict[str, Any]) -> None:
    """OpenAI's streaming rule: the first delta of a call (by `index`) names it, later ones append
    to its arguments."""
    index = int(delta.get("index") or 0)
    call = calls.setdefault(
        index, {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
    )
    if delta.get("id"):
        call["id"] = delta["id"]
    function = delta.get("function") or {}
    if function.get("name"):
        call["function"]["name"] += function["name"]
    if function.get("arguments"):
        call["function"]["arguments"] += function["arguments"]
