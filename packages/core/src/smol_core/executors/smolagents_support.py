"""smolagents' helper names around its interpreter, as plain, documented values of smol.

Why a module of its own: code written for smolagents imports these from
`smolagents.local_python_executor` (and `BASE_PYTHON_TOOLS` from `smolagents.default_tools`), so
they exist in smol with the same meaning where smol has one, and say so where smol has none: smol
runs real CPython in a sandboxed worker (executors/worker/), so there is no operation counter to bound
and no AST walk whose dunder calls a list allows. Those constants are kept so that code setting
them (or `mock.patch`-ing them) still runs; the docstring of each says what smol does instead.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, TimeoutError as FuturesTimeoutError
from functools import wraps
from types import ModuleType
from typing import Any, ParamSpec, TypeVar

from smol_core.executors.base import ExecutionTimeoutError, InterpreterError

__all__ = [
    "ALLOWED_DUNDER_METHODS",
    "BASE_PYTHON_TOOLS",
    "DANGEROUS_FUNCTIONS",
    "DANGEROUS_MODULES",
    "DEFAULT_MAX_LEN_OUTPUT",
    "MAX_EXECUTION_TIME_SECONDS",
    "MAX_OPERATIONS",
    "MAX_WHILE_ITERATIONS",
    "PrintContainer",
    "check_import_authorized",
    "custom_print",
    "fix_final_answer_code",
    "get_safe_module",
    "nodunder_getattr",
    "timeout",
]

logger = logging.getLogger(__name__)

DEFAULT_MAX_LEN_OUTPUT = 50_000
"""Characters of printed output `evaluate_python_code` keeps by default, as in smolagents."""
MAX_EXECUTION_TIME_SECONDS = 30
"""`evaluate_python_code`'s default time limit, as in smolagents: past it the worker is killed."""
MAX_OPERATIONS = 10_000_000
"""smolagents' bound on AST nodes evaluated. smol runs compiled CPython and counts no operations: an
action is bounded by its time limit (`timeout_seconds`, enforced by killing the worker) and its
memory limit instead. Kept so that code reading or patching it runs; it changes nothing."""
MAX_WHILE_ITERATIONS = 1_000_000
"""smolagents' bound on one `while` loop's iterations. smol does not count iterations (the loop is
real bytecode); a loop that never ends is stopped by the time limit. Kept for code that sets it."""
ALLOWED_DUNDER_METHODS = ["__init__", "__str__", "__repr__"]
"""The dunder methods smolagents' AST walker lets code call. smol's sandbox decides dunder access
with its own allow-list (executors/worker/policy.py), checked on the compiled code; this list is
not consulted and is kept for code that reads or patches it."""

DANGEROUS_MODULES = [
    "builtins",
    "io",
    "multiprocessing",
    "os",
    "pathlib",
    "pty",
    "shutil",
    "socket",
    "subprocess",
    "sys",
]
"""smolagents' list of modules it never hands out through another module. smol's own, longer list is
`executors/worker/module_policy.DANGEROUS_MODULES`: those are never granted by a pattern such as `"*"`."""

DANGEROUS_FUNCTIONS = [
    "builtins.compile",
    "builtins.eval",
    "builtins.exec",
    "builtins.globals",
    "builtins.locals",
    "builtins.__import__",
    "os.popen",
    "os.system",
    "posix.system",
]
"""Functions smolagents refuses to hand the code. In smol's sandbox the first six are replaced by
stand-ins that refuse (or by the guarded import), and `os`/`posix` are reduced views without them."""


def custom_print(*args: Any) -> None:
    """smolagents' `print` entry of `BASE_PYTHON_TOOLS`: a marker. Passed as a tool, it stands for the
    sandbox's own `print`, which writes to the action's logs (`state["_print_outputs"]`)."""
    return None


def nodunder_getattr(obj: Any, name: str, default: Any = None) -> Any:
    """smolagents' `getattr` for the code: dunder names refused. Passed as a tool, it stands for the
    sandbox's guarded `getattr`, which applies the same attribute policy as `obj.name`."""
    if name.startswith("__") and name.endswith("__"):
        raise InterpreterError(f"Forbidden access to dunder attribute: {name}")
    return getattr(obj, name, default)


BASE_PYTHON_TOOLS: dict[str, Callable[..., Any]] = {
    "print": custom_print,
    "isinstance": isinstance,
    "range": range,
    "float": float,
    "int": int,
    "bool": bool,
    "str": str,
    "set": set,
    "list": list,
    "dict": dict,
    "tuple": tuple,
    "round": round,
    "ceil": math.ceil,
    "floor": math.floor,
    "log": math.log,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "atan2": math.atan2,
    "degrees": math.degrees,
    "radians": math.radians,
    "pow": pow,
    "sqrt": math.sqrt,
    "len": len,
    "sum": sum,
    "max": max,
    "min": min,
    "abs": abs,
    "enumerate": enumerate,
    "zip": zip,
    "reversed": reversed,
    "sorted": sorted,
    "all": all,
    "any": any,
    "map": map,
    "filter": filter,
    "ord": ord,
    "chr": chr,
    "next": next,
    "iter": iter,
    "divmod": divmod,
    "callable": callable,
    "getattr": nodunder_getattr,
    "hasattr": hasattr,
    "setattr": setattr,
    "issubclass": issubclass,
    "type": type,
    "complex": complex,
}
"""smolagents' table of Python functions for `evaluate_python_code(code, BASE_PYTHON_TOOLS)`.

In smol these run inside the sandbox, never on the host: builtins stand for the sandbox's own
(curated and guarded) builtins of the same name, and the `math` functions are bound in the sandbox as
the code's own values. The sandbox's builtins are there whether or not the table is passed."""


