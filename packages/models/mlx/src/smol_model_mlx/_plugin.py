"""Registers `mlx` with smol. Imports nothing heavy: mlx loads only when a model is built."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ModelSpec, hookimpl, lazy


@hookimpl
def smol_models() -> Iterable[ModelSpec]:
    return [
        ModelSpec(
            "mlx",
            lazy("smol_model_mlx.model:MLXModel"),
            "A local model run with Apple MLX through mlx-lm (Apple silicon; the CPU on Linux).",
            aliases=("mlx-lm", "MLXModel"),
        )
    ]
