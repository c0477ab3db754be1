"""Every request streams (so a signal stops it at the next token); the streamed chunks must add up
to exactly the reply a plain request gives: content, tool calls, log-probabilities, usage."""

from __future__ import annotations

from typing import Any

from smol_model_llamacpp.completions import assemble_completion


def chunk(delta: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, **extra.pop("choice", {})}]
    return {
        "id": "c1",
        "model": "m.gguf",
        "created": 7,
        "object": "chat.completion.chunk",
        "choices": choices,
        **extra,
    }


def test_text_log_probabilities_and_usage_add_up() -> None:
    token = {"token": "4", "logprob": -0.1}
    completion = assemble_completion(
        [
            chunk({"role": "assistant", "content": None}),
            chunk(
                {"content": "2 + 2 = "}, choice={"logprobs": {"content": [{"token": "2", "logprob": -0.5}]}}
            ),
            chunk({"content": "4"}, choice={"logprobs": {"content": [token]}}),
            chunk({}, choice={"finish_reason": "stop"}),
            chunk(None, usage={"prompt_tokens": 9, "completion_tokens": 2}, timings={"cache_n": 3}),
        ]
    )
    assert completion["id"] == "c1" and completion["model"] == "m.gguf" and completion["created"] == 7
    (choice,) = completion["choices"]
    assert choice["message"] == {"role": "assistant", "content": "2 + 2 = 4"}
    assert choice["finish_reason"] == "stop"
    assert choice["logprobs"]["content"] == [{"token": "2", "logprob": -0.5}, token]
    assert completion["usage"] == {"prompt_tokens": 9, "completion_tokens": 2}
    assert completion["timings"] == {"cache_n": 3}


def test_tool_calls_are_joined_by_index_as_openai_streams_them() -> None:
    completion = assemble_completion(
        [
            chunk(
                {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "get_", "arguments": '{"ci'}}]}
            ),
            chunk(
                {
                    "tool_calls": [
                        {"index": 1, "id": "b", "function": {"name": "final_answer", "arguments": "{}"}}
                    ]
                }
            ),
            chunk(
                {"tool_calls": [{"index": 0, "function": {"name": "weather", "arguments": 'ty": "Oslo"}'}}]}
            ),
            chunk({}, choice={"finish_reason": "tool_calls"}),
        ]
    )
    message = completion["choices"][0]["message"]
    assert message["content"] is None
    assert message["tool_calls"] == [
        {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}},
        {"id": "b", "type": "function", "function": {"name": "final_answer", "arguments": "{}"}},
    ]


def test_an_empty_reply_is_empty_text_without_log_probabilities() -> None:
    (choice,) = assemble_completion(
        [chunk({"role": "assistant"}), chunk({}, choice={"finish_reason": "length"})]
    )["choices"]
    assert choice["message"] == {"role": "assistant", "content": ""} and "logprobs" not in choice
