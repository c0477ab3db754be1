"""Modules as the code sees them: filtered copies that never hand out an unauthorized module.

Why copies: a view is a real module object whose namespace holds only the public names of the real
module, so `math.sqrt` is a plain, native-speed lookup; anything not copied (private names, submodules,
denied functions) goes through `ModuleView.__getattr__`, which checks it. Powerful modules a user
authorizes by name (`sys`, `os`, `importlib`, `io`) and `asyncio` get hand-written reduced views.
Stdlib-only.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

from .module_policy import DANGEROUS_MODULES, DENIED_MODULE_ATTRIBUTES, SAFE_PRIVATE_MODULES
from .star_grant import star_refusal

_KEEP_DUNDERS = ("__name__", "__doc__", "__version__", "__all__")


class SandboxViolation(Exception):
    """A blocked operation at run time. The message says what was blocked and why."""


class SandboxPermissionError(SandboxViolation, PermissionError):
    """A blocked file operation: also a PermissionError, so code (and the import system) can handle it."""


class ForbiddenImportError(ImportError):
    """An import outside the allow-list."""


class ModuleView(types.ModuleType):
    """A filtered copy of a module; misses are resolved (and checked) lazily."""

    def __getattr__(self, name: str) -> Any:
        return _resolve_missing(self, name)

    def __repr__(self) -> str:
        """Not the module type's repr, which reads `__spec__` and `__file__` (refused names here)."""
        return f"<module '{self.__name__}' (the sandbox's view)>"


_REAL: dict[int, types.ModuleType] = {}  # id(view) -> real module, kept out of the code's reach


class Authorizer:
    """Decides which modules the code may hold, and builds (and caches) their views."""

    def __init__(
        self, authorized: Iterable[str], special: dict[str, Callable[[Authorizer], ModuleView]]
    ) -> None:
        self.authorized = sorted(set(authorized))
        self._exact = set(self.authorized)
        self._special = special
        self._views: dict[str, ModuleView] = {}
        self._paths: dict[str, ModuleView] = {}  # unauthorized packages bound only as a path
        self.handed: set[str] = set()
        """Packages whose values the host handed to the code (numpy for an array): their methods may
        load the package's own private modules, though the code may not import the package."""

    # --- the decision ----------------------------------------------------------------------
    def refusal(self, name: str) -> str | None:
        """Why module `name` may not be handed out, or None."""
        parts = name.split(".")
        prefixes = [".".join(parts[: i + 1]) for i in range(len(parts))]
        if name in self._special and (
            name in self._exact or name in ("asyncio", "__future__") or self._exact.intersection(prefixes)
        ):
            return None  # a hand-written view, named or under a named package (`os` grants `os.path`)
        dangerous = next((p for p in prefixes if p in DANGEROUS_MODULES), None)
        if dangerous is not None:
            if name in self._exact or any(f"{p}.*" in self._exact for p in prefixes[:-1] if p == dangerous):
                return None
            return (
                "it gives access to the host (files, processes, interpreter internals) and is only "
                "available when named exactly in additional_authorized_imports"
            )
        if name in self._exact:
            return None
        private = next((p for p in parts if _is_private(p)), None)
        if private is not None and not (len(parts) == 1 and name in SAFE_PRIVATE_MODULES):
            return (
                f"'{private}' is private: CPython's and packages' private modules are never granted by "
                "a pattern (a package imports its own when it needs them); name it exactly in "
                "additional_authorized_imports if you really mean it"
            )
        star = star_refusal(name) if "*" in self._exact else None  # reviewed stdlib modules only
        if "*" in self._exact and star is None:
            return None
        if any(p in self._exact or f"{p}.*" in self._exact for p in prefixes[:-1]):
            return None
        if f"{name}.*" in self._exact:  # `numpy.*` grants `numpy` itself, as in smolagents
            return None
        if name == "__future__":
            return None
        return (
            star
            or f"allowed: {', '.join(self.authorized) or '(none)'}; add it to additional_authorized_imports"
        )

    def owns_internal(self, name: str) -> bool:
        """Whether `name` is a module the code may not import but an authorized package may load for
        itself: refused only as private, inside a package the code was given (`numpy._core._methods`
        where `numpy`, `numpy.*` or `numpy.random` is authorized, or where the host handed the code a
        numpy array: `arr.sum()` loads it). Never a dangerous module."""
        top = name.split(".")[0]
        if "." not in name or self.refusal(name) is None or top in DANGEROUS_MODULES:
            return False
        if not any(_is_private(part) for part in name.split(".")[1:]):
            return False
        return (
            self.refusal(top) is None
            or top in self.handed
            or any(a.startswith(top + ".") for a in self._exact)
        )

    def import_internal(self, name: str) -> None:
        """Load an authorized package's own module (see `owns_internal`); nothing is returned to the code."""
        importlib.import_module(name)

    # --- views -----------------------------------------------------------------------------
    def view(self, module: types.ModuleType, via: str | None = None) -> ModuleView:
        """The view of a real module (or raise SandboxViolation)."""
        if isinstance(module, ModuleView):
            return module
        name = module.__name__
        cached = self._views.get(name)
        if cached is not None:
            return cached
        reason = self.refusal(name)
        if reason is not None:
            where = f" (reached as {via})" if via and via != name else ""
            raise SandboxViolation(f"Forbidden access to module: {name}{where}: it is not allowed; {reason}")
        maker = self._special.get(name)
        view = maker(self) if maker is not None else self._copy(module)
        self._views[name] = view
        return view

    def _copy(self, module: types.ModuleType) -> ModuleView:
        name = module.__name__
        view = ModuleView(name)
        denied = DENIED_MODULE_ATTRIBUTES.get(name.split(".")[0], frozenset())
        ns = view.__dict__
        for key, value in list(vars(module).items()):
            if key.startswith("_") and key not in _KEEP_DUNDERS:
                continue
            if key in denied or isinstance(value, types.ModuleType):
                continue
            ns[key] = value
        _REAL[id(view)] = module
        _AUTH[id(view)] = self
        return view

    def package_path(self, name: str) -> ModuleView:
        """What `import a.b.c` binds, as CPython does: the top package `a`, through which `a.b.c` is reached.

        Where a package on the way is not authorized itself (only `a.b.c`, or `a.*`, was named), it is
        bound as a path view that holds just the authorized submodule; later imports of other
        submodules of the same package add to the same path view, so `import numpy.random` then
        `import numpy.linalg` gives one `numpy` with both.
        """
        child: ModuleView = self.import_module(name)
        parts = name.split(".")
        for depth in range(len(parts) - 1, 0, -1):
            parent_name, attr = ".".join(parts[:depth]), parts[depth]
            if self.refusal(parent_name) is None:
                parent = self.import_module(parent_name)
            else:
                parent = self._paths.get(parent_name) or make_view(
                    parent_name, {}, _path_only(parent_name, self.authorized)
                )
                self._paths[parent_name] = parent
            parent.__dict__.setdefault(attr, child)
            child = parent
        return child

    def import_module(self, name: str) -> ModuleView:
        """The guarded import: check, import the real module, return its view."""
        reason = self.refusal(name)
        if reason is not None:
            raise ForbiddenImportError(f"Import of {name} is not allowed; {reason}")
        if name in self._special and "." in name:  # `os.path`: a view of its own, not of posixpath
            view = self._views.get(name) or self._special[name](self)
            self._views[name] = view
            return view
        if name in self._special and name not in sys.modules:
            importlib.import_module(name)
        return self.view(importlib.import_module(name))


