"""Registers `litellm` and `litellm-router` with smol. Imports nothing heavy: litellm loads when a model is built."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ModelSpec, hookimpl, lazy


@hookimpl
def smol_models() -> Iterable[ModelSpec]:
    return [
        ModelSpec(
            "litellm",
            lazy("smol_model_litellm.model:LiteLLMModel"),
            "Any provider LiteLLM reaches (OpenAI, Anthropic, Ollama, Groq, Vertex...), as 'provider/model'.",
            aliases=("LiteLLMModel",),
        ),
        ModelSpec(
            "litellm-router",
            lazy("smol_model_litellm.model:LiteLLMRouterModel"),
            "LiteLLM's Router: several deployments with load balancing and fallbacks (model_list=...).",
            aliases=("LiteLLMRouterModel",),
        ),
    ]
