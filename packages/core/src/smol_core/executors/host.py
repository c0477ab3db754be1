"""The host side of every worker-based executor: local process, Docker container, remote sandbox.

Why one driver: the worker (local/worker.py) is the same program wherever it runs, so the host that
talks to it should be the same too: one place for deadlines, tool calls, final answers, crash and
time-out handling, and the same error messages for the model. Executors differ only in how they
reach a worker: `WorkerExecutor._open_link()` returns a `WorkerLink` (a pipe to a local process, an
attached container stream, ...), and `_worker_config()` says how the worker should sandbox itself.

Why the host never hangs: every wait on the worker has a deadline (paused while host tools run); past
it the worker is killed, the agent gets an `ExecutionTimeoutError`, and the next call starts a fresh
worker with the tools and variables the agent sent replayed (state the code built itself is lost, and
the error says so). Nothing from the worker is unpickled here.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import threading
import time
from abc import abstractmethod
from collections.abc import Callable
from typing import Any, Protocol

from smol_core.executors.base import (
    BASE_BUILTIN_MODULES,
    CodeOutput,
    ExecutionTimeoutError,
    ExecutorUnavailableError,
    InterpreterError,
    PythonExecutor,
)
from smol_core.executors.protocol import decode, encode

STATE_LOST = (
    "The sandbox worker was restarted: variables, functions, classes and imports defined by earlier "
    "code are lost (tools and variables passed by the agent are restored). Define again what you need."
)
READY_TIMEOUT = 60.0


class WorkerLink(Protocol):
    """A byte channel to one running worker, plus the means to kill it and say how it died."""

    @property
    def pid(self) -> int:
        """An identifier of the worker (a process id; containers may return their own)."""
        ...

    def send(self, message: dict[str, Any]) -> None:
        """Write one framed message; EOFError when the worker is gone."""
        ...

    def read(self, deadline: float | None, wake_fd: int | None = None) -> dict[str, Any] | None:
        """Next message; None when `wake_fd` became readable; TimeoutError past `deadline`; EOFError on close."""
        ...

    def alive(self) -> bool: ...

    def kill(self) -> None:
        """Stop the worker now (the running code with it). Idempotent."""
        ...

    def close(self) -> None:
        """Kill and release everything the link holds. Idempotent."""
        ...

    def stderr_tail(self, limit: int = 1500) -> str: ...

    def exit_description(self) -> str:
        """After the worker died on its own: how ("exit code 1", "killed by signal 9 (likely out of memory)")."""
        ...


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

    Subclasses implement `_open_link` (start or take a worker) and `_worker_config` (the `config`
    message: authorized imports, memory limit, scratch folder...), and may extend `close`.
    """

    worker_start_timeout: float = READY_TIMEOUT

    def __init__(
        self,
        additional_authorized_imports: list[str] | None = None,
        max_print_outputs_length: int | None = None,
        timeout_seconds: float | None = 30,
    ) -> None:
        self.additional_authorized_imports = list(additional_authorized_imports or [])
        self.authorized_imports = sorted(set(BASE_BUILTIN_MODULES) | set(self.additional_authorized_imports))
        self.max_print_outputs_length = max_print_outputs_length
        self.timeout_seconds = timeout_seconds
        self.protections: list[tuple[str, bool, str]] = []
        self._tools: dict[str, Callable[..., Any]] = {}
        self._variables: dict[str, Any] = {}
        self._proc: WorkerLink | None = None
        self._awaiting: list[str] = []  # replies owed by the worker for messages already sent
        self._async: _AsyncTools | None = None
        self._lock = threading.RLock()
        self._closed = False

    # --- what subclasses provide -----------------------------------------------------------
    @abstractmethod
    def _open_link(self) -> WorkerLink:
        """A worker that is running and waiting for its `config` message."""

    @abstractmethod
    def _worker_config(self) -> dict[str, Any]:
        """The `config` message (without `op`)."""

    # --- worker lifecycle ------------------------------------------------------------------
    def _start(self) -> None:
        self._proc = self._open_link()
        self._awaiting = ["ready"]
        self._proc.send({"op": "config", **self._worker_config()})
        if self._tools:
            self._send_control({"op": "tools", "tools": self._tool_specs(self._tools)})
        if self._variables:
            self._send_control({"op": "vars", "values": encode(self._variables, allow_pickle=True)})

    def _worker(self) -> WorkerLink:
        if self._closed:
            raise InterpreterError("this executor was closed")
        if self._proc is None or not self._proc.alive():
            if self._proc is not None:
                self._proc.close()
            self._start()
        assert self._proc is not None
        return self._proc

    def _send_control(self, message: dict[str, Any]) -> None:
        assert self._proc is not None
        self._proc.send(message)
        self._awaiting.append("done")

    def _drain(self) -> None:
        """Collect the replies owed (ready, acks) before a new exchange."""
        proc = self._worker()
        while self._awaiting:
            expected = self._awaiting[0]
            try:
                message = proc.read(time.monotonic() + self.worker_start_timeout)
            except (TimeoutError, EOFError) as exc:
                tail = proc.stderr_tail()
                proc.close()
                self._proc = None
                self._awaiting = []
                raise ExecutorUnavailableError(
                    f"the sandbox worker failed to start ({type(exc).__name__}): {tail}"
                ) from None
            assert message is not None
            self._awaiting.pop(0)
            if expected == "ready":
                self.protections = [(str(n), bool(a), str(d)) for n, a, d in message.get("protections", [])]
            elif message.get("op") == "error":
                raise InterpreterError(str(message.get("message")))

    def _report_death_between_calls(self) -> None:
        """A worker that died while idle (OOM killer, a removed container) took the code's state with it:
        say so once, as an error observation, instead of silently running on a fresh worker."""
        proc = self._proc
        if proc is None or self._closed or proc.alive():
            return
        how = proc.exit_description()
        self._restart_after_failure()
        raise InterpreterError(f"The sandbox worker process died ({how}) between actions. {STATE_LOST}")

    def _restart_after_failure(self) -> None:
        if self._proc is not None:
            self._proc.close()
        self._proc = None

    # --- the PythonExecutor contract -------------------------------------------------------
    def send_tools(self, tools: dict[str, Any]) -> None:
        with self._lock:
            self._tools.update(tools)
            self._worker()
            self._send_control({"op": "tools", "tools": self._tool_specs(tools)})
            self._drain()

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
        with self._lock:
            self._variables.update(variables)
            self._worker()
            self._send_control({"op": "vars", "values": encode(variables, allow_pickle=True)})
            self._drain()

    def reset(self) -> None:
        with self._lock:
            self._variables.clear()
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
            self._report_death_between_calls()
            self._drain()
            proc = self._worker()
            try:
                proc.send({"op": "run", "code": code_action})
            except EOFError:
                self._restart_after_failure()
                raise InterpreterError(f"The sandbox worker was not reachable. {STATE_LOST}") from None
            return _Exchange(self, proc).run()

    # --- helpers used by _Exchange ---------------------------------------------------------
    def _cut(self, logs: str) -> str:
        limit = self.max_print_outputs_length
        if limit is not None and len(logs) > limit:
            return (
                logs[:limit] + f"\n_Print outputs were over {limit} characters, so they have been truncated._"
            )
        return logs

    def _async_runner(self) -> _AsyncTools:
        if self._async is None:
            self._async = _AsyncTools()
        return self._async


