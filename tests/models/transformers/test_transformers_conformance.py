"""TransformersModel through the model conformance kit, on a tiny random Llama (see conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from smol_model_transformers import TransformersModel

from smol_core.testing.model_conformance import Lacking, ModelConformance


class TestTransformersConformance(ModelConformance):
    prompt = "What is 2 + 2?"
    streams_in_pieces = Lacking(
        "TextIteratorStreamer hands out whole words, and the tiny model's noise has no spaces: it comes at once"
    )
    calls_tools = Lacking(
        "a tiny random model writes noise, never a call; tool calls are read from the chat template's "
        "markup (test_tool_call_read_from_template_markup)"
    )
    has_a_server = Lacking(
        "runs in process: no server to lose (a model that cannot be loaded is its error, in test_transformers_model)"
    )

    @pytest.fixture(scope="class")
    @classmethod
    def model(cls, tiny_model_dir: Path) -> TransformersModel:
        return TransformersModel(str(tiny_model_dir), device_map="cpu", max_new_tokens=12, do_sample=False)
