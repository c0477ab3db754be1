"""Every example in escapes/ (copied from the shared security corpus) must be stopped."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from security_helpers import CANARY, assert_host_untouched, get_executor

from smol_core.executors.base import InterpreterError

ESCAPES = sorted((Path(__file__).parent / "escapes").glob("*.py"))


def header(path: Path, key: str) -> str:
    for line in path.read_text().splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{path.name} has no {key} header")


def test_corpus_is_present():
    assert len(ESCAPES) >= 19


@pytest.mark.parametrize("path", ESCAPES, ids=[p.stem for p in ESCAPES])
def test_escape_is_blocked(path, executors, host_canary):
    authorized = ast.literal_eval(header(path, "AUTHORIZED_IMPORTS"))
    assert header(path, "SETUP") == "none"
    ex = get_executor(executors, authorized)
    with pytest.raises(InterpreterError) as info:
        out = ex(path.read_text())
        pytest.fail(f"not blocked: output={out.output!r} logs={out.logs!r}")
    assert "ESCAPED" not in (info.value.logs or "")
    assert CANARY not in str(info.value)
    assert_host_untouched(host_canary)
    assert ex("6 * 7").output == 42
