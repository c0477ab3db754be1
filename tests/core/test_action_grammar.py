"""The code-action grammar (prompting/grammar.py) admits code that parses, and a task's bytes
cannot break it."""

from __future__ import annotations

import pytest
from gbnf_check import accepts
from hypothesis import given, settings, strategies as st

from smol_core.prompting.grammar import code_action_grammar, task_comment

PLAIN = code_action_grammar(thought_prefix=None, max_code_lines=8)
ANSWERING = code_action_grammar(thought_prefix=None, require_final_answer=True, max_code_lines=8)


def block(*lines: str) -> str:
    return "<code>\n" + "".join(line + "\n" for line in lines) + "</code>"


@pytest.mark.parametrize(
    "code",
    [
        ("x = 1", "print(x)"),
        ("with open('a.txt') as f:", "    text = f.read()", "print(text)"),
        ("for i in range(3):", "    if i:", "        print(i)", "    else:", "        pass"),
        ("d = {'a': 1, 'b': [1, 2]}", "print(d['a'])"),
        ("f = lambda x: x + 1", "total = sum(v[1:] for v in [[1, 2]])"),
        ("for i in range(3): print(i)",),
        ("def area(r: float) -> float:", "    return 3.14 * r ** 2", "print(area(2))"),
        ("note = '''a: b:", "c:'''", "print(note)"),
    ],
)
def test_code_that_parses_is_admitted(code: tuple[str, ...]) -> None:
    compile("\n".join(code), "<action>", "exec")  # the case itself is valid Python
    assert accepts(PLAIN, block(*code))


@pytest.mark.parametrize(
    "code",
    [
        ("with open('a.txt') as f:", "print(f.read())"),  # the header's body is missing
        ("for i in range(3):",),
        ("if x > 1:", "x = 2"),
        ("else:",),
        ("x = 1", "f = lambda y:"),
    ],
)
def test_a_block_header_without_its_indented_body_is_not(code: tuple[str, ...]) -> None:
    with pytest.raises(SyntaxError):
        compile("\n".join(code), "<action>", "exec")
    assert not accepts(PLAIN, block(*code))


def test_an_answering_block_still_ends_with_final_answer() -> None:
    assert accepts(ANSWERING, block("x = 6 * 7", "final_answer(x)"))
    assert accepts(ANSWERING, block("for i in range(2):", "    x = i", "final_answer(x)"))
    assert not accepts(ANSWERING, block("for i in range(2):", "final_answer(i)"))


@settings(max_examples=200, deadline=None)
@given(task=st.text(max_size=300))
def test_any_task_reaches_the_grammar_as_one_comment_line(task: str) -> None:
    """A NUL, a quote, a backslash, an escape sequence or a newline in a task broke the grammar
    (llama.cpp refused it: "check the grammar= you passed")."""
    comment = task_comment(task)
    assert comment.startswith("# ") and comment.endswith("\n") and comment.count("\n") == 1
    assert all(c.isprintable() for c in comment[:-1])
    grammar = code_action_grammar(thought_prefix=None, require_final_answer=True, preamble=comment)
    assert accepts(grammar, "<code>\n" + comment + "final_answer(1)\n</code>")
    root = grammar.splitlines()[0]
    assert all(ord(c) >= 0x20 for c in root)  # every control character is escaped in the literal
