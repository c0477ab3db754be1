"""OpenAI-compatible models for smol. Importing this package does not import the `openai` SDK."""

from __future__ import annotations

from smol_model_openai.model import (
    AzureOpenAIModel,
    AzureOpenAIServerModel,
    OpenAIModel,
    OpenAIServerModel,
)

__all__ = ["AzureOpenAIModel", "AzureOpenAIServerModel", "OpenAIModel", "OpenAIServerModel"]
