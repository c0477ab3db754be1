"""Objects the user handed to a run that stay on the host, and the guard on what the code does with them.

Why kept here and not copied: an instance of the user's class cannot be rebuilt in the worker without
unpickling (code that runs outside the guards, and the object's whole state, keys and sessions
included, carried into the sandbox); a copy would also lose its methods and its identity (what
a method changes, what `final_answer(record)` returns). So values that are not plain data (instances
of the user's classes, dataclasses, namedtuples, agent types such as `AgentAudio` and `AgentImage`)
are kept in a `HeldObjects` table, and the worker gets a handle (worker/host_objects.py). Plain data
(numbers, strings, containers, bytes, dates, numpy arrays, pandas frames, PIL images) crosses as
itself, by the typed codec, as before.

Each operation the code does on a handle arrives as an `object_call` frame from a worker that may be
hostile, so `serve` trusts none of it: the handle must be one this table gave out, the attribute name
a public identifier (no `_private`, no dunder, none of the sandbox's denied names: no frames,
globals, class graph), and what comes back is data or another handle, never a module, a class, or a
function of a module the sandbox refuses (`os.system` kept as an attribute). What the object's own
public methods do when called is the user's choice, as a tool's body is.
"""

from __future__ import annotations

import inspect
import itertools
import sys
import types
from collections.abc import Callable
from typing import Any

from smol_core.executors.worker.guards import attribute_refusal
from smol_core.executors.worker.host_objects import HostObject
from smol_core.executors.worker.module_policy import DANGEROUS_MODULES

__all__ = ["HeldObjects", "HostObjectRefusedError", "holder", "serve"]

MAX_HELD = 100_000
"""Objects one executor keeps for its code; past it, a call's object result is refused."""

ACTIONS = frozenset(
    {"get", "set", "call", "getitem", "setitem", "len", "contains", "iter", "bool", "str", "repr", "dir"}
)


_CLASS = "it is a class"


class HostObjectRefusedError(Exception):
    """The host's guard refused an operation on a held object; the code reads why."""


class HeldObjects:
    """The objects an executor handed to its code, by handle. Handles are never reused, so a handle
    the worker remembers from an earlier run can never name another object."""

    def __init__(self) -> None:
        self._by_handle: dict[int, Any] = {}
        self._by_id: dict[int, int] = {}
        self._next = itertools.count(1)

    def hold(self, value: Any) -> int:
        """The handle of `value`, the same for the same object while it is held."""
        handle = self._by_id.get(id(value))
        if handle is not None:
            return handle
        if len(self._by_handle) >= MAX_HELD:
            raise HostObjectRefusedError(f"the code holds more than {MAX_HELD} host objects already")
        handle = next(self._next)
        self._by_handle[handle] = value
        self._by_id[id(value)] = handle
        return handle

    def get(self, handle: int) -> Any:
        """The object of `handle`; KeyError for a handle this table never gave out."""
        return self._by_handle[handle]

    def __contains__(self, handle: object) -> bool:
        return type(handle) is int and handle in self._by_handle

    def clear(self) -> None:
        self._by_handle.clear()
        self._by_id.clear()


def holder(held: HeldObjects, by_user: bool = False) -> Callable[[Any], HostObject | None]:
    """The `hold` of `protocol.encode`: a handle (kept in `held`) to each value the codec cannot
    carry as data, or None where that value may not reach the code even as a handle (its repr
    crosses instead: a module, a function of a refused module).

    `by_user`: the user handed these values to the run (`additional_args`, smolagents' `state`), so
    a class among them is held too (`A.attr`, `A()`), as the user chose; a class a method returns
    is not (it would open the class graph of whatever module it came from)."""

    def hold(value: Any) -> HostObject | None:
        refusal = refusal_of_result(value)
        if refusal is not None and not (by_user and refusal == _CLASS):
            return None
        cls = type(value)
        name = value.__qualname__ if isinstance(value, type) else f"{cls.__module__}.{cls.__qualname__}"
        return HostObject(held.hold(value), name[:200])

    return hold


