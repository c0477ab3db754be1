"""Code that would rebind a tool's or a team member's name is refused before it runs.

Why: a model sometimes writes `final_answer = 6 * 7` (then `print(final_answer)`, or nothing more).
Run as written, the assignment hides the tool: the step "succeeds", the answer is never given, and
the next step's `final_answer(...)` calls a number. smolagents refuses the assignment with an error
the model reads and corrects ("Cannot assign to name 'final_answer': doing this would erase the
existing tool!"), after `fix_final_answer_code` renamed the variable where the same code also calls
`final_answer(...)`. The check is on the host, before any executor (local, Docker, E2B...) runs the
code, so every executor refuses alike.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from smol_core.executors.base import InterpreterError

__all__ = ["check_no_tool_rebinding"]


def check_no_tool_rebinding(code: str, names: Iterable[str]) -> None:
    """Raise `InterpreterError` if `code` binds any of `names` (assignment, loop or `with` target,
    `def`, `class`, `import ... as`, walrus); code that does not parse is left to the executor."""
    protected = {name for name in names if _may_bind(code, name)}
    if not protected:
        return
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    for name, node in _bound_names(tree):
        if name in protected:
            lines = code.splitlines()
            line_number = getattr(node, "lineno", 1)
            segment = lines[line_number - 1].strip() if 0 < line_number <= len(lines) else name
            raise InterpreterError(
                f"Code execution failed at line '{segment}' due to: InterpreterError: "
                f"Cannot assign to name '{name}': doing this would erase the existing tool!"
            )


def _may_bind(code: str, name: str) -> bool:
    """Whether `code` names `name` other than as a call or an attribute: only then can it bind it,
    and only then is the code parsed (most actions merely call their tools, on every step).

    Plain string search, not a regular expression: a pattern per tool name was compiled afresh in
    every process (about 1 ms each), which each agent of a team paid as it took its first step."""
    start = code.find(name)
    while start != -1:
        end = start + len(name)
        whole = (start == 0 or not _in_name(code[start - 1])) and (
            end == len(code) or not _is_word(code[end])
        )
        if whole and (_after_def_or_class(code, start) or not code.startswith("(", _skip_spaces(code, end))):
            return True
        start = code.find(name, start + 1)
    return False


def _is_word(character: str) -> bool:
    return character.isalnum() or character == "_"


def _in_name(character: str) -> bool:
    """A character that makes what follows it part of a longer name or an attribute (`x.name`)."""
    return _is_word(character) or character == "."


def _after_def_or_class(code: str, start: int) -> bool:
    """Whether `def` or `class` and some white space come just before `start`."""
    position = start
    while position > 0 and code[position - 1].isspace():
        position -= 1
    if position == start:
        return False
    for keyword in ("def", "class"):
        begin = position - len(keyword)
        if begin >= 0 and code.startswith(keyword, begin) and (begin == 0 or not _is_word(code[begin - 1])):
            return True
    return False


def _skip_spaces(code: str, position: int) -> int:
    while position < len(code) and code[position] in " \t":
        position += 1
    return position


def _bound_names(tree: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """Each name the code binds, with the statement (or expression) that binds it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            yield node.id, node
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name, node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                yield (alias.asname or alias.name.split(".")[0]), node
        elif isinstance(node, ast.Global | ast.Nonlocal):
            continue
