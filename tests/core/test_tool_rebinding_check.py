"""The host's check that code does not rebind a tool's name parses only code that could (most actions
just call their tools), and still refuses every way of binding a name."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from smol_core.agents.assignment_check import _may_bind, _skip_spaces, check_no_tool_rebinding
from smol_core.executors.base import InterpreterError

BINDS = [
    "final_answer = 5",
    "def final_answer(x): pass",
    "async def final_answer(): pass",
    "class  final_answer(object): pass",
    "from m import final_answer",
    "import m as final_answer",
    "for final_answer in y: pass",
    "with open('f') as final_answer: pass",
    "(final_answer := 3)",
    "del final_answer",
]
CALLS_ONLY = [
    "final_answer(3)",
    "x = final_answer (3)",
    "obj.final_answer = 3",
    "my_final_answer = 3",
    "y = 1",
]


@pytest.mark.parametrize("code", BINDS)
def test_every_binding_is_refused(code: str) -> None:
    assert _may_bind(code, "final_answer")
    with pytest.raises(InterpreterError, match="Cannot assign to name 'final_answer'"):
        check_no_tool_rebinding(code, ["final_answer"])


@pytest.mark.parametrize("code", CALLS_ONLY)
def test_code_that_only_calls_the_tool_is_not_parsed(code: str) -> None:
    assert not _may_bind(code, "final_answer")
    check_no_tool_rebinding(code, ["final_answer"])


_PIECES = st.sampled_from([*"fa_ (.\t\n=1é:x", "final_answer", "def ", "class ", "fa", " = ", "(", "obj."])


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=20).map("".join), st.sampled_from(["final_answer", "fa", "a"]))
def test_a_name_may_be_bound_exactly_where_the_rule_in_regular_expression_form_says(
    code: str, name: str
) -> None:
    """The check finds names by string search (a pattern per tool name cost every agent process a
    compile); the rule it implements, written as the regular expression it replaced: the name whole,
    not after a dot, and either after `def`/`class` or not followed by a call's parenthesis."""
    rule = re.compile(rf"(\b(?:def|class)\s+)?(?<![\w.]){re.escape(name)}(?!\w)")
    expected = any(
        match.group(1) or not code.startswith("(", _skip_spaces(code, match.end()))
        for match in rule.finditer(code)
    )
    assert _may_bind(code, name) == expected
