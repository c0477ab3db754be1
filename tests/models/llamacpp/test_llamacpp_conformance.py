"""LlamaCppModel through the model conformance kit: the embedded SmolLM2-135M-Instruct, in process
(tool calls held to the tools by a grammar)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("xllamacpp")

from smol_model_llamacpp import LlamaCppModel

from smol_core.testing.model_conformance import Lacking, ModelConformance

pytestmark = [pytest.mark.llama, pytest.mark.slow]


class TestLlamaCppConformance(ModelConformance):
    has_a_server = Lacking(
        "llama.cpp runs in process: no server to lose (a context overflow and a bad GGUF file are its "
        "errors, in test_llamacpp_model and test_embedded)"
    )

    @pytest.fixture(scope="class")
    @classmethod
    def model(cls, embedded_gguf: Path) -> Iterator[LlamaCppModel]:
        model = LlamaCppModel(n_ctx=2048, n_threads=2, max_tokens=48)
        yield model.load()
        model.close()
