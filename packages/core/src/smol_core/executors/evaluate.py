"""smolagents' functional interpreter API, `evaluate_python_code`, run by smol's sandbox.

smolagents evaluates code by walking its AST in the host process. smol runs it as real CPython in the
sandboxed worker of the local executor (executors/worker/), so this module is a thin layer over that
path, never an interpreter of its own:

- the `state` dict's values go into the worker as `send_variables` sends them, the code runs there,
  and the namespace comes back through the protocol's typed encoding (never unpickled): numbers,
  strings, containers, numpy arrays, pandas frames and the like come back as themselves;
- tools (`static_tools`, `custom_tools`, `BASE_PYTHON_TOOLS`) are callables the sandbox reaches as
  it reaches an agent's tools: host functions through the tool channel, while builtins and `math`
  functions run inside the sandbox (a builtin passed as a tool is the sandbox's own curated one, so
  passing `eval` or `getattr` grants nothing the sandbox refuses);
- errors are raised as `InterpreterError` with smolagents' wording where users match on it
  ("Code execution failed at line '...' due to: ...", "Forbidden function evaluation", ...).

What cannot be the same, and why:
- Objects that live only in the sandbox (functions, classes and instances the code defined,
  generators, modules) cannot come back to the host: that would mean unpickling what the sandbox
  made. They come back as `UnserializableValue` (their repr), and are not sent back in by a later
  call with the same `state`.
- smol counts no operations: `state["_operations_count"]` is not kept, and `MAX_OPERATIONS` /
  `MAX_WHILE_ITERATIONS` change nothing; an action is bounded by its time and memory limits.
- The sandbox's builtins are available whether or not a tool table lists them (they are the
  sandbox's policy, not the table's), and the sandbox's own refusals apply (`os` is never granted
  by `"*"`, dangerous builtins stay refused even when passed as tools).
- Errors raised inside the code are real CPython errors, so their messages are CPython's.

Workers are pooled by (authorized imports, time limit) and reset between calls, so a call costs a
reset and a few messages, not a process start.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import sys
import threading
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from smol_core.executors.base import (
    BASE_BUILTIN_MODULES,
    STATE_LOST,
    ExecutionTimeoutError,
    InterpreterError,
    ProtocolViolationError,
)
from smol_core.executors.evaluate_failures import (
    Failure,
    failure_detail,
    read_failure,
    smolagents_detail,
    statement_at,
)
from smol_core.executors.host.driver import sandbox_builtin_name
from smol_core.executors.local import LocalPythonExecutor
from smol_core.executors.smolagents_support import (
    DEFAULT_MAX_LEN_OUTPUT,
    MAX_EXECUTION_TIME_SECONDS,
    PrintContainer,
    custom_print,
    nodunder_getattr,
)
from smol_core.executors.worker.module_policy import DENIED_MODULE_ATTRIBUTES
from smol_core.executors.worker.protocol import UnserializableValue
from smol_core.executors.worker.views import Authorizer

__all__ = [
    "evaluate_ast",
    "evaluate_boolop",
    "evaluate_condition",
    "evaluate_delete",
    "evaluate_python_code",
    "evaluate_subscript",
]

_STATE_KEYS = ("_print_outputs", "_operations_count")
_SANDBOX_MODULES = frozenset({"math", "cmath"})
"""Modules whose functions, passed as tools, are bound in the sandbox whatever the code may import:
pure functions smolagents' `BASE_PYTHON_TOOLS` lists (`ceil`, `sqrt`, ...)."""


class _EvaluateExecutor(LocalPythonExecutor):
    """A local executor whose authorized imports are exactly those given (smolagents'
    `authorized_imports`), not the base modules plus them, and that does not check installation:
    `evaluate_python_code` fails on the import, as smolagents does."""

    def __init__(self, authorized_imports: list[str], timeout_seconds: float | None) -> None:
        self._exact_imports = sorted(set(authorized_imports))
        super().__init__(list(authorized_imports), timeout_seconds=timeout_seconds)
        self.authorized_imports = self._exact_imports

    def _check_authorized_imports_are_installed(self) -> None:
        return None

    def common_worker_config(self) -> dict[str, Any]:
        return {**super().common_worker_config(), "authorized_imports": self._exact_imports}


