"""Errors are written for the model: where, what, and (when blocked) why and what to do."""

from __future__ import annotations

import pytest

from smol_core.executors.base import InterpreterError


def test_syntax_error_names_line_and_column_and_shows_line(executor):
    with pytest.raises(InterpreterError) as info:
        executor("x = 1\ny = (2 +\nz = 3")
    msg = str(info.value)
    assert msg.startswith("SyntaxError") and "line 2" in msg and "column" in msg
    assert "y = (2 +" in msg


def test_runtime_traceback_shows_only_agent_frames(executor):
    with pytest.raises(InterpreterError) as info:
        executor("def inner(d):\n    return d['missing']\ndef outer():\n    return inner({})\nouter()")
    msg = str(info.value)
    assert "Traceback" in msg and "line 2, in inner" in msg and "line 4, in outer" in msg
    assert "return d['missing']" in msg and msg.rstrip().endswith("KeyError: 'missing'")
    for host_word in ("worker.py", "executor.py", "site-packages", "smol_core"):
        assert host_word not in msg


@pytest.mark.parametrize(
    ("code", "shown", "marked"),
    [("len(items)", "len(items)", "items"), ("a = 1\nb = a / 0", "b = a / 0", "a / 0")],
)
def test_traceback_carets_sit_under_the_failing_expression(executor, code, shown, marked):
    with pytest.raises(InterpreterError) as info:
        executor(code)
    lines = str(info.value).splitlines()
    row = next(i for i, line in enumerate(lines) if line.strip() == shown)
    start = lines[row].index(marked)
    carets = lines[row + 1]
    assert carets[start] in "^~" and not carets[:start].strip()  # nothing marked before it...
    assert len(carets.rstrip()) == start + len(marked)  # ...and nothing after it


def test_error_in_function_defined_in_earlier_call(executor):
    executor("def f(x):\n    return 1 / x")
    with pytest.raises(InterpreterError) as info:
        executor("f(0)")
    msg = str(info.value)
    assert "<code #1>" in msg and "return 1 / x" in msg and "ZeroDivisionError" in msg


def test_blocked_import_says_what_and_how(executor):
    with pytest.raises(InterpreterError) as info:
        executor("import requests")
    msg = str(info.value)
    assert "Import of requests is not allowed" in msg
    assert "allowed:" in msg and "math" in msg and "additional_authorized_imports" in msg


def test_blocked_dangerous_import_explains(executor):
    with pytest.raises(InterpreterError, match="Import of subprocess is not allowed.*named exactly"):
        executor("import subprocess")


def test_blocked_attribute_is_static_and_located(executor):
    with pytest.raises(InterpreterError) as info:
        executor("x = 1\ndef g():\n    yield 1\ng().gi_frame")
    msg = str(info.value)
    assert msg.startswith("Blocked (line 4") and "gi_frame" in msg and "interpreter internals" in msg


def test_logs_before_error_are_attached(executor):
    with pytest.raises(InterpreterError) as info:
        executor("print('step 1')\nraise ValueError('bad')")
    assert info.value.logs == "step 1\n"
    assert "ValueError: bad" in str(info.value)


def test_not_installed_module(make_executor):
    # named, it fails when the executor is made (smolagents' check); under "*", at the import
    with pytest.raises(InterpreterError, match="Non-installed authorized modules: surely_not_installed_pkg"):
        make_executor(["surely_not_installed_pkg"])
    ex = make_executor(["*"])
    with pytest.raises(InterpreterError, match="No module named 'surely_not_installed_pkg'"):
        ex("import surely_not_installed_pkg")


def test_system_exit_is_an_error_not_a_dead_worker(executor):
    with pytest.raises(InterpreterError, match="SystemExit"):
        executor("raise SystemExit(3)")
    with pytest.raises(InterpreterError, match="KeyboardInterrupt"):
        executor("raise KeyboardInterrupt")
    assert executor("1").output == 1


def test_exit_builtin_is_blocked(executor):
    with pytest.raises(InterpreterError, match="exit"):
        executor("exit()")
