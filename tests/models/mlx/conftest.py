"""A tiny randomly initialised MLX Llama and a tokenizer made on the spot, saved in a temp folder.

mlx-lm loads a folder with `config.json`, safetensors weights and a tokenizer: this makes one with
two layers of width 32, so the tests exercise the real mlx-lm load and generate path in a second.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tiny_tokenizer import save_tiny_tokenizer

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def tiny_mlx_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import mlx.core as mx
    from mlx.utils import tree_flatten
    from mlx_lm.models import llama

    folder = tmp_path_factory.mktemp("tiny-mlx-llama")
    tokenizer = save_tiny_tokenizer(folder)

    config = {
        "model_type": "llama",
        "vocab_size": len(tokenizer),
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "rms_norm_eps": 1e-5,
        "tie_word_embeddings": True,
        "eos_token_id": tokenizer.eos_token_id,
    }
    (folder / "config.json").write_text(json.dumps(config))
    mx.random.seed(0)
    model = llama.Model(llama.ModelArgs.from_dict(config))
    mx.save_safetensors(str(folder / "model.safetensors"), dict(tree_flatten(model.parameters())))
    return folder
