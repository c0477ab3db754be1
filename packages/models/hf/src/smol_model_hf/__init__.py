"""smol-model-hf: `InferenceClientModel` through `huggingface_hub.InferenceClient`.

Names are imported when first read: plugin discovery (every `smolagent --help`) imports this
package and pays nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {
    "InferenceClientError": "smol_model_hf.model",
    "InferenceClientModel": "smol_model_hf.model",
}
__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # what mypy and IDEs see: the same names
    from smol_model_hf.model import (
        InferenceClientError as InferenceClientError,
        InferenceClientModel as InferenceClientModel,
    )
