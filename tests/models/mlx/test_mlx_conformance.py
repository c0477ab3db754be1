"""MLXModel through the model conformance kit, on a tiny random Llama through the real mlx-lm (see conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from smol_model_mlx import MLXModel

from smol_core.testing.model_conformance import Lacking, ModelConformance


class TestMLXConformance(ModelConformance):
    prompt = "What is 2 + 2?"
    calls_tools = Lacking(
        "a tiny random model writes noise, never a call; tools reach the chat template (test_mlx_model)"
    )
    has_a_server = Lacking(
        "runs in process: no server to lose (a model that cannot be loaded is its error, in test_mlx_model)"
    )

    @pytest.fixture(scope="class")
    @classmethod
    def model(cls, tiny_mlx_dir: Path) -> MLXModel:
        return MLXModel(str(tiny_mlx_dir), max_tokens=12, temperature=0.0)
