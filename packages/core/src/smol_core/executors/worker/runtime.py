"""The dynamic layer: guarded accessors and the curated builtins the code runs with.

Why both layers: the static checker sees `obj.attr` written in the code, but not `getattr(obj, s)`
with a computed string, `map(getattr, ...)` (CVE-2025-5120), `functools.partial(getattr, ...)` or
`"{0.__class__}".format(x)`. Those reach the functions here, which apply the same policy at run time.
Stdlib-only.
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable
from typing import Any

from .guards import GETATTR_NAME, MATCH_CHECK_NAME, attribute_refusal, format_string_refusal, is_dunder
from .policy import DENIED_BUILTINS, DENIED_METHOD_OWNERS, GETATTR_DUNDERS, PRIVATE_STATE_OWNERS
from .views import (
    Authorizer,
    ForbiddenImportError,
    ModuleView,
    SandboxViolation,
    private_attribute_refusal,
    real_module,
)

_real_getattr = builtins.getattr
_real_setattr = builtins.setattr
_real_delattr = builtins.delattr
_ModuleType = types.ModuleType


def _holds_worker_state(obj: Any) -> bool:
    """True for objects whose private state may hold the worker's descriptors or its channel.

    Why by owning module: an event loop's `_selector`, a task's `_loop`, a thread's `_target`, a
    file's raw descriptor or the worker's own objects are all reached through private attributes or
    `__dict__`, and code may legitimately read private attributes of its own objects.
    """
    owner = obj if isinstance(obj, type) else type(obj)
    module = _real_getattr(owner, "__module__", None)
    return type(module) is str and module.split(".")[0] in PRIVATE_STATE_OWNERS


def _check_format_string(fmt: str) -> None:
    """Refuse `{0.__class__}`-style traversal in str.format templates."""
    refusal = format_string_refusal(fmt)
    if refusal:
        raise SandboxViolation(refusal)


def _safe_format(template: Any) -> Callable[..., Any]:
    if isinstance(template, str):
        _check_format_string(template)
        return template.format

    def format_unbound(self: str, *args: Any, **kwargs: Any) -> str:
        _check_format_string(self)
        return str.format(self, *args, **kwargs)

    return format_unbound


def _safe_format_map(template: Any) -> Callable[..., Any]:
    if isinstance(template, str):
        _check_format_string(template)
        return template.format_map

    def format_map_unbound(self: str, mapping: Any) -> str:
        _check_format_string(self)
        return str.format_map(self, mapping)

    return format_map_unbound


def _check_private_state(obj: Any, name: str) -> None:
    if name.startswith("_") and not is_dunder(name) and _holds_worker_state(obj):
        raise SandboxViolation(
            f"access to private attribute '{name}' of {type(obj).__name__} objects is not allowed "
            "(event loops, threads, files and sockets keep the worker's internals there)"
        )


class Guards:
    """Accessors bound to one worker's authorizer."""

    def __init__(self, authorizer: Authorizer) -> None:
        self.auth = authorizer

    def check_name(self, obj: Any, name: Any, *, dynamic: bool) -> None:
        if type(name) is not str:
            raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
        refusal = attribute_refusal(name)
        if refusal:
            raise SandboxViolation(refusal)
        if dynamic and is_dunder(name) and name not in GETATTR_DUNDERS:
            raise SandboxViolation(
                f"getattr()/setattr()/hasattr() with the dunder name '{name}' is not allowed"
            )
        if name.startswith("_") and not is_dunder(name) and isinstance(obj, _ModuleType):
            raise SandboxViolation(private_attribute_refusal(real_module(obj), name))
        _check_private_state(obj, name)

    def getattr(self, obj: Any, name: Any, *default: Any) -> Any:
        """The `getattr` builtin of the sandbox, also the target of rewritten attribute loads."""
        self.check_name(obj, name, dynamic=True)
        return self._get(obj, name, default)

    def attr(self, obj: Any, name: str) -> Any:
        """Rewritten `obj._x`, `obj.format`, `obj.__dict__`: the static check already ran."""
        if name.startswith("_") and not is_dunder(name) and isinstance(obj, _ModuleType):
            raise SandboxViolation(private_attribute_refusal(real_module(obj), name))
        _check_private_state(obj, name)
        return self._get(obj, name, ())

    def _get(self, obj: Any, name: str, default: tuple[Any, ...]) -> Any:
        if name == "format":
            if isinstance(obj, str) or (isinstance(obj, type) and issubclass(obj, str)):
                return _safe_format(obj)
        elif name == "format_map":
            if isinstance(obj, str) or (isinstance(obj, type) and issubclass(obj, str)):
                return _safe_format_map(obj)
        elif name == "__dict__":
            return self._dict_of(obj)
        elif name == "__setattr__":
            return self._guarded_setattr_method(_real_getattr(obj, name))
        elif name in ("tofile", "dump", "to_pickle", "read_pickle"):
            owner = type(obj).__module__ if not isinstance(obj, type) else obj.__module__
            if owner.split(".")[0] in DENIED_METHOD_OWNERS:
                raise SandboxViolation(f"'{name}' is not allowed in the sandbox (file or pickle access)")
        value = _real_getattr(obj, name, *default)
        if isinstance(value, _ModuleType) and not isinstance(value, ModuleView):
            value = self.auth.view(value, via=f"{type(obj).__name__}.{name}")
        return value

    def _guarded_setattr_method(self, method: Any) -> Callable[..., None]:
        def setattr_checked(*args: Any) -> None:
            if len(args) >= 2:
                target = args[0] if len(args) == 3 else None
                self.check_name(target, args[-2], dynamic=True)
                if isinstance(target, type | _ModuleType) and str(args[-2]).startswith("_"):
                    raise SandboxViolation("setting private attributes of classes or modules is not allowed")
            method(*args)

        return setattr_checked

    def match_class(self, cls: Any) -> Any:
        """Check a class used with positional sub-patterns: its `__match_args__` names are read from C."""
        if not isinstance(cls, type):
            return cls
        for klass in _real_getattr(type(cls), "__mro__"):
            if klass is not type and klass is not object and "__match_args__" in klass.__dict__:
                raise SandboxViolation(
                    "a metaclass defining __match_args__ cannot be used in a class pattern"
                )
        names = _real_getattr(cls, "__match_args__", ())
        if type(names) is tuple:
            for name in names:
                if type(name) is str and (attribute_refusal(name) or name.startswith("_")):
                    raise SandboxViolation(
                        f"__match_args__ of {cls.__name__} names '{name}', which is not allowed"
                    )
        return cls

    def _dict_of(self, obj: Any) -> Any:
        if isinstance(obj, type | _ModuleType):
            raise SandboxViolation(
                "Forbidden access to dunder attribute: __dict__ (of classes and modules it is not "
                "available; use dir(), or vars() on instances)"
            )
        if _holds_worker_state(obj):
            raise SandboxViolation(
                f"'__dict__' of {type(obj).__name__} objects is not available (it holds the worker's internals)"
            )
        d = _real_getattr(obj, "__dict__")
        if any(isinstance(v, _ModuleType) for v in d.values()):
            raise SandboxViolation("this object's '__dict__' holds modules and is not available")
        return d

    def setattr(self, obj: Any, name: Any, value: Any) -> None:
        self.check_name(obj, name, dynamic=True)
        if isinstance(obj, _ModuleType | type) and name.startswith("_"):
            raise SandboxViolation(f"setting private attribute '{name}' of a module or class is not allowed")
        _real_setattr(obj, name, value)

    def delattr(self, obj: Any, name: Any) -> None:
        self.check_name(obj, name, dynamic=True)
        _real_delattr(obj, name)

    def hasattr(self, obj: Any, name: Any) -> bool:
        try:
            self.getattr(obj, name)
        except (AttributeError, SandboxViolation):
            return False
        return True

    def vars(self, *args: Any) -> Any:
        if not args:
            raise SandboxViolation("vars() without an argument is not available (it exposes the namespace)")
        (obj,) = args
        return self._dict_of(obj)

    def import_(
        self, name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if level:
            raise ForbiddenImportError("relative imports are not allowed")
        if type(name) is not str:
            raise TypeError("module name must be a string")
        if type(fromlist) is list and not fromlist and self.auth.owns_internal(name):
            # The C API's import (PyImport_Import: `fromlist` is an empty list, never what an import
            # statement passes), made by an authorized package's C code while the code's frame is on
            # top: `np.arange(4).sum()` loading `numpy._core._methods`. The package imports its own
            # module; the caller discards what `__import__` returns and reads `sys.modules`, so the
            # code is handed nothing (None), and its own imports of private modules stay refused.
            self.auth.import_internal(name)
            return None
        if fromlist or "." not in name:
            return self.auth.import_module(name)
        return self.auth.package_path(name)  # `import a.b` binds `a`, as CPython's __import__ does


def _blocked(name: str) -> Callable[..., Any]:
    def blocked(*args: Any, **kwargs: Any) -> Any:
        raise SandboxViolation(f"{name}() is not available in the sandbox")

    blocked.__name__ = name
    return blocked


def make_builtins(guards: Guards, print_fn: Callable[..., None]) -> dict[str, Any]:
    """The curated builtins dict the code's namespace points at."""
    out: dict[str, Any] = {}
    for name in dir(builtins):
        if name in DENIED_BUILTINS or (name.startswith("_") and name != "__build_class__"):
            continue
        out[name] = _real_getattr(builtins, name)
    for name in (
        "open",
        "eval",
        "exec",
        "compile",
        "breakpoint",
        "input",
        "globals",
        "locals",
        "exit",
        "quit",
        "help",
    ):
        out[name] = _blocked(name)
    out.update(
        __import__=guards.import_,
        __name__="builtins",
        getattr=guards.getattr,
        setattr=guards.setattr,
        delattr=guards.delattr,
        hasattr=guards.hasattr,
        vars=guards.vars,
        print=print_fn,
    )
    out[GETATTR_NAME] = guards.attr
    out[MATCH_CHECK_NAME] = guards.match_class
    return out
