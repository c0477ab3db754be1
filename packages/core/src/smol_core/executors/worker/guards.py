"""The static layer: check and rewrite the code's AST before it is compiled.

Why rewrite rather than interpret: the code then runs as real CPython bytecode, at native speed.
Attribute names that are safe on every object stay native; denied names (frames, code objects, the
class graph) fail before anything runs; names that depend on the object (`_private`, `__dict__`,
`format`) become calls to a guarded accessor. The same checker validates code the stdlib compiles at
run time (see audit.py), in a stricter mode. Stdlib-only.
"""

from __future__ import annotations

import ast
import dis
import string
from functools import lru_cache
from types import CodeType
from typing import Any

from .last_value import CAPTURE_NAMES, capture_last_value
from .policy import (
    ALLOWED_DUNDER_NAMES,
    ALLOWED_DUNDERS,
    DENIED_ATTRIBUTES,
    RUNTIME_CHECKED,
    RUNTIME_COMPILE_DENIED_ATTRIBUTES,
    RUNTIME_COMPILE_DENIED_NAMES,
)

GETATTR_NAME = "__smol_getattr__"
MATCH_CHECK_NAME = "__smol_match_class__"
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
        if is_dunder(name):  # smolagents' wording first: users match on it
            return f"Forbidden access to dunder attribute: {name} (not allowed: it leads to interpreter internals)"
        return f"access to attribute '{name}' is not allowed: it leads to interpreter internals"
    if is_dunder(name) and name not in ALLOWED_DUNDERS and name != "__dict__":
        return f"Forbidden access to dunder attribute: {name} (not allowed in the sandbox)"
    return None


_parse_format = string.Formatter().parse


@lru_cache(maxsize=1024)
def format_string_refusal(fmt: str, depth: int = 0) -> str | None:
    """Why a str.format template is refused (`{0.__class__}`-style traversal), or None."""
    if depth > 4:
        return "format string nested too deeply"
    try:
        parsed = list(_parse_format(fmt))
    except ValueError:
        return None  # str.format will raise the same error itself
    for _literal, field, spec, _conv in parsed:
        if field:
            for part in field.replace("[", ".[").split(".")[1:]:
                if part and not part.startswith("[") and part.startswith("_"):
                    return f"format field '{field}' is not allowed: attribute '{part}' is private or internal"
        if spec and "{" in spec:
            nested = format_string_refusal(spec, depth + 1)
            if nested:
                return nested
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
        if name.startswith(RESERVED_PREFIX) and not self.runtime_compile and name not in CAPTURE_NAMES:
            raise StaticViolation(f"the name '{name}' is reserved by the sandbox", node)
        if self.runtime_compile:
            if name in RUNTIME_COMPILE_DENIED_NAMES and name not in self.bound:
                raise StaticViolation(f"the name '{name}' is not allowed in code compiled at run time", node)
        elif is_dunder(name) and name not in ALLOWED_DUNDER_NAMES and name not in CAPTURE_NAMES:
            raise StaticViolation(f"the name '{name}' is not allowed", node)
        return node

    def _check_binding(self, name: str | None, node: ast.AST) -> None:
        if name and name.startswith(RESERVED_PREFIX) and not self.runtime_compile:
            raise StaticViolation(f"the name '{name}' is reserved by the sandbox", node)
        if name in ("__instancecheck__", "__subclasscheck__") and not self.runtime_compile:
            raise StaticViolation(f"defining '{name}' is not allowed (it can fake isinstance checks)", node)

    # --- match statements ------------------------------------------------------------------
    def visit_Match(self, node: ast.Match) -> Any:
        """Class patterns read attributes from C: check keyword names now, `__match_args__` at run time.

        Positional sub-patterns read the names listed in the class's `__match_args__`, so the class is
        evaluated once, checked by the runtime, and the pattern uses that checked object.
        """
        self.generic_visit(node)
        checks: list[ast.stmt] = []
        for sub in ast.walk(node):
            if not isinstance(sub, ast.MatchClass):
                continue
            for attr in sub.kwd_attrs:
                if attribute_refusal(attr) or attr.startswith("_") or attr in RUNTIME_CHECKED:
                    raise StaticViolation(f"the attribute '{attr}' is not allowed in a class pattern", sub)
            if sub.patterns:
                var = f"__smol_match_{len(checks)}_{id(sub)}__"
                call = ast.Call(
                    func=ast.Name(id=MATCH_CHECK_NAME, ctx=ast.Load()), args=[sub.cls], keywords=[]
                )
                checks.append(
                    ast.copy_location(
                        ast.Assign(targets=[ast.Name(id=var, ctx=ast.Store())], value=call), node
                    )
                )
                sub.cls = ast.copy_location(ast.Name(id=var, ctx=ast.Load()), sub.cls)
        return [*checks, node] if checks else node

    def visit_Global(self, node: ast.Global) -> Any:
        for n in node.names:
            self._check_binding(n, node)
        return node

    visit_Nonlocal = visit_Global  # type: ignore[assignment]

    def visit_arg(self, node: ast.arg) -> Any:
        self._check_binding(node.arg, node)
        return self.generic_visit(node)

    # --- attributes ------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> Any:
        func = node.func
        refused = (
            not self.runtime_compile
            and isinstance(func, ast.Attribute)
            and is_dunder(func.attr)
            and attribute_refusal(func.attr)
        )
        if refused:
            assert isinstance(func, ast.Attribute)
            self.visit(func.value)  # what is evaluated before the call is reported first
            raise StaticViolation(
                f"Forbidden call to dunder function: {func.attr} (not allowed in the sandbox)", func
            )
        return self.generic_visit(node)

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

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Any:
        if node.level:
            raise StaticViolation("relative imports are not allowed", node)
        for alias in node.names:
            if alias.name != "*" and alias.name.startswith("_") and node.module != "__future__":
                raise StaticViolation(f"importing the private name '{alias.name}' is not allowed", node)
            self._check_binding(alias.asname, node)
        return node

    def visit_Import(self, node: ast.Import) -> Any:
        for alias in node.names:
            self._check_binding(alias.asname or alias.name.split(".")[0], node)
        return node


