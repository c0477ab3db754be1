"""smol-model-transformers: `TransformersModel`, a local model run with Hugging Face Transformers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

# imported on first use, so that `import smol_model_transformers` (plugin discovery) never imports torch
_EXPORTS = {"TransformersModel": "smol_model_transformers.model"}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_model_transformers.model import TransformersModel
