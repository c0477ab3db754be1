"""Fuzzing `smolagent` and `smol` arguments and environment: no traceback ever reaches the user.

Each example calls the command's `main` in this process (fast) with a command line drawn from the
real flags, odd values and stray words, under a drawn environment. Whatever it is, the command must
end with an exit status (0, 1 or 2, or argparse's own SystemExit) and at most a one-line error on
stderr per problem, never an exception escaping `main` or a traceback printed. The work after the
checks (loading a model, serving) is replaced by a stand-in: the parsing and checking are what a
user's typing reaches first.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from smol_core.cli import smol, smolagent

SMOLAGENT_FLAGS = [
    "--task-file", "--model-type", "--model-id", "--api-base", "--api-key", "--provider", "--small",
    "--no-small", "--action-type", "--imports", "--tools", "--executor", "--max-steps",
    "--verbosity-level", "--structured", "--no-structured", "--num-agents", "--transport",
    "--transport-url", "--deadline", "--save-run", "--trace-file", "--run-id", "--resume", "--store",
    "--model-kwargs", "--bogus", "-", "--",
]  # fmt: skip
VALUES = [
    "0", "-1", "1", "2", "3", "65", "nan", "inf", "-inf", "1e309", "abc", "", " ", "code", "tool_calling",
    "local", "redis", "nope", "scripted", "openai", "litellm", "LiteLLMModel", "web_search", "mcp:",
    "final_answer:x", "os", "os.*", "*", "..", "/", "/nonexistent/file", "\x1b[31mred", "ü", "a,b",
    "http://127.0.0.1:1", "redis://127.0.0.1:1/0", '{"n_ctx": 16384}', '{"model_id": 1}', "[]", "{",
]  # fmt: skip
SMOL_COMMANDS = ["plugins", "doctor", "team", "trace", "mcp", "ui", "runs", "executor", "bogus", "--json", ""]
ENV_NAMES = ["SMOL_MODEL_TYPE", "SMOL_MODEL_ID", "SMOL_TRACE_FILE", "SMOL_MCP_TOKEN", "COLUMNS"]
RUNS = {"plugins", "team", "trace"}
"""The `smol` commands that run for real here (they only read); the others stop after parsing."""

words = st.one_of(st.sampled_from(VALUES), st.text(max_size=12))
tokens = st.lists(st.one_of(st.sampled_from(SMOLAGENT_FLAGS), words), max_size=8)
environments = st.dictionaries(
    st.sampled_from(ENV_NAMES), st.one_of(st.sampled_from(VALUES), st.text(max_size=12))
)


@pytest.fixture
def quiet_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Nothing after the checks runs: no model loads, no server starts, no file is written here."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(smolagent, "_run", lambda args, run: 0)
    real_build = smol.build_parser

    def build() -> tuple[Any, dict[str, object]]:
        parser, runners = real_build()
        return parser, {name: run if name in RUNS else (lambda args: 0) for name, run in runners.items()}

    monkeypatch.setattr(smol, "build_parser", build)
    yield


def _call(main: Any, argv: list[str], env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> str:
    saved = {name: os.environ.get(name) for name in ENV_NAMES}
    os.environ.update({name: value.replace("\0", "") for name, value in env.items()})
    stdin = io.StringIO("a task from standard input")
    import sys

    real_stdin, sys.stdin = sys.stdin, stdin
    try:
        try:
            status = main(argv)
        except SystemExit as stop:
            status = stop.code
        assert status is None or isinstance(status, int | str), status
    finally:
        sys.stdin = real_stdin
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    return err


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(argv=tokens, env=environments)
def test_smolagent_arguments_never_give_a_traceback(quiet_runs: None, capsys, argv, env) -> None:  # type: ignore[no-untyped-def]
    err = _call(smolagent.main, ["a task", *argv], env, capsys)
    assert not any(line.startswith("usage:") for line in err.splitlines()), err  # errors are one line


@FUZZ
@given(command=st.sampled_from(SMOL_COMMANDS), argv=tokens, env=environments)
def test_smol_arguments_never_give_a_traceback(quiet_runs: None, capsys, command, argv, env) -> None:  # type: ignore[no-untyped-def]
    err = _call(smol.main, [command, *argv] if command else argv, env, capsys)
    assert not any(line.startswith("usage:") for line in err.splitlines()), err


@pytest.mark.parametrize("deadline", ["nan", "0", "-1"])
def test_a_team_deadline_that_is_not_a_positive_number_is_a_usage_error(capsys, deadline: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as stop:
        smolagent.main(["a task", "--num-agents", "2", "--deadline", deadline])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("smolagent: --deadline"), err


@pytest.mark.parametrize(
    ("entry", "words"),
    [("mcp:", "needs an argument"), ("mcp", "needs an argument"), ("final_answer:x", "takes no ':argument'")],
)
def test_a_tool_entry_of_the_wrong_shape_is_a_one_line_error(
    entry: str, words: str, capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """`--tools mcp:` (no server) used to end in a TypeError traceback; `final_answer:x` in exit status 1."""
    from smol_core.testing import ScriptedModel

    monkeypatch.setattr(smolagent, "build_model", lambda args: ScriptedModel(["final_answer(1)"]))
    assert smolagent.main(["a task", "--tools", entry, "--verbosity-level", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("smolagent: ") and words in err, err


RUN_FLAGS = st.lists(
    st.sampled_from(
        [
            ["--tools", "final_answer"],
            ["--tools", "python_interpreter"],
            ["--tools", "mcp:"],
            ["--tools", "final_answer:x"],
            ["--tools", "nope"],
            ["--imports", "math"],
            ["--imports", "*"],
            ["--action-type", "tool_calling"],
            ["--max-steps", "1"],
            ["--structured"],
            ["--no-structured"],
            ["--executor", "local"],
            ["--run-id", "fuzz-run"],
            ["--run-id", ""],
            ["--verbosity-level", "0"],
        ]
    ),
    max_size=4,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flags=RUN_FLAGS)
def test_real_runs_never_give_a_traceback(flags, capsys, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The same, through a whole run (a scripted model, the real executor): what the flags build."""
    from smol_core.testing import ScriptedModel

    reply = "Thought: done.\n<code>\nfinal_answer(7)\n</code>"
    monkeypatch.setattr(smolagent, "build_model", lambda args: ScriptedModel([reply], repeat_last=True))
    monkeypatch.chdir(tmp_path)
    argv = ["a task", "--verbosity-level", "-1", *(word for flag in flags for word in flag)]
    try:
        status = smolagent.main(argv)
    except SystemExit as stop:
        status = stop.code
    err = capsys.readouterr().err
    assert status in (0, 1, 2), (argv, status, err)
    assert "Traceback" not in err, (argv, err)
    if status == 2:
        assert err.strip().count("\n") == 0 and err.startswith("smolagent: "), (argv, err)
