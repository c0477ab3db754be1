"""smolagents' `evaluate_python_code` and node functions, run by smol's sandbox."""

from __future__ import annotations

import ast
import re

import pytest

from smol_core import (
    BASE_PYTHON_TOOLS,
    ExecutionTimeoutError,
    InterpreterError,
    PrintContainer,
    evaluate_condition,
    evaluate_delete,
    evaluate_python_code,
    evaluate_subscript,
)
from smol_core.executors.worker.protocol import UnserializableValue


def add_two(x: int) -> int:
    return x + 2


@pytest.mark.parametrize(
    "code, expected",
    [
        ("x = 3", 3),
        ("a, b = 1, 2", (1, 2)),
        ("a = 1; b = None", None),
        ("x = 0\nfor i in range(3):\n    x = i", 2),
        ("for i in range(10):\n    if i == 5:\n        break\ni", 5),
        ("if 1 < 2:\n    y = 'yes'\nelse:\n    y = 'no'", "yes"),
        ("d = {'a': 1}\nd['a'] += 1", 2),
        ("for a in ['x y']:\n    res = a.split()[0]\n    print(res)", "x"),
        ("i = 0\nwhile i < 3:\n    i += 1", None),
    ],
)
def test_the_value_is_the_last_statements(code: str, expected: object) -> None:
    assert evaluate_python_code(code, {}, state={}) == (expected, False)


def test_state_goes_in_and_comes_back() -> None:
    state = {"x": 3, "gone": 1}
    result, _ = evaluate_python_code(
        "y = add_two(x)\ndel gone\nprint('hi')", {"add_two": add_two}, state=state
    )
    assert result is None
    assert state["x"] == 3 and state["y"] == 5 and "gone" not in state
    assert isinstance(state["_print_outputs"], PrintContainer) and state["_print_outputs"].value == "hi\n"


def test_sandbox_objects_come_back_as_their_repr() -> None:
    state: dict[str, object] = {}
    evaluate_python_code("class A:\n    pass\na = A()\ng = (i for i in range(3))", state=state)
    for name in ("A", "a", "g"):
        assert isinstance(state[name], UnserializableValue)
    # and a second call with the same state does not send the placeholders back in
    assert evaluate_python_code("'a' in dir()", state=state)[0] is False


def test_base_python_tools_run_in_the_sandbox() -> None:
    state: dict[str, object] = {}
    code = "print(ceil(1.2), isinstance(3, int), getattr(3, 'real'))"
    evaluate_python_code(code, BASE_PYTHON_TOOLS, state=state)
    assert str(state["_print_outputs"]) == "2 True 3\n"
    with pytest.raises(InterpreterError, match="Forbidden access to dunder attribute"):
        evaluate_python_code("getattr(3, '__class__').__base__", BASE_PYTHON_TOOLS, state={})


def test_a_passed_builtin_grants_nothing_the_sandbox_refuses() -> None:
    with pytest.raises(InterpreterError, match=r"eval\(\) is not available"):
        evaluate_python_code("eval('1 + 1')", {"eval": eval})


def test_static_tools_cannot_be_rebound_custom_tools_can() -> None:
    with pytest.raises(InterpreterError, match="Cannot assign to name 'print'"):
        evaluate_python_code("print = '3'", {"print": print}, state={})
    result, _ = evaluate_python_code("add_two = 5\nadd_two", custom_tools={"add_two": add_two}, state={})
    assert result == 5


def test_final_answer() -> None:
    assert evaluate_python_code("final_answer(answer=2)", {"final_answer": lambda answer: 2 * answer}) == (
        4,
        True,
    )
    code = "try:\n    final_answer(1)\nexcept Exception:\n    final_answer(2)"
    assert evaluate_python_code(code, {"final_answer": lambda answer: answer}) == (1, True)