def _to_guarded_call(node: ast.Attribute, name: str) -> None:
    """Turn `obj.name` into `__smol_getattr__(obj, name)` in place (AST nodes share one layout)."""
    value = node.value
    node.__class__ = ast.Call  # type: ignore[assignment]
    call: Any = node
    call.func = ast.copy_location(ast.Name(id=GETATTR_NAME, ctx=ast.Load()), node)
    call.args = [value, ast.copy_location(ast.Constant(value=name), node)]
    call.keywords = []
    del call.attr, call.ctx


def _fast_rewrite(tree: ast.Module) -> bool:
    """One flat pass over the tree, rewriting in place. False when the slow path is needed.

    Why: a NodeTransformer costs more than parsing; this walk costs a fraction of it. The slow path
    (the transformer) is only needed for `__private` attributes inside classes (name mangling).
    """
    has_class = False
    mangled = False
    todo: list[Any] = []
    checker = _Rewriter(runtime_compile=False)
    for node in ast.walk(tree):
        t = type(node)
        if t is ast.Name:
            checker.visit_Name(node)  # type: ignore[arg-type]
        elif t is ast.Attribute:
            name = node.attr  # type: ignore[attr-defined]
            if attribute_refusal(name):
                return False  # the transformer reports the first refusal in evaluation order
            if type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                continue
            if name[0] == "_":
                if name.startswith("__") and not name.endswith("__"):
                    mangled = True
                elif not is_dunder(name) or name == "__dict__" or name in RUNTIME_CHECKED:
                    todo.append(node)
            elif name in RUNTIME_CHECKED:
                value = node.value  # type: ignore[attr-defined]
                if (
                    name in ("format", "format_map")
                    and type(value) is ast.Constant
                    and type(value.value) is str
                ):
                    refusal = format_string_refusal(value.value)
                    if refusal:
                        raise StaticViolation(refusal, node)
                    continue  # a literal template, checked now: stays native
                todo.append(node)
        elif t is ast.Match:
            return False  # class patterns need the transformer (see _Rewriter.visit_Match)
        elif t is ast.ClassDef:
            has_class = True
            checker._check_binding(node.name, node)  # type: ignore[attr-defined]
        elif t is ast.FunctionDef or t is ast.AsyncFunctionDef:
            checker._check_binding(node.name, node)  # type: ignore[attr-defined]
        elif t is ast.arg:
            checker._check_binding(node.arg, node)  # type: ignore[attr-defined]
        elif t is ast.ImportFrom:
            checker.visit_ImportFrom(node)  # type: ignore[arg-type]
        elif t is ast.Import:
            checker.visit_Import(node)  # type: ignore[arg-type]
        elif t is ast.Global or t is ast.Nonlocal:
            checker.visit_Global(node)  # type: ignore[arg-type]
    if mangled and has_class:
        return False
    for node in todo:
        _to_guarded_call(node, node.attr)
    return True


def rewrite(tree: ast.Module, *, capture_last: bool = True) -> ast.Module:
    """Check and rewrite the agent's code. Raises StaticViolation."""
    if not _fast_rewrite(tree):
        tree = ast.fix_missing_locations(_Rewriter(runtime_compile=False).visit(tree))
    if capture_last:
        capture_last_value(tree)
    return tree


