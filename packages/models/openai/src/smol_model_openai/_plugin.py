"""Registers `openai` and `azure-openai` with smol. The `openai` SDK loads when a model is built."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ModelSpec, hookimpl, lazy


@hookimpl
def smol_models() -> Iterable[ModelSpec]:
    return [
        ModelSpec(
            "openai",
            lazy("smol_model_openai.model:OpenAIServerModel"),
            "OpenAI, or any OpenAI-compatible server (api_base=...): llama.cpp, vLLM, Ollama, LM Studio...",
            aliases=("openai-server", "openai-compatible", "OpenAIModel", "OpenAIServerModel"),
            default_model_id="gpt-4o-mini",
        ),
        ModelSpec(
            "azure-openai",
            lazy("smol_model_openai.model:AzureOpenAIServerModel"),
            "Azure OpenAI: model_id is the deployment name; azure_endpoint and api_version from arguments "
            "or AZURE_OPENAI_ENDPOINT / OPENAI_API_VERSION.",
            aliases=("azure", "AzureOpenAIModel", "AzureOpenAIServerModel"),
        ),
    ]
