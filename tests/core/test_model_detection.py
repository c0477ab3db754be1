"""What a server's answers imply for a model's capabilities (no server: the parsing and the rules)."""

from __future__ import annotations

import argparse

import pytest

from smol_core.cli.smolagent import model_keywords
from smol_core.models.capabilities import ModelCapabilities
from smol_core.models.detection import (
    ServerInfo,
    capabilities_for,
    is_local_address,
    parameters_from_name,
)

BASE = ModelCapabilities(structured_output=True)


@pytest.mark.parametrize(
    ("name", "count"),
    [
        ("SmolLM2-135M-Instruct.Q4_1.gguf", 135_000_000),
        ("HuggingFaceTB/SmolLM2-360M-Instruct", 360_000_000),
        ("qwen2.5:0.5b", 500_000_000),
        ("meta-llama/Llama-3.1-8B-Instruct", 8_000_000_000),
        ("gpt-4o-mini", None),
        ("smollm2", None),
        (None, None),
    ],
)
def test_parameters_from_name(name: str | None, count: int | None) -> None:
    assert parameters_from_name(name) == count


def test_llama_cpp_report_means_small_and_grammar() -> None:
    info = ServerInfo(kind="llama.cpp", model="x.gguf", n_params=134_515_008, grammar=True, source="/props")
    caps, reason = capabilities_for(BASE, info, "alias")
    assert caps.small and caps.grammar and caps.structured_output
    assert "135M" in reason and "GBNF" in reason


def test_ollama_parameter_size_and_big_models() -> None:
    small, _ = capabilities_for(BASE, ServerInfo(kind="ollama", n_params=494_000_000), "qwen2.5:0.5b")
    big, reason = capabilities_for(BASE, ServerInfo(kind="ollama", n_params=8_030_000_000), "llama3.1")
    assert small.small and not small.grammar
    assert not big.small and "generic prompt" in reason


def test_size_only_uses_the_file_rule() -> None:
    info = ServerInfo(kind="openai-compatible", model="served", size_bytes=96_000_000)
    assert capabilities_for(BASE, info, "served")[0].small


def test_nothing_known_keeps_the_base() -> None:
    assert capabilities_for(BASE, None, "gpt-4o")[0] == BASE


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434", True),
        ("http://192.168.1.20:8000/v1", True),
        ("http://llm:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://8.8.8.8/v1", False),
        (None, False),
    ],
)
def test_only_local_servers_are_probed_by_default(url: str | None, local: bool) -> None:
    assert is_local_address(url) is local


def test_cli_small_flag_reaches_the_model_keywords() -> None:
    args = argparse.Namespace(api_base="http://127.0.0.1:8080/v1", api_key=None, provider=None, small=False)
    assert model_keywords(args) == {"api_base": "http://127.0.0.1:8080/v1", "small": False}
    args.small = None
    assert "small" not in model_keywords(args)


def test_a_detector_survives_pickling() -> None:
    import pickle

    from smol_core.models.detection import CapabilityDetector

    detector = CapabilityDetector(BASE, "http://127.0.0.1:9/v1", "m", override={"small": True})
    copy = pickle.loads(pickle.dumps(detector))
    assert copy.get().small and copy.get() == detector.get()