_AUTH: dict[int, Authorizer] = {}


def _path_only(package: str, authorized: list[str]) -> Callable[[str], str]:
    def explain(attr: str) -> str:
        return (
            f"'{package}' itself is not authorized, only submodules of it "
            f"(authorized: {', '.join(authorized)}); '{package}.{attr}' is not one of them"
        )

    return explain


def _is_private(part: str) -> bool:
    """`_x` and `__x` are private; `__future__`-style dunder names are not."""
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _resolve_missing(view: ModuleView, name: str) -> Any:
    real = _REAL.get(id(view))
    modname = view.__name__
    if real is None:
        raise AttributeError(f"module '{modname}' has no attribute '{name}'")
    if name.startswith("_") and name not in _KEEP_DUNDERS:
        raise SandboxViolation(private_attribute_refusal(real, name))
    if name in DENIED_MODULE_ATTRIBUTES.get(modname.split(".")[0], frozenset()):
        raise SandboxViolation(
            refused_access(
                real,
                name,
                f"'{modname}.{name}' is not allowed in the sandbox: it reaches files, processes, pickles or unguarded code",
            )
        )
    auth = _AUTH[id(view)]
    try:
        value = getattr(real, name)
    except AttributeError:
        sub = f"{modname}.{name}"
        if auth.refusal(sub) is None:
            try:
                value = importlib.import_module(sub)
            except ImportError:
                raise AttributeError(f"module '{modname}' has no attribute '{name}'") from None
        else:
            raise AttributeError(f"module '{modname}' has no attribute '{name}'") from None
    if isinstance(value, types.ModuleType):
        value = auth.view(value, via=f"{modname}.{name}")
    view.__dict__[name] = value
    return value


def refused_access(module: types.ModuleType | None, name: str, detail: str) -> str:
    """A refusal worded as smolagents words it where users match on it ("Forbidden access to module:
    os", "Forbidden access to function: popen"), then smol's reason. The real attribute is read from the
    module's namespace only (no lazy loading runs), and never handed to the code."""
    namespace = getattr(module, "__dict__", None)
    value = namespace.get(name) if type(namespace) is dict else None
    if isinstance(value, types.ModuleType):
        return f"Forbidden access to module: {value.__name__} ({detail})"
    if callable(value) and not isinstance(value, type):
        return f"Forbidden access to function: {name} ({detail})"
    return detail


def private_attribute_refusal(module: types.ModuleType | None, name: str) -> str:
    """Why `module._name` is refused (a private module attribute: often another module, as `random._os`)."""
    modname = getattr(module, "__name__", "?")
    return refused_access(
        module, name, f"access to private attribute '{name}' of module '{modname}' is not allowed"
    )


def real_module(view: types.ModuleType) -> types.ModuleType:
    """The real module behind a view (the view itself when it is a real module)."""
    return _REAL.get(id(view)) or sys.modules.get(view.__name__) or view


def make_view(name: str, attrs: dict[str, Any], missing: Callable[[str], str] | None = None) -> ModuleView:
    """A hand-written view: exactly `attrs`; any other name fails with a clear message."""
    view = _FixedView(name)
    view.__dict__.update(attrs)
    if missing is not None:
        _MISSING[id(view)] = missing
    return view


_MISSING: dict[int, Callable[[str], str]] = {}


class _FixedView(ModuleView):
    def __getattr__(self, name: str) -> Any:
        explain = _MISSING.get(id(self))
        if explain is not None and not name.startswith("__"):
            raise SandboxViolation(refused_access(sys.modules.get(self.__name__), name, explain(name)))
        raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")
