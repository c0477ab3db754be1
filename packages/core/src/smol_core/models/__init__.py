"""The `Model` protocol and the helpers model plugins share.

`Model.request(ModelRequest)` is what a model implements (smolagents' `generate(...)` call arrives as
one `ModelRequest`); `ApiModel` is the request/retry/parse skeleton of models behind an API, and
`ChatCompletionsModel` its OpenAI-shaped form; every API failure is a `smol_core.errors.ModelAPIError`.
"""

from smol_core.models.api_model import ApiModel
from smol_core.models.base import Model
from smol_core.models.capabilities import ModelCapabilities
from smol_core.models.chat_completions import ChatCompletionsModel
from smol_core.models.request import ModelRequest
from smol_core.models.retry import RetryPolicy

__all__ = ["ApiModel", "ChatCompletionsModel", "Model", "ModelCapabilities", "ModelRequest", "RetryPolicy"]
