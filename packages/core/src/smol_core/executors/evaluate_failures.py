"""A failure of smolagents' `evaluate_python_code`, read back from the sandbox and worded as smolagents
words it.

Why apart from evaluate.py: the worker reports an error in smol's own format (a traceback of the
code's frames, "Blocked (line n)", a tool's error); users of smolagents' functional API match on
smolagents' wording ("Could not index ...", "Forbidden function evaluation ...", "The variable `x` is
not defined."). This module is that translation: which statement failed, and the words for it.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from typing import Any

from smol_core.executors.worker.protocol import UnserializableValue


@dataclass
class Failure:
    """An error the worker reported, read back from its message (smol's own format, worker/error_text.py)."""

    message: str
    lineno: int | None
    type_name: str | None
    text: str
    column: int | None = None
    """Where the failing part starts on its line, from the traceback's carets (None: not shown)."""

    @property
    def detail(self) -> str:
        return f"{self.type_name}: {self.text}" if self.type_name else self.text


_CODE_FRAME = re.compile(r'^  File "<code #\d+>", line (\d+)', re.MULTILINE)
_BLOCKED = re.compile(r"^Blocked \(line (\d+)")
_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*)(?::\s?(.*))?$", re.DOTALL)
_TOOL_ERROR = re.compile(r"^tool '\w+' failed: ([A-Za-z_][\w.]*): (.*)$", re.DOTALL)


def read_failure(message: str) -> Failure:
    lines = message.splitlines()
    frame = _CODE_FRAME.search(message)
    blocked = _BLOCKED.match(message)
    lineno = int(frame.group(1)) if frame else int(blocked.group(1)) if blocked else None
    if blocked:
        return Failure(message, lineno, None, message)
    start = 0
    if lines and lines[0].startswith("Traceback"):
        start = next((i for i, line in enumerate(lines[1:], 1) if not line.startswith(" ")), len(lines))
    last = "\n".join(lines[start:])
    match = _EXCEPTION.match(last)
    if match is None or (match.group(2) is None and " " in last):
        return Failure(message, lineno, None, last)
    type_name, text = match.group(1), match.group(2) or ""
    if type_name == "ToolError":  # a host tool raised: smolagents shows the tool's own exception
        tool = _TOOL_ERROR.match(text)
        if tool is not None:
            type_name, text = tool.group(1), tool.group(2)
    return Failure(message, lineno, type_name, text, _caret_column(lines, frame))


def _caret_column(lines: list[str], frame: re.Match[str] | None) -> int | None:
    """The column (in the stripped source line) where the first code frame's carets start."""
    if frame is None:
        return None
    at = next((i for i, line in enumerate(lines) if line.startswith(frame.group(0))), None)
    if at is None or at + 2 >= len(lines):
        return None
    carets = lines[at + 2]
    if not carets.strip() or set(carets.strip()) - set("~^"):
        return None
    return len(carets) - len(carets.lstrip()) - 4


def statement_at(tree: ast.Module, code: str, failure: Failure) -> ast.stmt | None:
    """The top-level statement that failed: the one holding the failing line (and, where several share
    it, `a = 1; b[0]`, the one holding the column the traceback's carets point at)."""
    lineno = failure.lineno
    if lineno is None:
        return None
    found = [node for node in tree.body if node.lineno <= lineno <= (node.end_lineno or node.lineno)]
    if len(found) > 1 and failure.column is not None:
        lines = code.splitlines()
        line = lines[lineno - 1] if 0 < lineno <= len(lines) else ""
        column = failure.column + len(line) - len(line.lstrip())
        on_line = [node for node in found if node.lineno == lineno and node.col_offset <= column]
        if on_line:
            return on_line[-1]
    return found[0] if found else None


