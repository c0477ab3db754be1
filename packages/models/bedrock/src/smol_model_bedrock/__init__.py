"""smol-model-bedrock: `AmazonBedrockServerModel` (alias `AmazonBedrockModel`) via boto3's Converse.

Names are imported when first read: plugin discovery imports this package and pays nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {
    "AmazonBedrockModel": "smol_model_bedrock.model",
    "AmazonBedrockServerModel": "smol_model_bedrock.model",
    "BedrockError": "smol_model_bedrock.model",
}
__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_model_bedrock.model import (
        AmazonBedrockModel as AmazonBedrockModel,
        AmazonBedrockServerModel as AmazonBedrockServerModel,
        BedrockError as BedrockError,
    )
