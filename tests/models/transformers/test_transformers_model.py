"""TransformersModel on a tiny random Llama (fast) and on the real SmolLM2 GGUF (slow)."""

from __future__ import annotations

import time

import pytest
from smol_model_transformers import TransformersModel
from smol_model_transformers.model import TransformersModelError, tool_calls_in

from smol_core.messages import ChatMessage, MessageRole, agglomerate_stream_deltas
from smol_core.models.stop_filter import StopSequenceFilter
from smol_core.tools.decorator import tool

QUESTION = [ChatMessage(role=MessageRole.USER, content="What is 2 + 2?")]


@tool
def get_weather(city: str) -> str:
    """Tells the weather in a city.

    Args:
        city: The city's name.
    """
    return "sunny"


@pytest.fixture(scope="module")
def tiny(tiny_model_dir) -> TransformersModel:
    return TransformersModel(str(tiny_model_dir), device_map="cpu", max_new_tokens=12, do_sample=False)


def test_generate_reports_usage(tiny):
    message = tiny.generate(QUESTION)
    assert message.role == MessageRole.ASSISTANT and isinstance(message.content, str)
    prompt = tiny.render_prompt(QUESTION)
    assert prompt == "<|user|>What is 2 + 2?<|end|><|assistant|>"
    assert message.token_usage.input_tokens == len(tiny.tokenizer(prompt)["input_ids"])
    assert 1 <= message.token_usage.output_tokens <= 12


def test_max_tokens_per_call(tiny):
    assert tiny.generate(QUESTION, max_tokens=3).token_usage.output_tokens <= 3


def test_stream_matches_generate(tiny):
    full = tiny.generate(QUESTION)
    deltas = list(tiny.generate_stream(QUESTION))
    streamed = agglomerate_stream_deltas(deltas)
    assert streamed.content == full.content
    assert streamed.token_usage == full.token_usage


def test_tools_reach_the_chat_template(tiny):
    prompt = tiny.render_prompt(QUESTION, tools_to_call_from=[get_weather])
    assert prompt.startswith("<|system|>Tools: get_weather")
    message = tiny.generate(QUESTION, tools_to_call_from=[get_weather])
    assert message.tool_calls is None  # noise is no tool call; the agent tells the model so


def test_tool_call_read_from_template_markup():
    [call] = tool_calls_in(
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
    )
    assert call.function.name == "get_weather" and call.function.arguments == {"city": "Oslo"}
    assert tool_calls_in("no call here") is None


def test_structured_output_is_refused_clearly(tiny):
    with pytest.raises(TransformersModelError, match="constrained decoding"):
        tiny.generate(QUESTION, response_format={"type": "json_object"})
    assert tiny.capabilities.structured_output is False and tiny.capabilities.vision is False


def test_tool_roles_are_converted(tiny):
    messages = [
        ChatMessage(role=MessageRole.SYSTEM, content="Be brief."),
        ChatMessage(role=MessageRole.TOOL_CALL, content="Calling tools: x"),
        ChatMessage(role=MessageRole.TOOL_RESPONSE, content="Observation: 4"),
    ]
    assert tiny.render_prompt(messages) == (
        "<|system|>Be brief.<|end|><|assistant|>Calling tools: x<|end|><|user|>Observation: 4<|end|><|assistant|>"
    )


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(TransformersModelError, match="Could not load"):
        TransformersModel(str(tmp_path / "nowhere"), device_map="cpu")


def test_to_dict_and_plugin_registration(tiny, tiny_model_dir):
    exported = tiny.to_dict()
    assert exported["model_id"] == str(tiny_model_dir) and exported["device_map"] == "cpu"
    from smol_model_transformers._plugin import smol_models

    [spec] = smol_models()
    assert (
        spec.name == "transformers"
        and spec.factory.target == "smol_model_transformers.model:TransformersModel"
    )


@pytest.mark.parametrize(
    ("chunks", "stops", "expected"),
    [
        (["Thought: x\nObs", "ervation: 4"], ["Observation:"], "Thought: x\n"),
        (["ab", "c"], ["cd"], "abc"),
        (["Obs", "olete"], ["Observation:"], "Obsolete"),
        (["a", "b"], None, "ab"),
    ],
)
def test_stop_sequence_filter(chunks, stops, expected):
    cutter = StopSequenceFilter(stops)
    assert "".join(cutter.feed(c) for c in chunks) + cutter.finish() == expected


@pytest.mark.slow
def test_real_smollm2_gguf_generates(smollm2_gguf):
    start = time.monotonic()
    model = TransformersModel(str(smollm2_gguf), device_map="cpu", max_new_tokens=8, do_sample=False)
    loaded = time.monotonic() - start
    message = model.generate([ChatMessage(role="user", content="What is the capital of France?")])
    assert model.gguf_file == smollm2_gguf.name
    assert "Paris" in message.content, message.content
    assert message.token_usage.input_tokens > 10 and 1 <= message.token_usage.output_tokens <= 8
    print(f"SmolLM2 GGUF loaded in {loaded:.1f}s; replied {message.content!r}")
