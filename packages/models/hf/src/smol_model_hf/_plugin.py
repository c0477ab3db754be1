"""Registers `inference` (alias `hf`) with smol. Imports nothing heavy: huggingface_hub loads when a model is built."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ModelSpec, hookimpl, lazy


@hookimpl
def smol_models() -> Iterable[ModelSpec]:
    return [
        ModelSpec(
            "inference",
            lazy("smol_model_hf.model:InferenceClientModel"),
            "Hugging Face Inference Providers, Inference Endpoints, or a TGI/OpenAI-style server (base_url=).",
            aliases=("hf", "inference-client", "InferenceClientModel", "HfApiModel"),
            default_model_id="Qwen/Qwen3-Next-80B-A3B-Thinking",
        )
    ]