@pytest.mark.parametrize(
    "code, phrase",
    [
        ("a = 1\nb = a + 'x'", "Code execution failed at line 'b = a + 'x'' due to: TypeError"),
        (
            "y = add_two(1)",
            "Forbidden function evaluation: 'add_two' is not among the explicitly allowed tools",
        ),
        ("y = nowhere + 1", "The variable `nowhere` is not defined"),
        ("del x", "Cannot delete name 'x': name is not defined"),
        ("a = ;", "Code parsing failed on line 1 due to: SyntaxError"),
        ("import numpy.random", "Import of numpy.random is not allowed"),
        ("def f(**kw):\n    return kw\nf(**[1])", "Cannot unpack non-dict value in **kwargs: list"),
        (
            "x = {'key': 1}\ndel x['key']\nx['key']",
            "line 'x['key']' due to: InterpreterError: Could not index {} with 'key'",
        ),
        (
            "capitals = {'Bhutan': 'Thimphu'}; capitals['Butan']",
            "line 'capitals['Butan']' due to: InterpreterError: Could not index {'Bhutan': 'Thimphu'} with "
            "'Butan': KeyError: 'Butan'. Maybe you meant one of these indexes instead: ['Bhutan']",
        ),
        ("a = 1; b = [1][5]", "line 'b = [1][5]' due to: IndexError"),
        (
            "counts = [1]\ncounts += 1",
            "line 'counts += 1' due to: InterpreterError: Cannot add non-list value 1 to a list.",
        ),
    ],
)
def test_errors_are_worded_as_in_smolagents(code: str, phrase: str) -> None:
    with pytest.raises(InterpreterError, match=re.escape(phrase)):
        evaluate_python_code(code, {}, state={}, authorized_imports=["random"])


def test_authorized_imports_are_exactly_those_given() -> None:
    assert (
        evaluate_python_code("import numpy as np\nint(np.arange(4).sum())", authorized_imports=["numpy"])[0]
        == 6
    )
    with pytest.raises(InterpreterError, match="Import of math is not allowed"):
        evaluate_python_code("import math", authorized_imports=["numpy"])


def test_time_limit() -> None:
    with pytest.raises(ExecutionTimeoutError, match="maximum execution time of 1"):
        evaluate_python_code("while True:\n    pass", timeout_seconds=1)
    assert evaluate_python_code("x = 1", timeout_seconds=1)[0] == 1  # the next call gets a fresh worker


def test_node_functions() -> None:
    pd = pytest.importorskip("pandas")
    state = {"a": pd.Series([1, 2, 3]), "b": pd.Series([2, 2, 2])}
    result = evaluate_condition(ast.parse("a < b", mode="eval").body, state, {}, {}, [])
    assert result.tolist() == [True, False, False]
    with pytest.raises(ValueError, match="truth value of a Series is ambiguous"):
        evaluate_condition(ast.parse("a == b == a", mode="eval").body, state, {}, {}, [])
    with pytest.raises(InterpreterError, match="Could not index \\{\\} with 'k': KeyError: 'k'"):
        evaluate_subscript(ast.parse("d['k']").body[0].value, {"d": {}}, {}, {}, [])  # type: ignore[attr-defined]
    state2: dict[str, object] = {"x": [1, 2, 3]}
    evaluate_delete(ast.parse("del x[1]").body[0], state2, {}, {}, [])  # type: ignore[arg-type]
    assert state2 == {"x": [1, 3]}


def test_a_value_too_large_to_return_does_not_fail_the_call() -> None:
    state: dict[str, object] = {}
    evaluate_python_code("big = 'x' * 20_000_000\nsmall = 3", state=state)
    assert state["small"] == 3 and "too large to return" in repr(state["big"])


def test_a_worker_that_died_leaves_the_state_as_it_was() -> None:
    state: dict[str, object] = {"kept": 1}
    with pytest.raises(ExecutionTimeoutError):
        evaluate_python_code(
            "kept = 2\nprint('started')\nwhile True:\n    pass", state=state, timeout_seconds=1
        )
    assert state["kept"] == 1 and isinstance(state["_print_outputs"], PrintContainer)


def test_a_function_runs_in_the_sandbox_only_where_the_sandbox_would_give_it() -> None:
    import math
    import posix

    assert evaluate_python_code("repr(f)", {"f": math.floor})[0] == "<built-in function floor>"
    # posix is never granted by "*": its function stays the host's tool, called through the channel
    assert evaluate_python_code("repr(f)", {"f": posix.getpid}, authorized_imports=["*"])[0].startswith(
        "<function f"
    )


def test_builtin_classes_cross_by_name() -> None:
    assert evaluate_python_code("x = 1; t = int", state={}) == (int, False)
    assert evaluate_python_code("[str, type(3.0), dict]")[0] == [str, float, dict]
    assert isinstance(evaluate_python_code("class A:\n    pass\nA")[0], UnserializableValue)


def test_a_forged_builtin_class_is_refused() -> None:
    from smol_core.executors.host.frames import ProtocolLimits
    from smol_core.executors.host.untrusted import decode_untrusted
    from smol_core.executors.worker.protocol import ProtocolError

    with pytest.raises(ProtocolError, match="unknown builtin type 'eval'"):
        decode_untrusted({"__smol__": "type", "name": "eval"}, ProtocolLimits(), None)