class _Pool:
    """Idle executors by (authorized imports, time limit); each call borrows one and resets it."""

    max_idle = 8

    def __init__(self) -> None:
        self._idle: dict[tuple[tuple[str, ...], float | None], list[_EvaluateExecutor]] = {}
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def borrow(
        self, authorized_imports: list[str], timeout_seconds: float | None
    ) -> Iterator[_EvaluateExecutor]:
        key = (tuple(sorted(set(authorized_imports))), timeout_seconds)
        with self._lock:
            free = self._idle.get(key)
            executor = free.pop() if free else None
        if executor is None:
            executor = _EvaluateExecutor(list(key[0]), timeout_seconds)
        else:
            executor.reset()
        try:
            yield executor
        except BaseException:
            executor.close()  # a failure of the host's making: the worker is not trusted to be reusable
            raise
        with self._lock:
            if sum(len(v) for v in self._idle.values()) < self.max_idle:
                self._idle.setdefault(key, []).append(executor)
                return
        executor.close()


_POOL = _Pool()


@dataclass
class _Tools:
    """A tool table split by where each tool runs (see `_split_tools`)."""

    host: dict[str, Callable[..., Any]] = field(default_factory=dict)
    builtins: dict[str, str] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)


def _split_tools(tools: dict[str, Any], authorized_imports: list[str]) -> _Tools:
    """Where each tool runs: in the sandbox when it is a builtin or a function of a module the code may
    use (so `print` writes to the logs, `isinstance(x, int)` sees the sandbox's `int`), on the host
    otherwise (the user's own functions, `final_answer`)."""
    out = _Tools()
    for name, fn in tools.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise InterpreterError(f"tool name {name!r} is not a Python identifier")
        builtin = _builtin_name(fn)
        if name != "final_answer" and builtin is not None:
            out.builtins[name] = builtin
        elif name != "final_answer" and _runs_in_sandbox(fn, authorized_imports):
            out.values[name] = fn
        else:
            out.host[name] = fn
    return out


def _builtin_name(fn: Any) -> str | None:
    if fn is custom_print:
        return "print"
    if fn is nodunder_getattr:
        return "getattr"
    return sandbox_builtin_name(fn)


def _runs_in_sandbox(fn: Any, authorized_imports: list[str]) -> bool:
    """A builtin function or class of `math`, or of a module the sandbox would give the code (its own
    rules: a dangerous module named exactly, never through `"*"`; none of its refused attributes),
    reached by its name."""
    if not isinstance(fn, types.BuiltinFunctionType | type):
        return False
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or module not in sys.modules:
        return False
    if qualname.split(".")[0] in DENIED_MODULE_ATTRIBUTES.get(module.split(".")[0], frozenset()):
        return False
    if module not in _SANDBOX_MODULES and Authorizer(authorized_imports, {}).refusal(module) is not None:
        return False
    found: Any = sys.modules[module]
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found is fn


@dataclass
class _Outcome:
    value: Any = None
    is_final_answer: bool = False
    failure: Failure | None = None
    logs: str = ""


def _run(
    code: str,
    state: dict[str, Any],
    static_tools: dict[str, Any],
    custom_tools: dict[str, Any],
    authorized_imports: list[str],
    max_print_outputs_length: int,
    timeout_seconds: float | None,
) -> _Outcome:
    """Run `code` in a pooled sandbox with `state`'s values and these tools; write the namespace back."""
    tools = {**custom_tools, **static_tools}
    table = _split_tools(tools, authorized_imports)
    sent = {
        name: value
        for name, value in state.items()
        if isinstance(name, str)
        and name.isidentifier()
        and not name.startswith("__")
        and name not in _STATE_KEYS
        and name not in tools
        and name != "final_answer"
        and not isinstance(value, UnserializableValue)
    }
    outcome = _Outcome()
    with _POOL.borrow(authorized_imports, timeout_seconds) as executor:
        executor.max_print_outputs_length = max_print_outputs_length
        executor.replace_tools(
            table.host,
            table.builtins,
            table.values,
            rebindable=frozenset(set(custom_tools) - set(static_tools)),
        )
        if sent:
            executor.send_variables(sent)
        try:
            output = executor(code)
        except (ExecutionTimeoutError, ProtocolViolationError):
            raise  # the worker was killed: the namespace went with it, `state` stays as it was
        except InterpreterError as exc:
            if STATE_LOST in str(exc):
                raise  # the worker died (out of memory, killed): the same
            outcome.failure = read_failure(str(exc))
            outcome.logs = exc.logs
        else:
            outcome.value, outcome.is_final_answer, outcome.logs = (
                output.output,
                output.is_final_answer,
                output.logs,
            )
        namespace = executor.namespace()
    for name in sent:
        if name not in namespace:
            del state[name]  # the code deleted it
    state.update(namespace)
    return outcome


