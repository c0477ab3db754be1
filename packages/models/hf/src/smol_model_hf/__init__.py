"""smol-model-hf: `InferenceClientModel` through `huggingface_hub.InferenceClient`."""

from __future__ import annotations

from smol_model_hf.model import InferenceClientError, InferenceClientModel

__all__ = ["InferenceClientError", "InferenceClientModel"]