def refusal_of_name(name: Any) -> str | None:
    """Why the code may not read or set attribute `name` of a held object, or None."""
    if type(name) is not str or not name.isidentifier():
        return "an attribute name must be an identifier"
    if name.startswith("_"):
        return (
            f"'{name}' is private: private and dunder attributes of the objects you were given stay on "
            "the host"
        )
    return attribute_refusal(name)


def refusal_of_result(value: Any) -> str | None:
    """Why `value` (an attribute, a method's result) may not reach the code, even as a handle."""
    if isinstance(value, types.ModuleType):
        return "it is a module"
    if isinstance(value, type):
        return _CLASS
    if isinstance(value, types.FrameType | types.CodeType | types.TracebackType | types.CellType):
        return "it is interpreter internals"
    if type(value) is dict and _is_module_globals(value):
        return "it is a module's globals"
    if callable(value):
        owner = getattr(value, "__self__", None)
        if isinstance(owner, types.ModuleType):  # `os.system`, `builtins.eval`
            return f"it is a function of module '{owner.__name__}'"
        module = getattr(value, "__module__", None)
        bound_to_instance = inspect.ismethod(value) and not isinstance(owner, type)
        if type(module) is str and module.split(".")[0] in DANGEROUS_MODULES and not bound_to_instance:
            return f"it is a function of module '{module}'"  # `subprocess.run`, `shutil.rmtree`
    return None


def _is_module_globals(value: dict[Any, Any]) -> bool:
    name = value.get("__name__")
    module = sys.modules.get(name) if type(name) is str else None
    return module is not None and getattr(module, "__dict__", None) is value


def serve(
    held: HeldObjects, handle: int, action: str, name: str, args: list[Any], kwargs: dict[str, Any]
) -> tuple[str, Any]:
    """Do `action` on held object `handle`: ("value", result) or ("method", None) for a method read
    without calling it. Raises `HostObjectRefusedError`, or what the object itself raised."""
    if handle not in held:
        raise HostObjectRefusedError("no such object: the sandbox was never given it")
    if action not in ACTIONS:
        raise HostObjectRefusedError(f"unknown operation {action[:40]!r} on a host object")
    obj = held.get(handle)
    if action in ("get", "set") or (action == "call" and name):
        refusal = refusal_of_name(name)
        if refusal is not None:
            raise HostObjectRefusedError(
                f"'{type(obj).__name__}.{name[:100]}' is not available in the sandbox: {refusal}"
            )
    if action == "get":
        value = getattr(obj, name)
        if inspect.ismethod(value) and value.__self__ is obj:
            return "method", None
        return "value", _checked(obj, name, value)
    if action == "set":
        (new,) = args
        setattr(obj, name, new)
        return "value", None
    if action == "call":
        target = _checked(obj, name, getattr(obj, name)) if name else obj
        if not callable(target):
            raise TypeError(f"'{type(target).__name__}' object is not callable")
        return "value", _checked(obj, name or "()", target(*args, **kwargs))
    return "value", _checked(obj, action, _protocol_action(obj, action, args))


def _protocol_action(obj: Any, action: str, args: list[Any]) -> Any:
    if action == "getitem":
        return obj[args[0]]
    if action == "setitem":
        obj[args[0]] = args[1]
        return None
    if action == "len":
        return len(obj)
    if action == "contains":
        return args[0] in obj
    if action == "iter":
        return list(itertools.islice(iter(obj), MAX_HELD))
    if action == "bool":
        return bool(obj)
    if action == "str":
        return str(obj)
    if action == "repr":
        return repr(obj)
    return sorted(n for n in dir(obj) if not n.startswith("_"))  # dir


def _checked(obj: Any, name: str, value: Any) -> Any:
    refusal = refusal_of_result(value)
    if type(value) is dict and value is getattr(obj, "__dict__", None):
        refusal = "it is the object's private state (its __dict__)"
    if refusal is not None:
        raise HostObjectRefusedError(
            f"'{type(obj).__name__}.{name[:100]}' is not available in the sandbox: {refusal}, and "
            "modules, classes and system functions of the host stay there"
        )
    return value