def _parse(code: str) -> ast.Module:
    try:
        return ast.parse(code)
    except SyntaxError as e:
        raise InterpreterError(
            f"Code parsing failed on line {e.lineno} due to: {type(e).__name__}: {e}\n"
            f"{e.text}{' ' * (e.offset or 0)}^"
        ) from None


def _print_outputs(state: dict[str, Any], logs: str, max_length: int) -> None:
    printed = PrintContainer()
    if len(logs) > max_length:
        half = max_length // 2
        logs = (
            logs[:half]
            + f"\n..._This content has been truncated to stay below {max_length} characters_...\n"
            + logs[-half:]
        )
    printed.value = logs
    state["_print_outputs"] = printed


def evaluate_python_code(
    code: str,
    static_tools: dict[str, Callable[..., Any]] | None = None,
    custom_tools: dict[str, Callable[..., Any]] | None = None,
    state: dict[str, Any] | None = None,
    authorized_imports: list[str] = BASE_BUILTIN_MODULES,
    max_print_outputs_length: int = DEFAULT_MAX_LEN_OUTPUT,
    timeout_seconds: float | None = MAX_EXECUTION_TIME_SECONDS,
) -> tuple[Any, bool]:
    """Run `code` in the sandbox and return `(value, is_final_answer)`, as smolagents' function does.

    value: the value of the last statement (an expression, an assignment, the last value a final
        `for`/`if` body gave), or what `final_answer(...)` was called with (then `is_final_answer`).
    static_tools: callables the code may call and may not rebind ("Cannot assign to name ...").
    custom_tools: callables the code may call and may rebind.
    state: variables the code starts with; updated with the namespace the code left (values the
        protocol carries come back as themselves, others as their repr), and `_print_outputs` (a
        `PrintContainer` of what the code printed).
    authorized_imports: exactly the modules the code may import (smolagents' rule; the sandbox's
        dangerous modules must still be named exactly).
    timeout_seconds: the worker is killed past it (`ExecutionTimeoutError`); None for no limit.

    Raises `InterpreterError` for code that fails or is refused, worded as in smolagents ("Code
    execution failed at line '...' due to: ..."). See the module docstring for what differs.
    """
    tree = _parse(code)
    state = {} if state is None else state
    try:
        outcome = _run(
            code,
            state,
            dict(static_tools or {}),
            dict(custom_tools or {}),
            list(authorized_imports),
            max_print_outputs_length,
            timeout_seconds,
        )
    except InterpreterError as exc:  # the worker was lost: what it printed before is still shown
        _print_outputs(state, exc.logs, max_print_outputs_length)
        raise
    _print_outputs(state, outcome.logs, max_print_outputs_length)
    failure = outcome.failure
    if failure is None:
        return outcome.value, outcome.is_final_answer
    if failure.lineno is None:
        raise InterpreterError(failure.message)
    node = statement_at(tree, code, failure)
    segment = ast.get_source_segment(code, node) if node is not None else None
    detail = failure_detail(failure, node, state)
    raise InterpreterError(f"Code execution failed at line '{segment}' due to: {detail}")


