"""Each model plugin's first-hour failure, through the real `smolagent` command: one line on stderr
that says what happened and what to do, nothing on stdout (so `answer=$(smolagent ...)` stays
clean), no traceback, and the error said once, not once by the agent's log and again by the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from smol_core import Model, hookimpl
from smol_core.cli import smolagent
from smol_core.errors import ModelAPIError
from smol_core.plugins.specs import ModelSpec


class RefusingModel(Model):
    """A model whose server refuses every call, and whose SDK chats on stdout first (as LiteLLM did)."""

    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kw):  # type: ignore[no-untyped-def]
        print("an SDK's banner")
        raise ModelAPIError("the server refused the request: check the key")


class RefusingPlugin:
    @hookimpl
    def smol_models(self):  # type: ignore[no-untyped-def]
        return [ModelSpec("refusing", lambda **kwargs: RefusingModel(**kwargs), "Always refuses.")]


@pytest.mark.parametrize("verbosity", ["0", "1", "2"])
def test_the_error_that_ends_a_run_is_said_once_and_nothing_reaches_stdout(
    registry, capsys, verbosity
) -> None:  # type: ignore[no-untyped-def]
    registry.register(RefusingPlugin(), name="refusing-plugin")
    assert smolagent.main(["What is 3 + 4?", "--model-type", "refusing", "--verbosity-level", verbosity]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("the server refused the request") == 1, captured.err
    assert captured.err.strip().splitlines()[-1].startswith("smolagent: ")


def _smolagent(
    *args: str, env: dict[str, str] | None = None, drop: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in drop}
    environment.update(env or {})
    command = [str(Path(sys.executable).with_name("smolagent")), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=240, env=environment)


def _one_line(result: subprocess.CompletedProcess[str], *words: str) -> str:
    assert result.stdout == "", result.stdout[-2000:]
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("smolagent: "), result.stderr[-2000:]
    for word in words:
        assert word in last, last
    return last


@pytest.mark.slow
def test_litellm_without_a_key_prints_nothing_on_stdout_and_says_it_once(tmp_path: Path) -> None:
    pytest.importorskip("smol_model_litellm")
    result = _smolagent(
        "What is 3 + 4?",
        "--model-type",
        "litellm",
        "--model-id",
        "openai/gpt-4o-mini",
        drop=("OPENAI_API_KEY",),
        env={"HOME": str(tmp_path)},
    )
    _one_line(result, "OPENAI_API_KEY")
    assert "Give Feedback" not in result.stderr + result.stdout
    assert result.stderr.count("Missing API Key") == 1, result.stderr[-3000:]


@pytest.mark.slow
def test_bedrock_without_a_region_is_one_line_naming_the_setting(tmp_path: Path) -> None:
    pytest.importorskip("smol_model_bedrock")
    result = _smolagent(
        "What is 3 + 4?",
        "--model-type",
        "bedrock",
        "--model-id",
        "us.amazon.nova-lite-v1:0",
        drop=("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"),
        env={
            "AWS_CONFIG_FILE": str(tmp_path / "none"),
            "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
        },
    )
    _one_line(result, "AWS_REGION", "region_name")


def test_a_model_file_that_is_not_gguf_is_one_line_saying_so(tmp_path: Path) -> None:
    pytest.importorskip("smol_model_llamacpp")
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}" + bytes(100))
    result = _smolagent("What is 3 + 4?", "--model-id", str(weights))
    _one_line(result, "not a GGUF model file", ".gguf")
    assert "Failed to init" not in result.stderr and "MB GGUF file" not in result.stderr
