"""The static layer: check and rewrite the code's AST before it is compiled.

Why rewrite rather than interpret: the code then runs as real CPython bytecode, at native speed.
Attribute names that are safe on every object stay native; denied names (frames, code objects, the
class graph) fail before anything runs; names that depend on the object (`_private`, `__dict__`,
`format`) become calls to a guarded accessor. The same checker validates code the stdlib compiles at
run time (see audit.py), in a stricter mode. Stdlib-only.
"""

from __future__ import annotations

import ast
from typing import Any

from .policy import (
    ALLOWED_DUNDER_NAMES,
    ALLOWED_DUNDERS,
    DENIED_ATTRIBUTES,
    RUNTIME_CHECKED,
    RUNTIME_COMPILE_DENIED_ATTRIBUTES,
    RUNTIME_COMPILE_DENIED_NAMES,
)

GETATTR_NAME = "__smol_getattr__"
LAST_VALUE_NAME = "__smol_last__"
RESERVED_PREFIX = "__smol"


class StaticViolation(Exception):
    """The code uses a construct the sandbox refuses; raised before the code runs."""

    def __init__(self, message: str, node: ast.AST | None = None) -> None:
        super().__init__(message)
        self.lineno: int | None = getattr(node, "lineno", None)
        self.col: int | None = getattr(node, "col_offset", None)


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def attribute_refusal(name: str) -> str | None:
    """Why `obj.<name>` written in the code is refused, or None when it is allowed (maybe guarded)."""
    if name in DENIED_ATTRIBUTES:
        return f"access to attribute '{name}' is not allowed: it leads to interpreter internals"
    if is_dunder(name) and name not in ALLOWED_DUNDERS and name != "__dict__":
        return f"access to dunder attribute '{name}' is not allowed"
    return None


def _mangle(name: str, class_name: str | None) -> str:
    if class_name and name.startswith("__") and not name.endswith("__"):
        stripped = class_name.lstrip("_")
        if stripped:
            return f"_{stripped}{name}"
    return name


class _Rewriter(ast.NodeTransformer):
    def __init__(self, runtime_compile: bool, bound: frozenset[str] = frozenset()) -> None:
        self.runtime_compile = runtime_compile
        self.bound = bound
        self.class_stack: list[str] = []

    # --- names -----------------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> Any:
        name = node.id
        if name.startswith(RESERVED_PREFIX) and not self.runtime_compile:
            raise StaticViolation(f"the name '{name}' is reserved by the sandbox", node)
        if self.runtime_compile:
            if name in RUNTIME_COMPILE_DENIED_NAMES and name not in self.bound:
                raise StaticViolation(f"the name '{name}' is not allowed in code compiled at run time", node)
        elif is_dunder(name) and name not in ALLOWED_DUNDER_NAMES:
            raise StaticViolation(f"the name '{name}' is not allowed", node)
        return node

    def _check_binding(self, name: str | None, node: ast.AST) -> None:
        if name and name.startswith(RESERVED_PREFIX) and not self.runtime_compile:
            raise StaticViolation(f"the name '{name}' is reserved by the sandbox", node)

    def visit_Global(self, node: ast.Global) -> Any:
        for n in node.names:
            self._check_binding(n, node)
        return node

    visit_Nonlocal = visit_Global  # type: ignore[assignment]

    def visit_arg(self, node: ast.arg) -> Any:
        self._check_binding(node.arg, node)
        return self.generic_visit(node)

    # --- attributes ------------------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> Any:
        self.generic_visit(node)
        name = node.attr
        if self.runtime_compile:
            if name in RUNTIME_COMPILE_DENIED_ATTRIBUTES:
                raise StaticViolation(f"access to attribute '{name}' is not allowed", node)
            return node
        refusal = attribute_refusal(name)
        if refusal:
            raise StaticViolation(refusal, node)
        if self.runtime_compile or not isinstance(node.ctx, ast.Load):
            return node
        if (name.startswith("_") and not is_dunder(name)) or name in RUNTIME_CHECKED or name == "__dict__":
            real = _mangle(name, self.class_stack[-1] if self.class_stack else None)
            call = ast.Call(
                func=ast.Name(id=GETATTR_NAME, ctx=ast.Load()),
                args=[node.value, ast.Constant(value=real)],
                keywords=[],
            )
            return ast.copy_location(call, node)
        return node

    # --- definitions and imports -----------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> Any:
        self._check_binding(node.name, node)
        for deco in node.decorator_list:
            self.visit(deco)
        node.bases = [self.visit(b) for b in node.bases]
        node.keywords = [self.visit(k) for k in node.keywords]
        self.class_stack.append(node.name)
        try:
            node.body = [self.visit(s) for s in node.body]
        finally:
            self.class_stack.pop()
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Any:
        self._check_binding(node.name, node)
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Any:
        if node.level:
            raise StaticViolation("relative imports are not allowed", node)
        for alias in node.names:
            if alias.name != "*" and (alias.name.startswith("_") and alias.name != "__future__"):
                if not (node.module == "__future__"):
                    raise StaticViolation(f"importing the private name '{alias.name}' is not allowed", node)
            self._check_binding(alias.asname, node)
        return node

    def visit_Import(self, node: ast.Import) -> Any:
        for alias in node.names:
            self._check_binding(alias.asname or alias.name.split(".")[0], node)
        return node


def _capture_last_value(tree: ast.Module) -> None:
    """Make the value of the final expression (or of a final simple assignment) retrievable."""
    if not tree.body:
        return
    last = tree.body[-1]
    target: ast.expr | None = None
    if isinstance(last, ast.Expr):
        assign = ast.Assign(targets=[ast.Name(id=LAST_VALUE_NAME, ctx=ast.Store())], value=last.value)
        tree.body[-1] = ast.copy_location(assign, last)
        return
    if isinstance(last, ast.Assign) and len(last.targets) == 1 and isinstance(last.targets[0], ast.Name):
        target = last.targets[0]
    elif isinstance(last, ast.AugAssign | ast.AnnAssign) and isinstance(last.target, ast.Name):
        if not isinstance(last, ast.AnnAssign) or last.value is not None:
            target = last.target
    if target is not None:
        assert isinstance(target, ast.Name)
        copy = ast.Assign(
            targets=[ast.Name(id=LAST_VALUE_NAME, ctx=ast.Store())],
            value=ast.Name(id=target.id, ctx=ast.Load()),
        )
        tree.body.append(ast.copy_location(copy, last))


def rewrite(tree: ast.Module, *, capture_last: bool = True) -> ast.Module:
    """Check and rewrite the agent's code. Raises StaticViolation."""
    tree = _Rewriter(runtime_compile=False).visit(tree)
    if capture_last:
        _capture_last_value(tree)
    return ast.fix_missing_locations(tree)


def check_runtime_source(source: str | bytes) -> None:
    """Validate source the stdlib compiles while the code runs (strict: no rewrites possible there)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return  # compile() itself will fail the same way
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
    _Rewriter(runtime_compile=True, bound=frozenset(bound)).visit(tree)