def evaluate_ast(
    expression: ast.AST,
    state: dict[str, Any],
    static_tools: dict[str, Callable[..., Any]],
    custom_tools: dict[str, Callable[..., Any]],
    authorized_imports: list[str] = BASE_BUILTIN_MODULES,
) -> Any:
    """Evaluate one AST node (a statement or an expression) in the sandbox, with `state` (updated).

    smolagents' node-level entry point. The node runs as the code it unparses to, through the same
    path as `evaluate_python_code`; an exception it raises is raised again here as the builtin
    exception of the same type (other types as `InterpreterError`), without the line wrapping.
    """
    code = _node_source(expression)
    outcome = _run(
        code,
        state,
        dict(static_tools),
        dict(custom_tools),
        list(authorized_imports),
        DEFAULT_MAX_LEN_OUTPUT,
        None,
    )
    state.pop("_print_outputs", None)
    if outcome.failure is not None:
        raise _as_exception(outcome.failure, expression)
    return outcome.value


def _node_source(node: ast.AST) -> str:
    if isinstance(node, ast.expr):
        return ast.unparse(ast.Expression(body=node))
    if isinstance(node, ast.stmt):
        return ast.unparse(ast.Module(body=[node], type_ignores=[]))
    raise InterpreterError(f"{type(node).__name__} is not supported.")


def _as_exception(failure: Failure, node: ast.AST) -> Exception:
    detail = smolagents_detail(failure, node)
    if detail.startswith("InterpreterError: "):
        return InterpreterError(detail.removeprefix("InterpreterError: "))
    error_type = getattr(builtins, failure.type_name or "", None)
    if isinstance(error_type, type) and issubclass(error_type, Exception):
        with contextlib.suppress(Exception):
            return error_type(failure.text)
    return InterpreterError(failure.detail)


def evaluate_boolop(
    node: ast.BoolOp,
    state: dict[str, Any],
    static_tools: dict[str, Callable[..., Any]],
    custom_tools: dict[str, Callable[..., Any]],
    authorized_imports: list[str],
) -> Any:
    """`a and b`, `a or b` with short-circuit, evaluated in the sandbox (see `evaluate_ast`)."""
    return evaluate_ast(node, state, static_tools, custom_tools, authorized_imports)


def evaluate_condition(
    condition: ast.Compare,
    state: dict[str, Any],
    static_tools: dict[str, Callable[..., Any]],
    custom_tools: dict[str, Callable[..., Any]],
    authorized_imports: list[str],
) -> Any:
    """A comparison (chained ones too), evaluated in the sandbox (see `evaluate_ast`)."""
    return evaluate_ast(condition, state, static_tools, custom_tools, authorized_imports)


def evaluate_delete(
    delete_node: ast.Delete,
    state: dict[str, Any],
    static_tools: dict[str, Callable[..., Any]],
    custom_tools: dict[str, Callable[..., Any]],
    authorized_imports: list[str],
) -> None:
    """`del x`, `del x[k]` in the sandbox; `state` loses the name or the item. A missing name raises
    "Cannot delete name 'x': name is not defined", a missing key "Cannot delete index/key: ..."."""
    evaluate_ast(delete_node, state, static_tools, custom_tools, authorized_imports)


def evaluate_subscript(
    subscript: ast.Subscript,
    state: dict[str, Any],
    static_tools: dict[str, Callable[..., Any]],
    custom_tools: dict[str, Callable[..., Any]],
    authorized_imports: list[str],
) -> Any:
    """`value[index]` in the sandbox. A KeyError, IndexError or TypeError raises smolagents'
    `InterpreterError("Could not index <value> with '<index>': <error>")`."""
    before = dict(state)
    try:
        return evaluate_ast(subscript, state, static_tools, custom_tools, authorized_imports)
    except (KeyError, IndexError, TypeError) as exc:
        value = evaluate_ast(subscript.value, dict(before), static_tools, custom_tools, authorized_imports)
        index = evaluate_ast(subscript.slice, dict(before), static_tools, custom_tools, authorized_imports)
        message = str(exc) if not isinstance(exc, KeyError) else exc.args[0] if exc.args else ""
        raise InterpreterError(
            f"Could not index {value} with '{index}': {type(exc).__name__}: {message}"
        ) from None
