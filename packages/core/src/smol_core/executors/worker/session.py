"""One worker's state between actions: the code's namespace, its tools, and running one action.

Why apart from main.py: main.py is the process (the channel, sandboxing itself, the message loop);
this is what a `run`, `tools`, `vars`, `namespace` or `reset` message does to the code's state, and
how an action runs (compiled under the guards, timed by the action clock, its output and errors
turned into the reply).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib
import json
import linecache
import sys
import time
import types
from collections.abc import Callable
from typing import Any

from . import audit, guards, host_objects, last_value, lifetime, memory_reserve, sandbox
from .channel import Channel, FinalAnswerSignal
from .error_text import format_runtime, format_static, format_syntax_error
from .framing import count_elements
from .module_policy import DANGEROUS_MODULES
from .protocol import TAG, encode
from .runtime import Guards, make_builtins
from .specials import sandbox_loop_factory, special_views
from .views import Authorizer, ForbiddenImportError, SandboxViolation

CO_COROUTINE = 0x0080


class LogBuffer:
    """Where `print` and `sys.stdout` go. Bounded, so a print loop cannot exhaust memory.

    Code holds this object (`sys.stdout` in the reduced sys view), so it holds nothing but text:
    no channel, no descriptor, no `buffer` or `fileno()` that would lead to the protocol.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self.size + len(text) > self.cap:
            room = max(0, self.cap - self.size)
            self.dropped += len(text) - room
            text = text[:room]
        self.parts.append(text)
        self.size += len(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def take(self) -> str:
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n[... {self.dropped} more characters of output were dropped in the sandbox]\n"
        self.parts, self.size, self.dropped = [], 0, 0
        return text


class Worker:
    def __init__(self, channel: Channel, config: dict[str, Any]) -> None:
        self.channel = channel
        self.config = config
        sandbox.configure(config)
        self.logs = LogBuffer(int(config.get("log_cap") or 4_000_000))
        self.clock = lifetime.ActionClock(_number(config.get("timeout_seconds")), self.trusted)
        sandbox.SETTINGS.reports = [
            self.clock.report(),
            ("dies with its host", bool(lifetime.WATCH), lifetime.WATCH or "not watched (not Linux)"),
            (
                "protocol channel",
                True,
                f"{channel.where}; no descriptor opens, sockets, event-loop internals or channel "
                "reference reachable from the code",
            ),
        ]
        self.own_threads = lifetime.thread_count()  # the parent watch; code may leave none of its own
        self.new_loop = sandbox_loop_factory(lambda: self.channel.in_fd, self.trusted)
        self.tools: dict[str, Callable[..., Any]] = {}
        self.rebindable: set[str] = set()
        self.builtin_tools: dict[str, str] = {}  # tool name -> the curated builtin it is
        self.run_count = 0
        self.auto_import_failures: dict[str, str] = {}
        self.policy: audit.AuditPolicy | None = None
        host_objects.connect(self._call_host_object)
        self._new_namespace()

    # --- namespace -------------------------------------------------------------------------
    def _new_namespace(self) -> None:
        """Fresh state for the code: at start, and on `reset` (a new agent run).

        Why everything and not only the globals: code can change what it was given (the curated
        builtins dict, attributes of module views, the real `builtins` module where `builtins` is
        authorized), and none of it may be seen by the next run. Threads the code left running
        cannot be undone at all: such a worker exits and the host starts a fresh one.
        """
        self._check_threads("before a new run")
        _BUILTINS_SNAPSHOT.restore()
        self.auth = Authorizer(self.config.get("authorized_imports", []), {})
        self.guards = Guards(self.auth)
        self.auth._special = special_views(self.guards, self.logs, self.new_loop)
        self.builtins = make_builtins(self.guards, self._print)
        module = types.ModuleType("__main__")
        self.ns = module.__dict__
        self.ns["__builtins__"] = self.builtins
        sys.modules["__main__"] = module  # typing/dataclasses resolve names through it
        self.logs.take()
        for key in [k for k in linecache.cache if k.startswith("<code #")]:
            del linecache.cache[key]
        self._install_tools()

    def _check_threads(self, when: str) -> None:
        extra = lifetime.thread_count() - self.own_threads
        if extra > 0:
            lifetime.exit_tainted(f"the code left {extra} thread(s) running {when}")

    def trusted(self) -> contextlib.AbstractContextManager[Any]:
        """The worker's own calls while code runs (clock, event loop), past the audit hook."""
        return contextlib.nullcontext() if self.policy is None else self.policy.trusted()

    def _print(
        self, *args: Any, sep: str | None = " ", end: str | None = "\n", file: Any = None, flush: bool = False
    ) -> None:
        print(*args, sep=sep, end=end, file=self.logs if file is None else file)

    def _install_tools(self) -> None:
        def default_final_answer(answer: Any = None) -> Any:
            signal = FinalAnswerSignal(answer, host_holds_value=False)
            self.channel.final_called = signal
            raise signal

        self._default_final_answer = default_final_answer
        self.ns["final_answer"] = default_final_answer
        for name, builtin in self.builtin_tools.items():  # the builtins were made anew
            self.tools[name] = self.builtins[builtin]
        self.ns.update(self.tools)

    def _restore_tools(self) -> list[str]:
        """The tool names the code rebound or deleted, each bound to its tool again.

        `final_answer = x` would leave every later `final_answer(...)` calling an int; smolagents
        refuses such an assignment, and so does this (after the fact: the action becomes an error).
        """
        bound = {"final_answer": self._default_final_answer, **self.tools}
        lost = [
            name
            for name, tool in bound.items()
            if self.ns.get(name) is not tool and name not in self.rebindable
        ]
        for name in lost:
            self.ns[name] = bound[name]
        return lost

    def set_tools(self, specs: list[dict[str, Any]], replace: bool = False) -> None:
        """Bind the tools the host sends: proxies to host callables, or callables of the sandbox's own.

        A spec with `builtin` binds the sandbox's curated builtin of that name (the guarded `getattr`,
        the `print` that writes to the logs; a denied one stays the refusing stand-in); one with
        `native` binds a function or class the host named by module and qualified name (`math.ceil`),
        which runs here like the code's own. `rebindable` tools may be reassigned
        by the code (smolagents' custom tools). `replace` drops the tools bound before.
        """
        channel, clock = self.channel, self.clock
        if replace:
            for name, tool in self.tools.items():
                if self.ns.get(name) is tool:
                    del self.ns[name]
            self.tools, self.rebindable, self.builtin_tools = {}, set(), {}
            self.ns.setdefault("final_answer", self._default_final_answer)
        for spec in specs:
            name = spec["name"]
            if "builtin" in spec:
                builtin = str(spec["builtin"])
                if builtin not in self.builtins:
                    continue  # not in the sandbox (a name the curated set drops): the code gets NameError
                self.builtin_tools[name] = builtin
                self.tools[name] = self.builtins[builtin]
            elif "native" in spec:
                self.tools[name] = _resolve(spec["native"]["module"], spec["native"]["qualname"])
            else:
                make = _async_proxy if spec.get("is_async") else _sync_proxy
                proxy = make(channel, clock, name)
                proxy.__name__ = proxy.__qualname__ = name
                proxy.__doc__ = spec.get("doc") or None
                self.tools[name] = proxy
            if spec.get("rebindable"):
                self.rebindable.add(name)
        self.ns.update(self.tools)

    def namespace(self) -> dict[str, Any]:
        """The code's variables, for smolagents' `evaluate_python_code(state=...)`: every name the code
        or the host bound, less tools, dunder names and the worker's own reserved names."""
        bound = {"final_answer": self._default_final_answer, **self.tools}
        return {
            name: value
            for name, value in self.ns.items()
            if not name.startswith("__") and bound.get(name, _MISSING) is not value
        }

    def encoded_namespace(self, max_bytes: int, max_elements: int | None) -> dict[str, Any]:
        """`namespace()` encoded for the host, each value alone: one that would take the reply past the
        host's frame limits crosses as a note saying so, and the others still cross."""
        out: dict[str, Any] = {}
        room_bytes, room_elements = max_bytes - 4096, (max_elements or 0) - 64
        for name, value in self.namespace().items():
            data = encode(value)
            body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode(
                "utf-8", "surrogatepass"
            )
            elements = count_elements(body, max(room_elements, 0)) if max_elements is not None else 0
            if len(body) > room_bytes or (max_elements is not None and elements > room_elements):
                kind = f"{type(value).__module__}.{type(value).__qualname__}"
                data = {TAG: "repr", "type": kind, "repr": f"<a {kind} too large to return to the host>"}
                body, elements = json.dumps(data).encode(), 4
            room_bytes -= len(body) + len(name) + 8
            room_elements -= elements + 1
            out[name] = data
        return out

    # --- running ---------------------------------------------------------------------------
    def run(self, code: str) -> dict[str, Any]:
        self.run_count += 1
        filename = f"<code #{self.run_count}>"
        self.channel.final_called = None
        assert self.policy is not None
        self.policy.trusted_compile = True
        try:
            compiled = guards.compile_action(code, filename, ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        except SyntaxError as exc:
            return self._error("syntax", format_syntax_error(exc, code))
        except guards.StaticViolation as exc:
            return self._error("blocked", format_static(exc, code))
        finally:
            self.policy.trusted_compile = False
        # Every line ends with a newline, as read from a file: Python 3.11's traceback places its
        # carets one column off on a last line without one.
        lines = [line + "\n" for line in code.splitlines()]
        linecache.cache[filename] = (len(code), None, lines, filename)
        # The kernel's clock runs until the reply is built: encoding it and formatting an error may
        # run the code's own __repr__/__str__.
        self.clock.start()
        try:
            return self._execute(compiled)
        finally:
            self.clock.stop()

    def _execute(self, compiled: types.CodeType) -> dict[str, Any]:
        started = time.time()
        rebound: list[str] = []
        for name in last_value.CAPTURE_NAMES:  # a value left by an action that failed is not this one's
            self.ns.pop(name, None)
        try:
            try:
                self._auto_import(compiled)
                if compiled.co_flags & CO_COROUTINE:
                    self._run_async(compiled)
                else:
                    exec(compiled, self.ns)
            finally:
                rebound = self._restore_tools()
                self._check_threads("after its action ended")
                self._after_action(started)
        except FinalAnswerSignal as signal:
            return self._final(signal)
        except BaseException as exc:
            if isinstance(exc, MemoryError):
                memory_reserve.release()  # room to format the error and send the reply
            pending = self.channel.pending_final()
            if pending is not None:
                return self._final(pending)
            return self._error(
                "blocked" if isinstance(exc, SandboxViolation | ForbiddenImportError) else "runtime",
                format_runtime(exc, self.policy, self._missing_name_note(exc)),
            )
        if rebound:
            name = rebound[0]
            return self._error(
                "runtime",
                f"Cannot assign to name '{name}': doing this would erase the existing tool! It was put "
                f"back; keep your value under another name (e.g. `{name}_value`).",
            )
        pending = self.channel.pending_final()
        if pending is not None:  # final_answer's signal was swallowed by the code
            return self._final(pending)
        self.ns.pop(last_value.KEEP_VALUE_NAME, None)
        output = self.ns.pop(last_value.LAST_VALUE_NAME, None)
        return {"op": "done", "output": encode(output), "logs": self.logs.take()}

    def _auto_import(self, compiled: types.CodeType) -> None:
        """Bind the authorized modules the code reads without importing them (`math.sqrt(2)` alone).

        A name qualifies when the code reads it as a global, never binds it itself, it is not in the
        namespace (so variables, earlier imports and tools win), not a builtin, not private, and
        `import <name>` would be allowed. It is then imported through the code's own `__import__`
        (the guarded import: same checks, same filtered module view) and bound like `import <name>`
        would bind it. Nothing changes in the code, so line numbers stay the user's.

        Names that do not qualify are left alone and fail as before, with NameError where the code
        reads them. Forbidden modules (os, sys, subprocess...) are deliberately not turned into an
        ImportError here: an ImportError raised before the code runs would fail code that reads the
        name only in a branch it never takes or under `except NameError`, and would point at no line.
        The NameError names the user's line, and its message says why the module is not available
        (see `_missing_name_note`), so the model does not answer it with `import os`.
        """
        self.auto_import_failures = {}
        ns, curated = self.ns, self.builtins
        candidates = {
            name
            for name in guards.code_names(compiled)
            if name.isidentifier()
            and not name.startswith("_")
            and name not in ns
            and name not in curated
            and not hasattr(builtins, name)
            and self.auth.refusal(name) is None
        }
        importer = curated["__import__"]
        for name in sorted(guards.free_global_reads(compiled, candidates)):
            try:
                ns[name] = importer(name, ns, None, (), 0)
            except ModuleNotFoundError as exc:
                if exc.name != name:  # the module exists but needs one that is missing
                    self.auto_import_failures[name] = f"{type(exc).__name__}: {exc}"
            except Exception as exc:  # reported with the NameError it leaves behind
                self.auto_import_failures[name] = f"{type(exc).__name__}: {exc}"

    def _missing_name_note(self, exc: BaseException) -> str | None:
        """Why an undefined name that is also a module was not supplied, or None for other errors."""
        name = getattr(exc, "name", None) if type(exc) is NameError else None
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            return None
        failed = self.auto_import_failures.get(name)
        if failed is not None:
            return f"the authorized module '{name}' could not be imported automatically: {failed}"
        if name not in sys.stdlib_module_names and name not in DANGEROUS_MODULES:
            return None
        reason = self.auth.refusal(name)
        if reason is None:
            return None
        return (
            "only authorized modules are imported automatically, "
            f"and import of '{name}' is not allowed; {reason}"
        )

    def _after_action(self, started: float) -> None:
        """What the action may not leave behind (besides threads): a scratch folder over its size.

        Where no tmpfs bounds the scratch folder, an action that left it over its budget loses the
        files it wrote (the audit hook already refused new writes once the budget was reached).
        """
        policy = self.policy
        if policy is not None and policy.over_budget():
            removed = audit.remove_files_since(policy.scratch, started - 1)
            budget = (policy.scratch_budget or 0) // (1024 * 1024)
            raise SandboxViolation(
                f"the scratch folder went over its size limit ({budget} MiB in all): the files this "
                f"action wrote were removed ({', '.join(removed[:5]) or 'none'})"
            )

    def _run_async(self, compiled: types.CodeType) -> None:
        loop = self.new_loop()
        try:
            loop.run_until_complete(eval(compiled, self.ns))
        finally:
            loop.close()

    def _final(self, signal: FinalAnswerSignal) -> dict[str, Any]:
        self.ns.pop(last_value.LAST_VALUE_NAME, None)
        value = None if signal.host_holds_value else encode(signal.value)
        return {
            "op": "final_answer",
            "host_value": signal.host_holds_value,
            "value": value,
            "logs": self.logs.take(),
        }

    def _error(self, kind: str, message: str) -> dict[str, Any]:
        return {"op": "error", "kind": kind, "message": message, "logs": self.logs.take()}

    def set_variables(self, values: dict[str, Any]) -> None:
        for key in values:
            if not key.isidentifier() or key.startswith("__"):
                raise ValueError(f"invalid variable name {key!r}")
        self.auth.handed.update(_library_packages(values.values()))
        self.ns.update(values)

    def _call_host_object(
        self, handle: int, action: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """An operation on an object the host kept (host_objects.py); its time there is not the code's."""
        self.clock.pause()
        try:
            value = self.channel.call_object(handle, action, name, args, kwargs)
        finally:
            self.clock.resume()
        self.auth.handed.update(_library_packages((value,)))  # `audio.to_raw().sum()` works too
        return value


_LIBRARIES = frozenset({"numpy", "pandas", "PIL"})


def _library_packages(values: Any, depth: int = 0) -> set[str]:
    """The libraries (numpy, pandas, PIL) of the values the host handed over, in containers too."""
    found: set[str] = set()
    for value in values:
        top = type(value).__module__.split(".")[0]
        if top in _LIBRARIES:
            found.add(top)
        elif depth < 8 and type(value) in (list, tuple, set, frozenset):
            found |= _library_packages(value, depth + 1)
        elif depth < 8 and type(value) is dict:
            found |= _library_packages(value.values(), depth + 1)
    return found


def _resolve(module: str, qualname: str) -> Any:
    """The object the host named (its own choice of tool, not the code's: no import guard applies)."""
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _sync_proxy(channel: Channel, clock: lifetime.ActionClock, name: str) -> Callable[..., Any]:
    def tool(*args: Any, **kwargs: Any) -> Any:
        clock.pause()  # the host's time in its tool is not the code's, as on the host
        try:
            return channel.call_sync(name, args, kwargs)
        finally:
            clock.resume()

    return tool


def _async_proxy(channel: Channel, clock: lifetime.ActionClock, name: str) -> Callable[..., Any]:
    async def tool(*args: Any, **kwargs: Any) -> Any:
        clock.pause()
        try:
            return await channel.call_async(name, args, kwargs)
        finally:
            clock.resume()

    return tool


def _number(value: Any) -> float | None:
    return float(value) if type(value) in (int, float) and value > 0 else None


class _BuiltinsSnapshot:
    """The real `builtins` module as it was before any code ran, to restore it on `reset`.

    Why: where `builtins` is authorized, code can add or replace names in it; the curated builtins
    are built from this snapshot, and the module itself is put back, so no run sees another's.
    """

    def __init__(self) -> None:
        self.names = dict(vars(builtins))

    def restore(self) -> None:
        current = vars(builtins)
        for name in [n for n in current if n not in self.names]:
            del current[name]
        for name, value in self.names.items():
            if current.get(name, _MISSING) is not value:
                current[name] = value


_MISSING = object()
_BUILTINS_SNAPSHOT = _BuiltinsSnapshot()
