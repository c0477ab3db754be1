"""An action's value: the value of its last statement, kept where the worker can read it.

Why a rewrite of its own: smolagents defines an action's value by its last statement (an expression,
an assignment, a definition; for a final `for` or `if`, the last value its body gave), and code that
reads its own results depends on it. The static layer (guards.py) applies this rewrite after its
checks; the names it assigns are reserved, so the code cannot write them itself.
"""

from __future__ import annotations

import ast
import copy

LAST_VALUE_NAME = "__smol_last__"
KEEP_VALUE_NAME = "__smol_keep__"
"""A statement's value inside a final compound statement, before it is known not to be None."""
CAPTURE_NAMES = frozenset({LAST_VALUE_NAME, KEEP_VALUE_NAME})


def capture_last_value(tree: ast.Module) -> None:
    """Make the value of the final statement retrievable, as smolagents defines it.

    The value of an action is the value of its last statement: an expression's value, an
    assignment's value (`x = 3` gives 3, `a, b = 1, 2` gives (1, 2)), an augmented assignment's new
    value, a function or class defined; for a final `for` or `if`, the last value other than None
    that such a statement in its body (the branch taken, the last iteration run) gave; None for
    anything else (`while`, `try`, `with`, imports, `print(...)`). Code that reads its own results
    (smolagents' `evaluate_python_code`, an agent's "Last output") gets what it got there.
    """
    if not tree.body:
        return
    last = tree.body[-1]
    if isinstance(last, ast.Expr):
        name = ast.copy_location(ast.Name(id=LAST_VALUE_NAME, ctx=ast.Store()), last)
        tree.body[-1] = ast.copy_location(ast.Assign(targets=[name], value=last.value), last)
    elif isinstance(last, ast.For | ast.AsyncFor | ast.If):
        _record_values(last)
    else:
        tree.body[-1:] = _capturing(last, LAST_VALUE_NAME)
    ast.fix_missing_locations(tree)


def _capturing(stmt: ast.stmt, into: str) -> list[ast.stmt]:
    """`stmt`, then (or with) the assignment of its value to `into`; `[stmt]` when it has none."""

    def store() -> ast.Name:
        return ast.copy_location(ast.Name(id=into, ctx=ast.Store()), stmt)

    def then(value: ast.expr) -> list[ast.stmt]:
        return [stmt, ast.copy_location(ast.Assign(targets=[store()], value=value), stmt)]

    if isinstance(stmt, ast.Expr):
        return [ast.copy_location(ast.Assign(targets=[store()], value=stmt.value), stmt)]
    if isinstance(stmt, ast.Assign):
        stmt.targets.insert(0, store())  # `into = a = b = value`: the value is evaluated once
        return [stmt]
    has_value = not isinstance(stmt, ast.AnnAssign) or stmt.value is not None
    if (
        isinstance(stmt, ast.AugAssign | ast.AnnAssign)
        and has_value
        and isinstance(stmt.target, ast.Name | ast.Attribute | ast.Subscript)
    ):
        target = copy.deepcopy(stmt.target)
        target.ctx = ast.Load()
        return then(target)
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return then(ast.copy_location(ast.Name(id=stmt.name, ctx=ast.Load()), stmt))
    return [stmt]


def _record_values(stmt: ast.For | ast.AsyncFor | ast.If) -> None:
    """In a final `for`/`if`: each statement of its body that gives a value other than None records it."""
    stmt.body = [new for inner in stmt.body for new in _recording(inner)]
    if isinstance(stmt, ast.If):
        stmt.orelse = [new for inner in stmt.orelse for new in _recording(inner)]


def _recording(stmt: ast.stmt) -> list[ast.stmt]:
    if isinstance(stmt, ast.For | ast.AsyncFor | ast.If):
        _record_values(stmt)
        return [stmt]
    captured = _capturing(stmt, KEEP_VALUE_NAME)
    if captured == [stmt] and not isinstance(stmt, ast.Assign):
        return captured
    keep = ast.copy_location(ast.Name(id=KEEP_VALUE_NAME, ctx=ast.Load()), stmt)
    test = ast.copy_location(
        ast.Compare(left=keep, ops=[ast.IsNot()], comparators=[ast.Constant(value=None)]), stmt
    )
    record = ast.Assign(
        targets=[ast.Name(id=LAST_VALUE_NAME, ctx=ast.Store())],
        value=ast.Name(id=KEEP_VALUE_NAME, ctx=ast.Load()),
    )
    guard = ast.If(test=test, body=[ast.copy_location(record, stmt)], orelse=[])
    return [*captured, ast.fix_missing_locations(ast.copy_location(guard, stmt))]
