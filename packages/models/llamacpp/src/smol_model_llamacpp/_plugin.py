"""Registers `llamacpp` with smol. Imports nothing heavy: llama.cpp loads when a model is built."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ModelSpec, hookimpl, lazy


@hookimpl
def smol_models() -> Iterable[ModelSpec]:
    return [
        ModelSpec(
            "llamacpp",
            lazy("smol_model_llamacpp.model:LlamaCppModel"),
            "A local GGUF model run in process by llama.cpp (xllamacpp); with no model id, the embedded "
            "SmolLM2-135M-Instruct: offline, no key.",
            aliases=("llama.cpp", "llama-cpp", "gguf", "LlamaCppModel"),
            default_model_id="SmolLM2-135M-Instruct",
        )
    ]
