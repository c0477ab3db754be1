"""smol-model-mlx: `MLXModel`, a local model run with Apple MLX through mlx-lm."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

# imported on first use, so that `import smol_model_mlx` (plugin discovery) never imports mlx
_EXPORTS = {"MLXModel": "smol_model_mlx.model"}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_model_mlx.model import MLXModel
