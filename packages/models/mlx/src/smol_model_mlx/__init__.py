"""smol-model-mlx: `MLXModel`, a local model run with Apple MLX through mlx-lm."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["MLXModel"]

if TYPE_CHECKING:
    from smol_model_mlx.model import MLXModel


def __getattr__(name: str) -> Any:
    if name == "MLXModel":
        from smol_model_mlx.model import MLXModel

        return MLXModel
    raise AttributeError(name)
