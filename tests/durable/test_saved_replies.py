"""A model reply as a checkpoint or a cassette keeps it (durable/steps.py): what the agent decides
on must come back, and nothing else a file could carry."""

from __future__ import annotations

import math

import pytest

from smol_core.durable.steps import MAX_SAVED_TOKENS, message_from_data, message_to_data
from smol_core.messages import ChatMessage, MessageRole
from smol_core.prompting.draft_certainty import token_logprobs


def same(value):
    return value


def test_a_replys_token_logprobs_come_back_in_the_shape_drafting_reads():
    """A small model's first draft is kept or redrafted on these: a resumed or replayed step that
    lost them asked the model again where the recorded run had not."""
    raw = {
        "choices": [
            {"logprobs": {"content": [{"token": "x", "logprob": -0.1}, {"token": " =", "logprob": -2.5}]}}
        ]
    }
    reply = ChatMessage(role=MessageRole.ASSISTANT, content="x = 1", raw=raw)
    back = message_from_data(message_to_data(reply), same)
    assert token_logprobs(back) == [("x", -0.1), (" =", -2.5)]


def test_a_reply_without_logprobs_comes_back_without_raw():
    reply = ChatMessage(role=MessageRole.ASSISTANT, content="hi", raw={"id": "provider specific"})
    data = message_to_data(reply)
    assert "token_logprobs" not in data
    assert message_from_data(data, same).raw is None


@pytest.mark.parametrize(
    "saved",
    [
        "not a list",
        [["x"]],
        [[1, -0.5]],
        [["x", "-0.5"]],
        [["x", True]],
        [["x", -0.5]] * (MAX_SAVED_TOKENS + 1),
    ],
    ids=["text", "short entry", "token not text", "logprob text", "logprob bool", "too many"],
)
def test_malformed_saved_logprobs_are_dropped_not_trusted(saved):
    data = {
        "role": "assistant",
        "content": "x = 1",
        "tool_calls": None,
        "token_usage": None,
        "token_logprobs": saved,
    }
    back = message_from_data(data, same)
    assert back.content == "x = 1" and back.raw is None


def test_infinite_logprobs_survive_as_floats():
    data = {"role": "assistant", "content": "x", "token_logprobs": [["x", -math.inf]]}
    assert token_logprobs(message_from_data(data, same)) == [("x", -math.inf)]