_MATCH_CLASS = bytes([dis.opmap["MATCH_CLASS"]])
_PLAIN_UNDERSCORE = ((ALLOWED_DUNDERS & ALLOWED_DUNDER_NAMES) | CAPTURE_NAMES) - {
    "__dict__"
}  # safe as global and attribute
_NEEDS_CARE = DENIED_ATTRIBUTES | RUNTIME_CHECKED


def _names_are_plain(code: CodeType) -> bool:
    """True when no name in the compiled code needs a check or a rewrite.

    Why: every global and attribute name a code object uses sits in `co_names`; when none of them is
    private, dunder (beyond the allow-list), denied or runtime-checked, the AST walk has nothing to do,
    and skipping it halves the fixed cost of an action.
    """
    stack = [code]
    while stack:
        co = stack.pop()
        for name in co.co_names:
            if (name[0] == "_" and name not in _PLAIN_UNDERSCORE) or name in _NEEDS_CARE:
                return False
        if _MATCH_CLASS in co.co_code[::2]:
            return False
        for name in co.co_varnames + co.co_cellvars + co.co_freevars:
            if name.startswith(RESERVED_PREFIX):
                return False
        stack.extend(c for c in co.co_consts if type(c) is CodeType)
    return True


def code_names(code: CodeType) -> set[str]:
    """Every name in `co_names` of the code and of its nested code objects: a cheap superset.

    It holds globals and attribute names alike; `free_global_reads` then picks the globals out.
    """
    names: set[str] = set()
    stack = [code]
    while stack:
        co = stack.pop()
        names.update(co.co_names)
        stack.extend(c for c in co.co_consts if type(c) is CodeType)
    return names


# Opcodes that read a name as a global (module level and class bodies: LOAD_NAME; functions and
# comprehensions: LOAD_GLOBAL, whose argument is the name index shifted left by one since 3.11;
# annotation scopes, 3.12+: LOAD_FROM_DICT_OR_GLOBALS). Absent opcodes are left out (-1 never matches).
_LOAD_GLOBAL = dis.opmap["LOAD_GLOBAL"]
_GLOBAL_READS = frozenset(
    dis.opmap.get(name, -1) for name in ("LOAD_NAME", "LOAD_GLOBAL", "LOAD_FROM_DICT_OR_GLOBALS")
)
# Opcodes that bind or unbind a global: anywhere (`global x` in a function) ...
_GLOBAL_BINDS = frozenset(dis.opmap[name] for name in ("STORE_GLOBAL", "DELETE_GLOBAL"))
# ... and, in the module's own code only, the plain name stores (in a class body they bind class names).
_MODULE_BINDS = frozenset(dis.opmap[name] for name in ("STORE_NAME", "DELETE_NAME"))
_EXTENDED_ARG = dis.EXTENDED_ARG


def free_global_reads(code: CodeType, candidates: set[str]) -> set[str]:
    """The names among `candidates` that the code reads as globals and never binds as globals itself.

    Why bytecode and not the AST: the compiler has already resolved scopes, so a parameter, a local,
    a comprehension variable or an attribute named like a module is never mistaken for a free global.
    Binding anywhere counts (`math = 3` after a read of `math`, `import x as math`, `except E as math`,
    `global math` in a function never called): such a name is the code's own, not a module to supply.
    The scan reads `co_code` directly (inline caches read as opcode 0): `dis.get_instructions` costs
    milliseconds on a long action, this a fraction of that; code objects naming no candidate are skipped.
    """
    reads: set[str] = set()
    binds: set[str] = set()
    stack = [(code, True)]
    while stack:
        co, is_module = stack.pop()
        stack.extend((c, False) for c in co.co_consts if type(c) is CodeType)
        names = co.co_names
        if candidates.isdisjoint(names):
            continue
        raw = co.co_code
        extended = 0
        for i in range(0, len(raw), 2):
            op = raw[i]
            arg = raw[i + 1] | extended
            if op == _EXTENDED_ARG:
                extended = arg << 8
                continue
            extended = 0
            if op in _GLOBAL_READS:
                reads.add(names[arg >> 1 if op == _LOAD_GLOBAL else arg])
            elif op in _GLOBAL_BINDS or (is_module and op in _MODULE_BINDS):
                binds.add(names[arg])
    return (reads - binds) & candidates


def compile_action(source: str, filename: str, flags: int = 0) -> CodeType:
    """Parse, check, rewrite and compile one action. Raises SyntaxError or StaticViolation."""
    tree = ast.parse(source, filename=filename)
    capture_last_value(tree)
    code: CodeType = compile(tree, filename, "exec", flags=flags, dont_inherit=True)
    if _names_are_plain(code):
        return code
    tree = rewrite(tree, capture_last=False)
    rewritten: CodeType = compile(tree, filename, "exec", flags=flags, dont_inherit=True)
    return rewritten


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