class PrintContainer:
    """What the code printed, as `evaluate_python_code` leaves it in `state["_print_outputs"]`."""

    def __init__(self) -> None:
        self.value = ""

    def append(self, text: str) -> PrintContainer:
        self.value += text
        return self

    def __iadd__(self, other: object) -> PrintContainer:
        self.value += str(other)
        return self

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"PrintContainer({self.value})"

    def __len__(self) -> int:
        return len(self.value)


P = ParamSpec("P")
R = TypeVar("R")


def timeout(timeout_seconds: float) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator: the call raises `ExecutionTimeoutError` past `timeout_seconds` (smolagents' helper).

    The call runs in a thread, so this works from any thread; the thread cannot be stopped and runs
    on to its end. smol's executors do not use it: they kill the worker process at the deadline.
    """

    def decorator(func: Callable[P, R]) -> Callable[P, R]:
        @wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            pool = ThreadPoolExecutor(max_workers=1)
            try:
                future = pool.submit(func, *args, **kwargs)
                try:
                    return future.result(timeout=timeout_seconds)
                except FuturesTimeoutError:
                    raise ExecutionTimeoutError(
                        f"Code execution exceeded the maximum execution time of {timeout_seconds} seconds"
                    ) from None
            finally:
                pool.shutdown(wait=False)

        return wrapper

    return decorator


def _import_tree(authorized_imports: list[str]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for path in authorized_imports:
        node = tree
        for part in path.split("."):
            node = node.setdefault(part, {})
    return tree


def check_import_authorized(import_to_check: str, authorized_imports: list[str]) -> bool:
    """smolagents' rule: a module is authorized when it, a package above it with `.*`, or `*` is listed;
    listing `a.b` authorizes `a` too (as a path to `a.b`).

    smol's sandbox applies this rule and more (executors/worker/views.py): dangerous modules must be
    named exactly, `*` never grants them, and private submodules are never granted by a pattern.
    """
    node = _import_tree(authorized_imports)
    for part in import_to_check.split("."):
        if "*" in node:
            return True
        if part not in node:
            return False
        node = node[part]
    return True


def fix_final_answer_code(code: str) -> str:
    """Rename variables called `final_answer` to `final_answer_variable`, leaving calls alone.

    Why: a model sometimes assigns `final_answer = ...` and then calls `final_answer(...)`, which would
    call its value. As in smolagents, code that does not call `final_answer(` is left unchanged.
    """
    if "final_answer(" not in code or not _FINAL_ANSWER_ASSIGNED.search(code):
        return code
    code = _FINAL_ANSWER_ASSIGNMENT.sub(r"final_answer_variable\2", code)
    return _FINAL_ANSWER_NOT_CALLED.sub("final_answer_variable", code)


# compiled once, at import (a team's agents import this in their fork server): compiled at first
# use, each agent process paid about a millisecond for them
_FINAL_ANSWER_ASSIGNED = re.compile(r"(?<!\.)(?<!\w)\bfinal_answer\s*=")
_FINAL_ANSWER_ASSIGNMENT = re.compile(r"(?<!\.)(?<!\w)(\bfinal_answer)(\s*=)")
_FINAL_ANSWER_NOT_CALLED = re.compile(r"(?<!\.)(?<!\w)(\bfinal_answer\b)(?!\s*\()")


def get_safe_module(raw_module: Any, authorized_imports: Any, visited: set[int] | None = None) -> Any:
    """A shallow copy of a module whose submodules are copied the same way (smolagents' helper).

    Attributes that fail to load (lazy modules raising ImportError or AttributeError) are skipped.
    smol's sandbox does not use it: it hands out filtered views (executors/worker/views.py).
    """
    if not isinstance(raw_module, ModuleType):
        return raw_module
    visited = set() if visited is None else visited
    if id(raw_module) in visited:
        return raw_module
    visited.add(id(raw_module))
    safe = ModuleType(raw_module.__name__)
    for name in dir(raw_module):
        try:
            value = getattr(raw_module, name)
        except (ImportError, AttributeError) as exc:
            logger.info("Skipping %s.%s: %s - %s", raw_module.__name__, name, type(exc).__name__, exc)
            continue
        if isinstance(value, ModuleType):
            value = get_safe_module(value, authorized_imports, visited)
        setattr(safe, name, value)
    return safe
