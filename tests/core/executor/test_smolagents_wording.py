"""Refusals say what smolagents says first ("Import of os is not allowed", "Forbidden access to
module: os", ...), then smol's reason: users and their tests match on smolagents' phrases."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from smol_core.executors.base import ExecutionTimeoutError, InterpreterError
from smol_core.executors.local import LocalPythonExecutor


@pytest.mark.parametrize(
    "imports, code, phrase",
    [
        ([], "import os", "Import of os is not allowed"),
        (["queue"], "import queue; queue.threading", "Forbidden access to module: threading"),
        (["random"], "import random; random._os", "Forbidden access to module: os"),
        (["warnings"], "import warnings; warnings.sys", "Forbidden access to module: sys"),
        (["random"], "import random; random.__dict__", "Forbidden access to dunder attribute: __dict__"),
        ([], "().__class__.__base__.__subclasses__()", "Forbidden access to dunder attribute: __base__"),
        ([], "'string'.__dir__()", "Forbidden call to dunder function: __dir__"),
        (["builtins"], "import builtins; builtins.eval", "Forbidden access to function: eval"),
        (["posix"], "import posix; posix.system", "Forbidden access to function: system"),
        (["os"], "import os; os.popen", "Forbidden access to function: popen"),
        (["sys"], "import sys; sys.modules['os']", "Forbidden access to module: os"),
        (["importlib"], "import importlib; importlib.import_module('os')", "Forbidden access to module: os"),
    ],
)
def test_refusals_use_smolagents_words(
    make_executor: Callable[..., LocalPythonExecutor], imports: list[str], code: str, phrase: str
) -> None:
    with pytest.raises(InterpreterError, match=phrase):
        make_executor(imports)(code)


def test_the_first_refusal_in_evaluation_order_is_reported(
    make_executor: Callable[..., LocalPythonExecutor],
) -> None:
    # `__subclasses__` comes first in the tree, `__base__` is evaluated first
    with pytest.raises(InterpreterError, match="__base__") as info:
        make_executor()("for c in ().__class__.__base__.__subclasses__():\n    pass")
    assert "__subclasses__" not in str(info.value).splitlines()[0]


def test_a_named_builtins_module_keeps_its_safe_functions(
    make_executor: Callable[..., LocalPythonExecutor],
) -> None:
    out = make_executor(["builtins"])("import builtins; builtins.print(1); builtins.len([1, 2])")
    assert (out.output, out.logs) == (2, "1\n")


def test_time_out_uses_smolagents_words(make_executor: Callable[..., LocalPythonExecutor]) -> None:
    with pytest.raises(
        ExecutionTimeoutError, match="Code execution exceeded the maximum execution time of 1"
    ):
        make_executor(timeout_seconds=1)("while True:\n    pass")


def test_authorized_modules_must_be_installed() -> None:
    with pytest.raises(InterpreterError, match="Non-installed authorized modules: i_do_not_exist"):
        LocalPythonExecutor(["math", "i_do_not_exist.*"])


def test_builtins_sent_as_tools_run_in_the_sandbox(make_executor: Callable[..., LocalPythonExecutor]) -> None:
    """`{"exec": exec}` must not become a host function called with the code's arguments."""
    ex = make_executor()
    ex.send_tools({"exec": exec, "length": len, "say": print})
    assert ex("say('hi'); length([1, 2])").output == 2
    assert ex("say('hi')").logs == "hi\n"  # the sandbox's print: into the logs, not the host's stdout
    with pytest.raises(InterpreterError, match="exec\\(\\) is not available in the sandbox"):
        ex("exec('x = 1')")
    with pytest.raises(InterpreterError, match="Cannot assign to name 'length'"):
        ex("length = 3")


def test_state_is_a_snapshot_of_the_namespace(make_executor: Callable[..., LocalPythonExecutor]) -> None:
    ex = make_executor()
    ex("x = [1, 2]\ndef f():\n    return 1")
    state = ex.state
    assert state["__name__"] == "__main__" and state["x"] == [1, 2]
    assert "<function f" in repr(state["f"]) and not callable(state["f"])  # never a live object


def test_sys_modules_holds_the_views_the_code_may_import(
    make_executor: Callable[..., LocalPythonExecutor],
) -> None:
    ex = make_executor(["sys", "math"])
    code = "import sys, math\n(sys.modules['math'] is math, 'math' in sys.modules, 'os' in sys.modules, sys.modules.get('os'))"
    with pytest.raises(InterpreterError, match="Forbidden access to module: os"):
        ex(code)  # Mapping.get does not turn a refusal into None
    assert ex(code.rsplit(",", 1)[0] + ")").output == (True, True, False)
    listed = set(ex("import sys\nlist(sys.modules)").output)
    assert "math" in listed and listed.isdisjoint({"os", "posix", "_io", "builtins", "subprocess"})
    with pytest.raises(InterpreterError, match="does not support item assignment"):
        ex("import sys\nsys.modules['os'] = 1")


def test_sys_modules_refuses_a_dangerous_module_loaded_or_not(
    make_executor: Callable[..., LocalPythonExecutor],
) -> None:
    ex = make_executor(["sys"])
    for name in ("os", "shutil", "multiprocessing"):  # the worker has loaded os, not the others
        with pytest.raises(InterpreterError, match=f"Forbidden access to module: {name}"):
            ex(f"import sys\nsys.modules['{name}']")
    with pytest.raises(InterpreterError, match="KeyError: 'no_such_module'"):
        ex("import sys\nsys.modules['no_such_module']")


def test_a_module_view_has_a_repr(make_executor: Callable[..., LocalPythonExecutor]) -> None:
    assert repr(make_executor()("import math\nmath").output) == "<module 'math' (the sandbox's view)>"


def test_a_builtin_among_additional_functions_is_the_sandboxs(
    make_executor: Callable[..., LocalPythonExecutor],
) -> None:
    """`additional_functions={"open": open}` (smolagents' own test passes it) must not hand the code
    the host's `open`: the code gets the sandbox's, which refuses."""
    ex = make_executor(additional_functions={"open": open})
    assert ex.static_tools["open"] is open
    with pytest.raises(InterpreterError, match=r"open\(\) is not available in the sandbox"):
        ex("open('/etc/hostname').read()")
    ex.reset()
    with pytest.raises(InterpreterError, match=r"open\(\) is not available in the sandbox"):
        ex("open('/etc/hostname').read()")
