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


def test_a_long_task_is_echoed_cut_with_a_note(registry, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A 240,000-character task was echoed whole, on one line, before the run's one-line error."""
    registry.register(RefusingPlugin(), name="refusing-plugin")
    task = tmp_path / "task.txt"
    task.write_text("Summarise this: " + "word " * 48_000)
    assert smolagent.main(["--task-file", str(task), "--model-type", "refusing"]) == 2
    err = capsys.readouterr().err
    assert len(err) < 10_000, len(err)
    assert "the task is cut here in the log: 240,01" in err, err[-600:]
    assert err.strip().splitlines()[-1].startswith("smolagent: ")


def test_the_task_heading_keeps_a_short_task_whole_and_shows_a_long_one_at_debug() -> None:
    import io

    from smol_core.monitoring import AgentLogger, LogLevel

    for level, long_shown in ((LogLevel.INFO, False), (LogLevel.DEBUG, True)):
        stream = io.StringIO()
        logger = AgentLogger(level, stream=stream)
        logger.log_task("line one\nline two", subtitle="m")
        logger.log_task("\n".join(f"line {n}" for n in range(100)), subtitle="m")
        text = stream.getvalue()
        assert "line one" in text and "line two" in text
        assert ("line 99" in text) is long_shown and ("cut here" in text) is not long_shown


class KeywordsPlugin:
    """A model plugin that answers with the keyword arguments it was built with."""

    @hookimpl
    def smol_models(self):  # type: ignore[no-untyped-def]
        from smol_core.testing import ScriptedModel

        def factory(model_id: str | None = None, **kwargs):  # type: ignore[no-untyped-def]
            answer = ",".join(f"{k}={v}" for k, v in sorted(kwargs.items()))
            return ScriptedModel([f"Thought: go.\n<code>\nfinal_answer({answer!r})\n</code>"])

        return [ModelSpec("keywords", factory, "Tells its keywords.")]


def test_model_kwargs_reach_the_model_and_a_dedicated_flag_wins(registry, capsys) -> None:  # type: ignore[no-untyped-def]
    """`--model-kwargs` is how a user gives llamacpp's n_ctx (or a slow server's timeout) from the CLI."""
    registry.register(KeywordsPlugin(), name="keywords-plugin")
    argv = [
        "x",
        "--model-type",
        "keywords",
        "--model-kwargs",
        '{"n_ctx": 16384, "api_base": "a"}',
        "--api-base",
        "b",
    ]
    assert smolagent.main(argv) == 0
    assert capsys.readouterr().out == "api_base=b,n_ctx=16384\n"


@pytest.mark.parametrize("value", ["{n_ctx: 1}", "[1, 2]", '{"model_id": "m"}'])
def test_bad_model_kwargs_are_one_line_before_anything_loads(registry, capsys, value) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exited:  # argparse's usage error, as for every other flag
        smolagent.main(["x", "--model-kwargs", value, "--model-type", "no-model-is-built"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--model-kwargs" in err and "Traceback" not in err
