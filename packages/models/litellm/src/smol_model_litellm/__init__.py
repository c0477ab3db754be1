"""smol-model-litellm: `LiteLLMModel` and `LiteLLMRouterModel`.

Importing this package does not import litellm (seconds of start-up); building a model does.
"""

from __future__ import annotations

from smol_model_litellm.model import LiteLLMError, LiteLLMModel, LiteLLMRouterModel

__all__ = ["LiteLLMError", "LiteLLMModel", "LiteLLMRouterModel"]
