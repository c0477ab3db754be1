"""The host side of every worker-based executor: local process, Docker container, remote sandbox.

Why one driver: the worker (worker/main.py) is the same program wherever it runs, so the host that
talks to it should be the same too: one place for deadlines, tool calls, final answers, crash and
time-out handling, and the same error messages for the model. Executors differ only in how they
reach a worker: `WorkerExecutor.open_link()` returns a `WorkerLink` (a pipe to a local process, an
attached container stream, ...), and `worker_config()` says how the worker should sandbox itself.

Why the host never hangs: every wait on the worker has a deadline (paused while host tools run); past
it the worker is killed, the agent gets an `ExecutionTimeoutError`, and the next call starts a fresh
worker with the tools and variables the agent sent replayed (state the code built itself is lost, and
the error says so). Nothing from the worker is unpickled here.

Why every frame is checked: the worker is hostile (code inside may write any bytes to its channel).
Each exchange (`config`, `run`, `tools`, `vars`, `reset`) carries a fresh random `xid` that the worker
stamps on its frames, so nothing written ahead of time passes for a later answer; frames are checked
against a schema and the limits of `protocol_limits` (frames.py) and values decoded under a budget
(untrusted.py). A breach kills and replaces the worker and fails the call with
`ProtocolViolationError`: a garbling worker does no more harm than one that loops forever.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import inspect
import secrets
import threading
import time
from abc import abstractmethod
from collections.abc import Callable
from typing import Any

from smol_core.executors.base import (
    BASE_BUILTIN_MODULES,
    STATE_LOST,
    CodeOutput,
    ExecutorUnavailableError,
    InterpreterError,
    ProtocolViolationError,
    PythonExecutor,
)
from smol_core.executors.host.exchange import Exchange
from smol_core.executors.host.frames import ProtocolLimits, check_frame, check_protections
from smol_core.executors.host.held import HeldObjects, holder
from smol_core.executors.host.link import WorkerLink
from smol_core.executors.worker.protocol import ProtocolError, encode

__all__ = ["READY_TIMEOUT", "STATE_LOST", "WorkerExecutor"]

READY_TIMEOUT = 60.0
DEFAULT_MAX_PRINT_OUTPUTS_LENGTH = 20_000
_REAP_GRACE_S = 2.0  # how long a worker whose pipe closed may take to become reapable
"""Characters of printed output an action hands the model (about 5,000 tokens), as smolagents' 50,000 does
for larger contexts; set `max_print_outputs_length` for more or less."""
_REPLIES = {"ready": frozenset({"ready"}), "done": frozenset({"done", "error"})}


def sandbox_builtin_name(fn: Any) -> str | None:
    """The name of the builtin `fn` is (`len` for `len`), or None: such a tool is the sandbox's own."""
    name = getattr(fn, "__name__", None)
    if isinstance(name, str) and getattr(builtins, name, None) is fn:
        return name
    return None