def smolagents_detail(failure: Failure, node: ast.AST | None) -> str:
    """The cause, worded as smolagents words the errors its users match on."""
    name = _undefined_name(failure)
    if isinstance(node, ast.Delete):
        if name is not None:
            return f"InterpreterError: Cannot delete name '{name}': name is not defined"
        if failure.type_name in ("KeyError", "IndexError", "TypeError"):
            return f"InterpreterError: Cannot delete index/key: {failure.text}"
    if name is not None:
        called = node is not None and any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
            for n in ast.walk(node)
        )
        if called:
            return (
                f"InterpreterError: Forbidden function evaluation: '{name}' is not among the explicitly "
                "allowed tools or defined/imported in the preceding code"
            )
        return f"InterpreterError: The variable `{name}` is not defined."
    for pattern, wording in _SMOLAGENTS_WORDINGS:
        match = pattern.search(failure.text)
        if match is not None:
            return f"InterpreterError: {wording.format(*match.groups())}"
    return failure.detail


_SMOLAGENTS_WORDINGS = [
    (
        re.compile(r"argument after \*\* must be a mapping, not (\w+)$"),
        "Cannot unpack non-dict value in **kwargs: {}",
    ),
]
"""CPython messages smolagents words its own way, where its users match on the wording."""


def _undefined_name(failure: Failure) -> str | None:
    if failure.type_name != "NameError":
        return None
    match = re.match(r"name '(\w+)' is not defined", failure.text)
    return match.group(1) if match else None


def _list_add_detail(failure: Failure, node: ast.AST | None, state: dict[str, Any]) -> str | None:
    """smolagents' message for `a_list += <not a list>` that failed: "Cannot add non-list value 1 to a list."."""
    if (
        failure.type_name != "TypeError"
        or not isinstance(node, ast.AugAssign)
        or not isinstance(node.op, ast.Add)
    ):
        return None
    if not isinstance(node.target, ast.Name) or not isinstance(state.get(node.target.id), list):
        return None
    value: Any
    if isinstance(node.value, ast.Constant):
        value = node.value.value
    elif isinstance(node.value, ast.Name) and node.value.id in state:
        value = state[node.value.id]
    else:
        return None
    if isinstance(value, list | UnserializableValue):
        return None
    return f"InterpreterError: Cannot add non-list value {value} to a list."


def _indexing_detail(failure: Failure, node: ast.AST | None, state: dict[str, Any]) -> str | None:
    """smolagents' message for a failed `name[key]`: "Could not index <value> with '<key>': <error>",
    with the keys that look like the one asked for. Given only when the statement holds one such
    subscript and indexing the value the namespace gave back fails the same way (plain data only)."""
    if node is None or failure.type_name not in ("KeyError", "IndexError", "TypeError"):
        return None
    subscripts = [
        n
        for n in ast.walk(node)
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
    ]
    if len(subscripts) != 1:
        return None
    (subscript,) = subscripts
    if subscript.value.id not in state:  # type: ignore[attr-defined]
        return None
    value = state[subscript.value.id]  # type: ignore[attr-defined]
    index: Any
    if isinstance(subscript.slice, ast.Constant):
        index = subscript.slice.value
    elif isinstance(subscript.slice, ast.Name) and subscript.slice.id in state:
        index = state[subscript.slice.id]
    else:
        return None
    if isinstance(value, UnserializableValue) or isinstance(index, UnserializableValue):
        return None  # the code's own objects: indexing them here would need them here
    try:
        value[index]
    except (KeyError, IndexError, TypeError) as exc:
        if type(exc).__name__ != failure.type_name:
            return None
    else:
        return None
    message = f"Could not index {value} with '{index}': {failure.type_name}: {failure.text}"
    if isinstance(index, str) and isinstance(value, dict):
        close = difflib.get_close_matches(index, [key for key in value if isinstance(key, str)])
        if close:
            message += f". Maybe you meant one of these indexes instead: {close}"
    return f"InterpreterError: {message}"


def failure_detail(failure: Failure, node: ast.AST | None, state: dict[str, Any]) -> str:
    """The cause of a failed `evaluate_python_code`, as smolagents words it for the statement `node`."""
    detail = _indexing_detail(failure, node, state) or _list_add_detail(failure, node, state)
    return detail or smolagents_detail(failure, node)
