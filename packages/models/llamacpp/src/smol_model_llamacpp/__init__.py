"""llama.cpp models for smol: `LlamaCppModel`, the embedded default, and `LlamaServer`.

Importing this package is cheap; llama.cpp itself loads when a model is first used.
"""

from __future__ import annotations

from smol_core.plugin_api import code_action_grammar, tool_call_schema
from smol_model_llamacpp.embedded import (
    EMBEDDED_MODEL_ID,
    ModelFileNotFoundError,
    NotAGGUFFileError,
    default_model_path,
    resolve_model_path,
)
from smol_model_llamacpp.model import LlamaCppModel
from smol_model_llamacpp.server import LlamaServer
from smol_model_llamacpp.structured import complete_truncated_json

__all__ = [
    "EMBEDDED_MODEL_ID",
    "LlamaCppModel",
    "LlamaServer",
    "ModelFileNotFoundError",
    "NotAGGUFFileError",
    "code_action_grammar",
    "complete_truncated_json",
    "default_model_path",
    "resolve_model_path",
    "tool_call_schema",
]