class _AsyncTools:
    """A private event loop thread for coroutine tools, so several can run at once (asyncio.gather)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="smol-async-tools", daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


class WorkerExecutor(PythonExecutor):
    """An executor whose code runs in a worker reached through a `WorkerLink`; keeps state between calls.

    Subclasses implement `open_link` (start or take a worker) and `worker_config` (the `config`
    message: authorized imports, memory limit, scratch folder...), may add the walls of their own
    sandbox to what the worker reports (`describe_protections`), and may extend `close`.
    """

    worker_start_timeout: float = READY_TIMEOUT
    protocol_limits: ProtocolLimits = ProtocolLimits()
    """What the worker's frames may cost the host; see `ProtocolLimits`."""

    def __init__(
        self,
        additional_authorized_imports: list[str] | None = None,
        max_print_outputs_length: int | None = None,
        timeout_seconds: float | None = 30,
    ) -> None:
        self.additional_authorized_imports = list(additional_authorized_imports or [])
        self.authorized_imports = sorted(set(BASE_BUILTIN_MODULES) | set(self.additional_authorized_imports))
        self.max_print_outputs_length = (
            DEFAULT_MAX_PRINT_OUTPUTS_LENGTH if max_print_outputs_length is None else max_print_outputs_length
        )
        self.timeout_seconds = timeout_seconds
        self.protections: list[tuple[str, bool, str]] = []
        self._tools: dict[str, Callable[..., Any]] = {}
        self._sandbox_tools: list[dict[str, Any]] = []  # specs of tools that run in the sandbox
        self._sandbox_callables: dict[str, Any] = {}  # what each of them stands for, by name
        self._rebindable: frozenset[str] = frozenset()
        self._variables: dict[str, Any] = {}
        self._held = HeldObjects()  # what the code holds handles to (`smol_core.executors.host.held`)
        self._proc: WorkerLink | None = None
        self._awaiting: list[str] = []  # replies owed by the worker ("ready", "done"), oldest first
        self._awaiting_xids: list[str] = []  # the exchange id of each
        self._async: _AsyncTools | None = None
        self._lock = threading.RLock()
        self._closed = False
        self._code_ran = False  # whether the current worker was sent any code (it holds state then)

    # --- what subclasses provide -----------------------------------------------------------
    @abstractmethod
    def open_link(self) -> WorkerLink:
        """A worker that is running and waiting for its `config` message."""

    @abstractmethod
    def worker_config(self) -> dict[str, Any]:
        """The `config` message (without `op`): `common_worker_config()` plus the sandbox's own keys."""

    def common_worker_config(self) -> dict[str, Any]:
        """What every worker is told, wherever it runs: what it may import, the action's time limit
        (which the worker also enforces from inside, with a kernel timer and a CPU limit, in case the
        host cannot: see `smol_core.executors.worker.lifetime`), and how much printed output it may buffer."""
        return {
            "authorized_imports": self.authorized_imports,
            "timeout_seconds": self.timeout_seconds,
            "log_cap": max(4_000_000, 2 * self.max_print_outputs_length),
        }

    def describe_protections(self, reported: list[tuple[str, bool, str]]) -> list[tuple[str, bool, str]]:
        """The protections `protections` shows, from those the worker `reported` when it became ready.

        A sandbox with walls of its own (a container, a cloud VM, a WebAssembly runtime) adds them
        here, or drops the worker's OS layers that cannot apply inside it. Called once per worker."""
        return reported

    # --- worker lifecycle ------------------------------------------------------------------
    def _start(self) -> None:
        self._code_ran = False
        self._proc = self.open_link()
        configure = getattr(self._proc, "set_frame_limits", None)
        if configure is not None:
            configure(self.protocol_limits)
        xid = secrets.token_hex(8)
        self._awaiting, self._awaiting_xids = ["ready"], [xid]
        limits = self.protocol_limits
        self._post(
            {
                "op": "config",
                **self.worker_config(),
                "xid": xid,
                "frame_limits": {"max_bytes": limits.max_frame_bytes, "max_elements": limits.max_elements},
            }
        )
        self._send_owed_state()

    def _send_owed_state(self) -> None:
        """What a new worker must hold before the first action: the tools and the variables given."""
        if self._tools or self._sandbox_tools:
            self._send_control({"op": "tools", "tools": self._all_tool_specs(self._tools)})
        if self._variables:
            self._send_control({"op": "vars", "values": self._encoded_variables(self._variables)})

    def _worker(self) -> WorkerLink:
        if self._closed:
            raise InterpreterError("this executor was closed")
        if self._proc is None:  # a dead one is kept until its death is reported (or it held nothing)
            self._start()
        assert self._proc is not None
        return self._proc

    def _send_control(self, message: dict[str, Any]) -> None:
        xid = secrets.token_hex(8)
        self._post({**message, "xid": xid})
        self._awaiting.append("done")
        self._awaiting_xids.append(xid)

    def _post(self, message: dict[str, Any]) -> None:
        """Send a message whose reply `_drain` collects: a worker gone meanwhile is reported there
        (as a worker that failed), not as an EOFError out of `send_tools` or `reset`."""
        assert self._proc is not None
        with contextlib.suppress(EOFError):
            self._proc.send(message)

    def _violation(self, reason: str) -> ProtocolViolationError:
        """The worker broke the protocol: kill and forget it, and say so (the caller raises the result)."""
        if self._proc is not None:
            self._proc.kill()
        self._restart_after_failure()
        self._awaiting, self._awaiting_xids = [], []
        return ProtocolViolationError(
            f"The sandbox worker broke the protocol ({reason[:300]}), so it was stopped and replaced. {STATE_LOST}"
        )

    def _drain(self) -> None:
        """Collect the replies owed (ready, acks) before a new exchange.

        A worker that dies before any code ran in it (killed from outside while it started) is
        replaced once, and the new one gets the tools and values owed: nothing is lost.
        One that dies after it was ready took the code's state along: an error the model reads. One
        that cannot start twice in a row makes the executor unavailable."""
        restarted = False
        proc = self._worker()
        while self._awaiting:
            allowed, xid = _REPLIES[self._awaiting[0]], self._awaiting_xids[0]
            try:
                message = proc.read(time.monotonic() + self.worker_start_timeout)
                assert message is not None
                op = check_frame(message, xid, allowed)
                protections = check_protections(message["protections"]) if op == "ready" else None
            except ProtocolError as exc:
                raise self._violation(str(exc)) from None
            except (TimeoutError, EOFError) as exc:
                starting = self._awaiting[0] == "ready"
                tail = proc.stderr_tail()
                how = proc.exit_description() if isinstance(exc, EOFError) else "it stopped answering"
                proc.close()
                self._proc = None
                self._awaiting, self._awaiting_xids = [], []
                if not restarted and (starting or not self._code_ran):  # it held nothing yet
                    restarted = True
                    proc = self._worker()
                    continue
                if not starting:
                    raise InterpreterError(
                        f"The sandbox worker process died ({how}) between actions. {STATE_LOST}"
                    ) from None
                raise ExecutorUnavailableError(
                    f"the sandbox worker failed to start ({type(exc).__name__}): {tail}"
                ) from None
            except Exception as exc:  # garbled bytes the link could not read
                raise self._violation(f"its bytes could not be read ({type(exc).__name__})") from None
            self._awaiting.pop(0)
            self._awaiting_xids.pop(0)
            if protections is not None:
                self.protections = self.describe_protections(protections)
            elif op == "error":
                raise InterpreterError(message["message"])

    def wait_until_ready(self) -> None:
        """Start the worker if none runs, and wait until it has sandboxed itself and said so; then
        `protections` holds what it reported. Raises `ExecutorUnavailableError` if it cannot start."""
        with self._lock:
            self._drain()

    def _report_death_between_calls(self) -> None:
        """A worker that died while idle (OOM killer, a removed container) took the code's state with it:
        say so once, as an error observation, instead of silently running on a fresh worker. One that
        wrote to its channel while no exchange was open broke the protocol: the same, as a violation."""
        proc = self._proc
        if proc is None or self._closed:
            return
        unread = getattr(proc, "has_unread", None)
        if not self._awaiting and unread is not None and unread():
            raise self._violation("it sent frames while no exchange was open")
        if proc.alive():
            return
        if not self._code_ran:  # it held nothing but what is sent again: replaced without a word
            self._restart_after_failure()
            return
        how = proc.exit_description()
        self._restart_after_failure()
        raise InterpreterError(f"The sandbox worker process died ({how}) between actions. {STATE_LOST}")

    def _open_exchange(self, message: dict[str, Any]) -> WorkerLink:
        """Send the message that opens an exchange (an action, a namespace read) to a worker that
        owes no replies, and return that worker. One found dead on the way is reported as such (it
        took the code's state along), or, when it held nothing yet, replaced without a word."""
        for attempt in (1, 2):
            self._report_death_between_calls()
            self._drain()
            proc = self._worker()
            try:
                proc.send(message)
                return proc
            except EOFError:
                if self._code_ran or attempt == 2:
                    raise self._lost_at_send(proc) from None
                self._restart_after_failure()  # it held nothing: a fresh one gets what is owed
        raise AssertionError("unreachable")

    def _lost_at_send(self, proc: WorkerLink) -> InterpreterError:
        """The worker's pipe closed as a message went out: it died between actions, and the check
        before the send missed it only because its exit had not been reaped yet (a SIGKILL is
        delivered, and the pipe closed, a moment before the process can be waited for). Wait that
        moment so the error says how it died, like every other death between actions."""
        deadline = time.monotonic() + _REAP_GRACE_S
        while proc.alive() and time.monotonic() < deadline:
            time.sleep(0.002)
        if proc.alive():  # it closed its input and lives on: it can take no more code
            self._restart_after_failure()
            return InterpreterError(f"The sandbox worker closed its input, so it was replaced. {STATE_LOST}")
        how = proc.exit_description()
        self._restart_after_failure()
        return InterpreterError(f"The sandbox worker process died ({how}) between actions. {STATE_LOST}")

    def _restart_after_failure(self) -> None:
        if self._proc is not None:
            self._proc.close()
        self._proc = None

    # --- the PythonExecutor contract -------------------------------------------------------
    def send_tools(self, tools: dict[str, Any]) -> None:
        """A builtin passed as a tool (`{"len": len}`, as smolagents' tool tables hold them) is the
        sandbox's own builtin of that name, run there: never the host's, so passing `exec` or
        `getattr` calls the sandbox's refusing or guarded one, not a host function with the code's
        arguments."""
        with self._lock:
            specs = self._register_tools(tools)
            self._worker()
            self._send_control({"op": "tools", "tools": self._marked(specs)})
            # The ack is collected before the next action (`__call__` drains first): an agent's first
            # model call then overlaps the worker's start instead of waiting for it.

    def _register_tools(self, tools: dict[str, Any]) -> list[dict[str, Any]]:
        """Record `tools` (host functions, or builtins that run in the sandbox, see `send_tools`) so that
        a restarted worker gets them too; returns the specs to send now."""
        host = {
            name: fn
            for name, fn in tools.items()
            if sandbox_builtin_name(fn) is None or name == "final_answer"
        }
        builtins_here = {name: fn for name, fn in tools.items() if name not in host}
        builtin_specs = [
            {"name": name, "builtin": sandbox_builtin_name(fn)} for name, fn in builtins_here.items()
        ]
        for name in tools:
            self._tools.pop(name, None)
            self._sandbox_callables.pop(name, None)
        self._tools.update(host)
        self._sandbox_callables.update(builtins_here)
        self._sandbox_tools = [spec for spec in self._sandbox_tools if spec["name"] not in tools]
        self._sandbox_tools += builtin_specs
        return [*self._tool_specs(host), *builtin_specs]

    @property
    def static_tools(self) -> dict[str, Callable[..., Any]]:
        """What the code may call by name (tools, managed agents, functions), as smolagents names it:
        the host's callables, and the builtins that run in the sandbox in their stead."""
        return {**self._tools, **self._sandbox_callables}

    def replace_tools(
        self,
        host_tools: dict[str, Any],
        sandbox_builtins: dict[str, str] | None = None,
        sandbox_values: dict[str, Any] | None = None,
        rebindable: frozenset[str] = frozenset(),
    ) -> None:
        """Replace every tool the code sees (smolagents' `evaluate_python_code` tool tables).

        host_tools: called on the host, as `send_tools` does it.
        sandbox_builtins: tool name -> the sandbox's curated builtin it stands for (`{"print": "print"}`):
            a builtin the user passed runs in the sandbox, guarded, not on the host.
        sandbox_values: functions and classes that run in the sandbox as the code's own, sent by
            reference (module and qualified name: `math.ceil`), never pickled.
        rebindable: names the code may assign to (smolagents' custom tools); the others are put back.
        """
        with self._lock:
            self._tools = dict(host_tools)
            self._rebindable = rebindable
            self._sandbox_callables = {
                **{
                    name: getattr(builtins, builtin, None)
                    for name, builtin in (sandbox_builtins or {}).items()
                },
                **(sandbox_values or {}),
            }
            self._sandbox_tools = [
                *({"name": name, "builtin": builtin} for name, builtin in (sandbox_builtins or {}).items()),
                *(
                    {"name": name, "native": {"module": value.__module__, "qualname": value.__qualname__}}
                    for name, value in (sandbox_values or {}).items()
                ),
            ]
            self._worker()
            self._send_control({"op": "tools", "tools": self._all_tool_specs(self._tools), "replace": True})

    def _all_tool_specs(self, host_tools: dict[str, Any]) -> list[dict[str, Any]]:
        return self._marked([*self._tool_specs(host_tools), *self._sandbox_tools])

    def _marked(self, specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**spec, "rebindable": True} if spec["name"] in self._rebindable else spec for spec in specs]

    def namespace(self) -> dict[str, Any]:
        """The code's variables now, as values decoded from the worker (never unpickled): what the
        typed codec carries comes back as itself, anything else as an `UnserializableValue` (its repr)."""
        with self._lock:
            xid = secrets.token_hex(8)
            proc = self._open_exchange({"op": "namespace", "xid": xid})
            output = Exchange(self, proc, xid).run().output
            if type(output) is not dict or any(type(key) is not str for key in output):
                raise self._violation("it answered 'namespace' with something other than a dict of names")
            return output

    @staticmethod
    def _tool_specs(tools: dict[str, Any]) -> list[dict[str, Any]]:
        specs = []
        for name, fn in tools.items():
            if not name.isidentifier():
                raise ValueError(f"tool name {name!r} is not a Python identifier")
            target = (
                getattr(fn, "forward", None)
                if not inspect.isfunction(fn) and not inspect.ismethod(fn)
                else fn
            )
            is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(target)
            specs.append(
                {
                    "name": name,
                    "is_async": bool(is_async and name != "final_answer"),
                    "doc": (getattr(fn, "description", None) or inspect.getdoc(fn) or "")[:2000],
                }
            )
        return specs

    def send_variables(self, variables: dict[str, Any]) -> None:
        """Values the user passed explicitly (`additional_args`): plain data crosses as itself (a
        copy), anything else (an instance of the user's class, a dataclass, an `AgentAudio`) stays
        here and the code gets a handle whose attribute reads and method calls are done here, under
        the guard of `smol_core.executors.host.held`. Nothing is pickled: a pickle would run the class's code in the
        worker and carry the object's whole state (keys, sessions) into the sandbox.
        """
        with self._lock:
            self._variables.update(variables)
            self._worker()
            if variables:  # acknowledged before the next action, as tools are
                self._send_control({"op": "vars", "values": self._encoded_variables(variables)})

    def _encoded_variables(self, variables: dict[str, Any]) -> Any:
        return encode(variables, hold=holder(self._held, by_user=True))

    def reset(self) -> None:
        with self._lock:
            self._variables.clear()
            self._held.clear()
            self._worker()
            self._send_control({"op": "reset"})
            self._drain()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._proc is not None:
                self._proc.close()
                self._proc = None
            if self._async is not None:
                self._async.close()
                self._async = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    def __call__(self, code_action: str) -> CodeOutput:
        with self._lock:
            xid = secrets.token_hex(8)
            proc = self._open_exchange({"op": "run", "code": code_action, "xid": xid})
            self._code_ran = True
            try:
                return Exchange(self, proc, xid).run()
            except KeyboardInterrupt:
                # Ctrl-C stops the action, not only the wait for it: the worker goes, the next call
                # starts a fresh one (the user interrupted, so the lost state is expected)
                proc.kill()
                self._restart_after_failure()
                raise

    # --- helpers used by Exchange ---------------------------------------------------------
    def _cut(self, logs: str) -> str:
        """What the code printed, cut to `max_print_outputs_length` (the head and the tail are kept,
        and the note says how much went): 100 MB of prints must not become a 100 MB prompt."""
        limit = self.max_print_outputs_length
        if len(logs) <= limit:
            return logs
        head, tail = logs[: limit * 3 // 4], logs[len(logs) - limit // 4 :]
        return (
            f"{head}\n_Print outputs were over {limit:,} characters, so they have been truncated: "
            f"{len(logs) - len(head) - len(tail):,} cut here._\n{tail}"
        )

    def _async_runner(self) -> _AsyncTools:
        if self._async is None:
            self._async = _AsyncTools()
        return self._async
