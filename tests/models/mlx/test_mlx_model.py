"""MLXModel through the real mlx-lm (CPU build on Linux) on a tiny random Llama."""

from __future__ import annotations

import subprocess
import sys

import pytest
from smol_model_mlx import MLXModel
from smol_model_mlx.model import MLXModelError

from smol_core.messages import ChatMessage, MessageRole, agglomerate_stream_deltas
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
def tiny(tiny_mlx_dir) -> MLXModel:
    return MLXModel(str(tiny_mlx_dir), max_tokens=12, temperature=0.0)


def test_generate_reports_usage(tiny):
    message = tiny.generate(QUESTION)
    assert message.role == MessageRole.ASSISTANT and isinstance(message.content, str)
    assert tiny.render_prompt(QUESTION) == "<|user|>What is 2 + 2?<|end|><|assistant|>"
    assert message.token_usage.input_tokens == len(tiny._prompt(QUESTION, None))
    assert 1 <= message.token_usage.output_tokens <= 12


def test_stop_sequences_and_stream(tiny):
    full = tiny.generate(QUESTION).content
    assert len(full) >= 4, full
    stop = full[len(full) // 2 : len(full) // 2 + 2]
    assert tiny.generate(QUESTION, stop_sequences=[stop]).content == full[: full.find(stop)]
    streamed = agglomerate_stream_deltas(list(tiny.generate_stream(QUESTION)))
    assert streamed.content == full


def test_tools_reach_the_chat_template(tiny):
    assert tiny.render_prompt(QUESTION, [get_weather]).startswith("<|system|>Tools: get_weather")
    assert tiny.generate(QUESTION, tools_to_call_from=[get_weather], max_tokens=3).tool_calls is None


def test_structured_output_is_refused_clearly(tiny):
    with pytest.raises(MLXModelError, match="constrained decoding"):
        tiny.generate(QUESTION, response_format={"type": "json_object"})
    assert tiny.capabilities.vision is False and tiny.capabilities.structured_output is False


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(MLXModelError, match="Could not load"):
        MLXModel(str(tmp_path / "nowhere"))


def test_plugin_registration_is_light():
    code = (
        "import sys, smol_model_mlx, smol_model_mlx._plugin as p; [s] = p.smol_models();"
        "assert s.name == 'mlx'; assert 'mlx' not in sys.modules and 'mlx_lm' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
