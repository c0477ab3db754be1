"""OpenAI-compatible models for smol. Importing this package does not import the `openai` SDK.

Names are imported when first read: plugin discovery (every `smolagent --help`) imports this
package and pays nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {
    "AzureOpenAIModel": "smol_model_openai.model",
    "AzureOpenAIServerModel": "smol_model_openai.model",
    "OpenAIModel": "smol_model_openai.model",
    "OpenAIServerModel": "smol_model_openai.model",
}
__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # what mypy and IDEs see: the same names
    from smol_model_openai.model import (
        AzureOpenAIModel as AzureOpenAIModel,
        AzureOpenAIServerModel as AzureOpenAIServerModel,
        OpenAIModel as OpenAIModel,
        OpenAIServerModel as OpenAIServerModel,
    )
