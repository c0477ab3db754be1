"""Authorized modules the code reads without importing them are imported for it (`math.sqrt(2)` alone)."""

from __future__ import annotations

import pytest

from smol_core.executors.base import InterpreterError


def test_authorized_module_used_without_import(executor):
    assert executor("math.sqrt(16)").output == 4.0
    assert executor("statistics.mean([1, 2, 3])").output == 2
    assert executor("def f(s):\n    return re.sub('a', 'b', s)\nf('aa')").output == "bb"
    assert executor("class A:\n    n = collections.Counter('aab')['a']\nA.n").output == 2
    assert executor("[itertools.chain is not None for _ in range(2)]").output == [True, True]
    # an additional authorized import too
    assert executor("json.dumps([1])").output == "[1]"


def test_auto_imported_module_is_the_guarded_view(executor):
    executor("auto = math")
    assert executor("import math as explicit\nauto is explicit").output is True
    with pytest.raises(InterpreterError, match="private attribute"):
        executor("random._inst")


def test_line_numbers_stay_the_users(executor):
    with pytest.raises(InterpreterError, match="line 3") as info:
        executor("x = math.pi\n\nundefined_name + x")
    assert "undefined_name + x" in str(info.value)


def test_unauthorized_module_is_not_imported(make_executor):
    ex = make_executor()
    with pytest.raises(InterpreterError, match="NameError: name 'json' is not defined") as info:
        ex("json.dumps([1])")
    assert "import of 'json' is not allowed" in str(info.value)
    with pytest.raises(InterpreterError, match="NameError: name 'numpy' is not defined"):
        ex("numpy.zeros(3)")
    with pytest.raises(InterpreterError, match="NameError: name 'reslt' is not defined"):
        ex("reslt + 1")


def test_names_the_code_binds_are_not_replaced(executor):
    assert executor("math = 3\nmath + 1").output == 4
    assert executor("math").output == 3
    assert executor("def g(random):\n    return random\ng(5)").output == 5
    assert executor("[statistics for statistics in range(2)]").output == [0, 1]
    # read before the code's own assignment: the name is the code's, so it fails as before
    with pytest.raises(InterpreterError, match="NameError: name 'datetime' is not defined"):
        executor("print(datetime.date.today())\ndatetime = 1")


def test_names_from_earlier_calls_variables_and_tools_win(executor):
    executor("statistics = [1, 2, 3]")
    assert executor("len(statistics)").output == 3
    executor.send_variables({"time": "noon"})
    assert executor("time").output == "noon"
    executor.send_tools({"random": lambda: 4})
    assert executor("random()").output == 4


@pytest.mark.parametrize(
    "name", ["os", "sys", "subprocess", "builtins", "importlib", "pickle", "shutil", "io"]
)
def test_forbidden_modules_stay_forbidden(make_executor, name):
    ex = make_executor(["*"])
    with pytest.raises(InterpreterError, match=f"NameError: name '{name}' is not defined") as info:
        ex(f"x = 1\n{name}.anything")
    message = str(info.value)
    assert f"import of '{name}' is not allowed" in message and "line 2" in message
    # the name is not bound behind the code's back: code that guards the read still behaves as before
    assert ex(f"try:\n    {name}\n    r = 'bound'\nexcept NameError:\n    r = 'free'\nr").output == "free"
    assert ex(f"if False:\n    {name}.system('x')\n1").output == 1


def test_wildcard_authorization_imports_real_modules_only(make_executor):
    ex = make_executor(["*"])
    assert ex("textwrap.shorten('hello world', 8)").output == "[...]"
    with pytest.raises(InterpreterError, match="NameError: name 'no_such_module_xyz' is not defined"):
        ex("no_such_module_xyz.f()")


def test_reduced_view_of_a_named_powerful_module(make_executor):
    ex = make_executor(["os"])
    assert isinstance(ex("os.getcwd()").output, str)
    with pytest.raises(InterpreterError, match="os.system is not available"):
        ex("os.system('true')")


def test_authorized_name_that_is_no_module_stays_undefined(make_executor):
    # named, it is refused when the executor is made (smolagents' check); under "*", it stays a name
    with pytest.raises(InterpreterError, match="Non-installed authorized modules: no_such_module_xyz"):
        make_executor(["no_such_module_xyz"])
    ex = make_executor(["*"])
    with pytest.raises(InterpreterError, match=r"NameError: name 'no_such_module_xyz' is not defined$"):
        ex("no_such_module_xyz.f()")