class _Exchange:
    """One `run`: reads the worker's messages, serves tool calls, enforces the deadline."""

    def __init__(self, executor: WorkerExecutor, proc: WorkerLink) -> None:
        self.ex = executor
        self.proc = proc
        self.logs: list[str] = []
        self.host_final: Any = None
        self.inflight: dict[int, Any] = {}
        self.done_async: list[tuple[int, Any]] = []
        self.wake_r, self.wake_w = -1, -1
        timeout = executor.timeout_seconds
        self.deadline = None if timeout is None else time.monotonic() + timeout

    def run(self) -> CodeOutput:
        try:
            return self._loop()
        finally:
            if self.wake_r >= 0:
                os.close(self.wake_r)
                os.close(self.wake_w)

    def _loop(self) -> CodeOutput:
        while True:
            try:
                before = time.monotonic()
                message = self.proc.read(self.deadline, self.wake_r if self.inflight else None)
                if self.inflight and self.deadline is not None:
                    self.deadline += time.monotonic() - before  # waiting on host tools does not count
            except TimeoutError:
                self._fail_worker()
                raise self._with_logs(
                    ExecutionTimeoutError(
                        f"Code execution exceeded the time limit of {self.ex.timeout_seconds:g} seconds and was "
                        f"stopped. {STATE_LOST}"
                    )
                ) from None
            except EOFError:
                raise self._with_logs(self._crash_error()) from None
            if message is None:
                self._deliver_async()
                continue
            op = message.get("op")
            if op == "print":
                self.logs.append(str(message.get("text", "")))
            elif op == "tool_call":
                self._tool_call(message)
            elif op == "done":
                self.logs.append(str(message.get("logs", "")))
                return CodeOutput(decode(message.get("output")), self.ex._cut("".join(self.logs)), False)
            elif op == "final_answer":
                self.logs.append(str(message.get("logs", "")))
                value = self.host_final if message.get("host_value") else decode(message.get("value"))
                return CodeOutput(value, self.ex._cut("".join(self.logs)), True)
            elif op == "error":
                self.logs.append(str(message.get("logs", "")))
                raise self._with_logs(InterpreterError(str(message.get("message"))))
            else:
                self._fail_worker()
                raise InterpreterError(f"the sandbox worker sent an unexpected message {op!r}. {STATE_LOST}")

    def _with_logs(self, error: InterpreterError) -> InterpreterError:
        error.logs = self.ex._cut("".join(self.logs))
        return error

    def _fail_worker(self) -> None:
        self.proc.kill()
        self.ex._restart_after_failure()

    def _crash_error(self) -> InterpreterError:
        how = self.proc.exit_description()
        tail = self.proc.stderr_tail()
        self.ex._restart_after_failure()
        detail = f"\nWorker stderr:\n{tail}" if tail else ""
        return InterpreterError(
            f"The sandbox worker process died ({how}) while running the code. {STATE_LOST}{detail}"
        )

    # --- tools -----------------------------------------------------------------------------
    def _tool_call(self, message: dict[str, Any]) -> None:
        call_id = int(message["id"])
        name = str(message.get("name"))
        fn = self.ex._tools.get(name)
        try:
            args = decode(message.get("args", []))
            kwargs = decode(message.get("kwargs", {}))
        except Exception as exc:
            self._reply(call_id, ok=False, error=f"arguments could not be decoded: {exc}")
            return
        if fn is None:
            self._reply(call_id, ok=False, error=f"no tool named {name!r}")
            return
        if inspect.iscoroutinefunction(fn) and name != "final_answer":
            self._start_async(call_id, fn, args, kwargs)
            return
        started = time.monotonic()
        try:
            result = fn(*args, **kwargs)
            if inspect.isawaitable(result):
                result = asyncio.run_coroutine_threadsafe(
                    _await(result), self.ex._async_runner().loop
                ).result()
        except Exception as exc:
            self._reply(call_id, ok=False, error=f"{type(exc).__name__}: {exc}")
            return
        finally:
            if self.deadline is not None:
                self.deadline += time.monotonic() - started
        if name == "final_answer":
            self.host_final = result
            self.proc.send({"op": "tool_result", "id": call_id, "ok": True, "final": True})
        else:
            self._reply(call_id, ok=True, value=result)

    def _reply(self, call_id: int, ok: bool, value: Any = None, error: str | None = None) -> None:
        payload: dict[str, Any] = {"op": "tool_result", "id": call_id, "ok": ok}
        if ok:
            payload["value"] = encode(value, allow_pickle=True)
        else:
            payload["error"] = error
        self.proc.send(payload)

    def _start_async(
        self, call_id: int, fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]
    ) -> None:
        if self.wake_r < 0:
            self.wake_r, self.wake_w = os.pipe()
        runner = self.ex._async_runner()
        future = asyncio.run_coroutine_threadsafe(fn(*args, **kwargs), runner.loop)
        self.inflight[call_id] = future

        def wake(_: Any, call_id: int = call_id) -> None:
            self.done_async.append((call_id, future))
            with contextlib.suppress(OSError):
                os.write(self.wake_w, b"x")

        future.add_done_callback(wake)

    def _deliver_async(self) -> None:
        with contextlib.suppress(OSError):
            os.read(self.wake_r, 4096)
        while self.done_async:
            call_id, future = self.done_async.pop(0)
            self.inflight.pop(call_id, None)
            exc = future.exception()
            if exc is not None:
                self._reply(call_id, ok=False, error=f"{type(exc).__name__}: {exc}")
            else:
                self._reply(call_id, ok=True, value=future.result())


async def _await(awaitable: Any) -> Any:
    return await awaitable
