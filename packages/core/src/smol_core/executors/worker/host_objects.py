"""Objects the user handed to a run that stay on the host: what the code holds is a handle.

Why a handle and not a copy: an instance of the user's class (a client, a record, a dataclass, an
`AgentAudio`) cannot be rebuilt here without unpickling, which would run the class's code outside the
guards and carry its whole state (keys, sessions) into the sandbox. So the host keeps the object and
the code gets a `HostObject`: reading an attribute, calling a method, indexing, `len`, `str`,
iterating are each one round trip to the host, which runs them on the real object under its own
attribute guard (`smol_core.executors.host.held`: no private or dunder names, no modules or classes handed back). What
comes back is data, or another handle. A handle sent back to the host (as a tool's argument, a final
answer, the action's value) is the host's object again, so `final_answer(record)` returns the
record itself, as in smolagents.

The code can reach nothing through a handle that the host would not give it: the class is this one,
its only state a handle number and a type name, and the function that talks to the host is set here
by the worker (`connect`), out of the code's reach (module globals are never readable from the code).
Stdlib-only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["HostMethod", "HostObject", "connect", "host_object"]

_Call = Callable[[int, str, str, tuple[Any, ...], dict[str, Any]], Any]


def _not_connected(handle: int, action: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    raise RuntimeError("this object lives on the host, and this process has no host to ask")


_call: _Call = _not_connected
_known: dict[int, HostObject] = {}  # one handle per host object: `a is b` holds as on the host


def connect(call: _Call) -> None:
    """Route every handle's operations through `call(handle, action, name, args, kwargs)`."""
    global _call
    _call = call


def host_object(handle: int, type_name: str) -> HostObject:
    """The handle for host object `handle` (the same one each time it arrives)."""
    known = _known.get(handle)
    if known is None:
        known = _known[handle] = HostObject(handle, type_name)
    return known


class HostObject:
    """An object of the user's that lives on the host; each operation on it is done there."""

    __slots__ = ("_smol_handle", "_smol_type")

    def __init__(self, handle: int, type_name: str) -> None:
        object.__setattr__(self, "_smol_handle", handle)
        object.__setattr__(self, "_smol_type", type_name)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(
                f"'{self._smol_type}' object (kept on the host) has no attribute '{name}' the sandbox may "
                "read: private and dunder attributes of the objects you were given stay on the host"
            )
        return _call(self._smol_handle, "get", name, (), {})

    def __setattr__(self, name: str, value: Any) -> None:
        _call(self._smol_handle, "set", name, (value,), {})

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"attributes of '{self._smol_type}' (kept on the host) cannot be deleted")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _call(self._smol_handle, "call", "", args, kwargs)

    def __getitem__(self, key: Any) -> Any:
        return _call(self._smol_handle, "getitem", "", (key,), {})

    def __setitem__(self, key: Any, value: Any) -> None:
        _call(self._smol_handle, "setitem", "", (key, value), {})

    def __len__(self) -> int:
        return int(_call(self._smol_handle, "len", "", (), {}))

    def __contains__(self, item: Any) -> bool:
        return bool(_call(self._smol_handle, "contains", "", (item,), {}))

    def __iter__(self) -> Any:
        return iter(_call(self._smol_handle, "iter", "", (), {}))

    def __bool__(self) -> bool:
        return bool(_call(self._smol_handle, "bool", "", (), {}))

    def __str__(self) -> str:
        return str(_call(self._smol_handle, "str", "", (), {}))

    def __repr__(self) -> str:
        return str(_call(self._smol_handle, "repr", "", (), {}))

    def __dir__(self) -> list[str]:
        return list(_call(self._smol_handle, "dir", "", (), {}))


class HostMethod:
    """A method of a host object, read without calling it (`m = client.fetch`): calling it calls it there."""

    __slots__ = ("_smol_handle", "_smol_name")

    def __init__(self, handle: int, name: str) -> None:
        self._smol_handle = handle
        self._smol_name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _call(self._smol_handle, "call", self._smol_name, args, kwargs)

    def __repr__(self) -> str:
        return f"<method '{self._smol_name}' of an object kept on the host>"
