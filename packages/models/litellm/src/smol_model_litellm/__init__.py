"""smol-model-litellm: `LiteLLMModel` and `LiteLLMRouterModel`.

Importing this package does not import litellm (seconds of start-up); building a model does.

Names are imported when first read: plugin discovery (every `smolagent --help`) imports this
package and pays nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {
    "LiteLLMError": "smol_model_litellm.model",
    "LiteLLMModel": "smol_model_litellm.model",
    "LiteLLMRouterModel": "smol_model_litellm.model",
}
__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # what mypy and IDEs see: the same names
    from smol_model_litellm.model import (
        LiteLLMError as LiteLLMError,
        LiteLLMModel as LiteLLMModel,
        LiteLLMRouterModel as LiteLLMRouterModel,
    )
