"""smol-model-transformers: `TransformersModel`, a local model run with Hugging Face Transformers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["TransformersModel"]

if TYPE_CHECKING:
    from smol_model_transformers.model import TransformersModel


def __getattr__(name: str) -> Any:
    # Lazy, so that `import smol_model_transformers` (plugin discovery) never imports torch.
    if name == "TransformersModel":
        from smol_model_transformers.model import TransformersModel

        return TransformersModel
    raise AttributeError(name)
