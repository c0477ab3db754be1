"""Registers `transformers` with smol. Imports nothing heavy: torch loads only when a model is built."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ModelSpec, hookimpl, lazy


@hookimpl
def smol_models() -> Iterable[ModelSpec]:
    return [
        ModelSpec(
            "transformers",
            lazy("smol_model_transformers.model:TransformersModel"),
            "A local model run with Hugging Face Transformers (a hub id, a local folder, or a GGUF file).",
            aliases=("TransformersModel",),
        )
    ]
