"""One `run` exchange with a worker: read its frames, serve its tool calls, enforce deadline and rules.

Why apart from driver.py: this is where the worker's frames are read while code runs, so this is where
a hostile worker is met. Every frame is checked (frames.py) against the exchange's random id and the
ops a run may send; values are decoded under a budget (untrusted.py); frames, log text and call ids
are counted. Any breach raises `ProtocolError`, which `run` turns into a dead worker and a
`ProtocolViolationError` for the model: the same outcome as a worker that loops forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from smol_core.executors.base import STATE_LOST, CodeOutput, ExecutionTimeoutError, InterpreterError
from smol_core.executors.host.frames import check_frame
from smol_core.executors.host.held import HostObjectRefusedError, holder, serve
from smol_core.executors.host.untrusted import decode_untrusted
from smol_core.executors.worker.protocol import Hold, ProtocolError, encode
from smol_core.instrumentation import capture, traced_call, traced_coroutine

if TYPE_CHECKING:
    from smol_core.executors.host.driver import WorkerExecutor
    from smol_core.executors.host.link import WorkerLink

RUN_OPS = frozenset({"print", "tool_call", "object_call", "done", "final_answer", "error"})


class Exchange:
    """One `run`: reads the worker's messages, serves tool calls, enforces the deadline."""

    def __init__(self, executor: WorkerExecutor, proc: WorkerLink, xid: str) -> None:
        self.ex = executor
        self.proc = proc
        self.xid = xid
        self.limits = executor.protocol_limits
        self.logs: list[str] = []
        self.log_chars = 0
        self.frames = 0
        self.call_ids: set[int] = set()
        self.host_final: Any = None
        self.host_final_given = False
        self.inflight: dict[int, Any] = {}
        self.done_async: list[tuple[int, Any]] = []
        self.wake_r, self.wake_w = -1, -1
        # tools the code calls are traced as children of the code's span, whatever thread runs them
        self.trace_parent = capture()
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
            message = self._next()
            if message is None:
                self._send_or_crash(self._deliver_async)
                continue
            try:
                output = self._handle(message)
            except ProtocolError as exc:
                raise self._with_logs(self.ex._violation(str(exc))) from None
            except EOFError:  # the worker closed its end while we answered a tool call
                raise self._with_logs(self._crash_error()) from None
            if output is not None:
                return output

    def _next(self) -> dict[str, Any] | None:
        try:
            before = time.monotonic()
            message = self.proc.read(self.deadline, self.wake_r if self.inflight else None)
            if self.inflight and self.deadline is not None:
                self.deadline += time.monotonic() - before  # waiting on host tools does not count
            return message
        except TimeoutError:
            self._fail_worker()
            raise self._with_logs(
                ExecutionTimeoutError(
                    f"Code execution exceeded the maximum execution time of {self.ex.timeout_seconds:g} seconds "
                    f"(the time limit of one action) and was stopped. {STATE_LOST}"
                )
            ) from None
        except EOFError:
            raise self._with_logs(self._crash_error()) from None
        except Exception as exc:  # ProtocolError from the link's reader, or anything garbled bytes caused
            raise self._with_logs(self.ex._violation(_describe(exc))) from None

    def _handle(self, message: dict[str, Any]) -> CodeOutput | None:
        op = check_frame(message, self.xid, RUN_OPS)
        self.frames += 1
        if self.frames > self.limits.max_frames_per_action:
            raise ProtocolError(
                f"the worker sent more than {self.limits.max_frames_per_action} frames in one action"
            )
        if op == "print":
            self._log(message["text"])
        elif op == "tool_call":
            self._tool_call(message)
        elif op == "object_call":
            self._object_call(message)
        elif op == "done":
            self._log(message["logs"])
            output = self._decode(message["output"])
            self._end()
            return CodeOutput(output, self.ex._cut("".join(self.logs)), False)
        elif op == "final_answer":
            self._log(message["logs"])
            if message["host_value"]:
                if not self.host_final_given:
                    raise ProtocolError(
                        "the worker claimed a final answer the host's final_answer never gave"
                    )
                value = self.host_final
            else:
                value = self._decode(message["value"])
            self._end()
            return CodeOutput(value, self.ex._cut("".join(self.logs)), True)
        else:  # error
            self._log(message["logs"])
            self._end()
            raise self._with_logs(InterpreterError(message["message"]))
        return None

    def _decode(self, data: Any) -> Any:
        return decode_untrusted(data, self.limits, self.deadline, self.ex._held)

    def _log(self, text: str) -> None:
        self.log_chars += len(text)
        if self.log_chars > self.limits.max_log_chars_per_action:
            raise ProtocolError(
                f"the worker sent more than {self.limits.max_log_chars_per_action} characters of logs"
            )
        if text:
            self.logs.append(text)

    def _end(self) -> None:
        """The exchange is over: anything the worker already sent beyond its last frame is a violation."""
        unread = getattr(self.proc, "has_unread", None)
        if unread is not None and unread():
            raise ProtocolError("the worker sent frames after the end of the exchange")

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

    def _send_or_crash(self, action: Callable[[], None]) -> None:
        try:
            action()
        except EOFError:
            raise self._with_logs(self._crash_error()) from None

    # --- tools -----------------------------------------------------------------------------
    def _call_arguments(self, message: dict[str, Any]) -> tuple[int, list[Any], dict[str, Any]]:
        """A call's fresh id and its decoded arguments; ProtocolError for a reused id or bad arguments."""
        call_id: int = message["id"]
        if not 0 < call_id <= self.limits.max_call_id or call_id in self.call_ids:
            raise ProtocolError("the worker sent a tool call with a reused or out-of-range id")
        self.call_ids.add(call_id)
        args = self._decode(message["args"])
        kwargs = self._decode(message["kwargs"])
        if type(args) is not list or type(kwargs) is not dict or any(type(k) is not str for k in kwargs):
            raise ProtocolError("the worker sent a tool call whose arguments are not a list and a dict")
        return call_id, args, kwargs

    def _object_call(self, message: dict[str, Any]) -> None:
        """An operation on an object the user handed to the code, done here under held.py's guard."""
        call_id, args, kwargs = self._call_arguments(message)
        started = time.monotonic()
        try:
            kind, value = serve(
                self.ex._held, message["object"], message["action"], message["name"], args, kwargs
            )
        except HostObjectRefusedError as exc:
            self.proc.send(_failed(call_id, "SandboxViolation", str(exc)))
            return
        except Exception as exc:
            self.proc.send(_failed(call_id, type(exc).__name__, f"{exc}"))
            return
        finally:
            if self.deadline is not None:
                self.deadline += time.monotonic() - started
        if kind == "method":
            self.proc.send({"op": "tool_result", "id": call_id, "ok": True, "method": True})
        else:  # an object the result holds becomes another handle
            self._reply(call_id, ok=True, value=value, hold=holder(self.ex._held))

    def _tool_call(self, message: dict[str, Any]) -> None:
        call_id, args, kwargs = self._call_arguments(message)
        name: str = message["name"]
        fn = self.ex._tools.get(name)
        if fn is None:
            self._reply(call_id, ok=False, error=f"no tool named {name[:200]!r}")
            return
        if inspect.iscoroutinefunction(fn) and name != "final_answer":
            self._start_async(call_id, fn, args, kwargs)
            return
        started = time.monotonic()
        try:
            result = traced_call(self.trace_parent, name, call_id, fn, args, kwargs)
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
            self.host_final, self.host_final_given = result, True
            self.proc.send({"op": "tool_result", "id": call_id, "ok": True, "final": True})
        else:
            self._reply(call_id, ok=True, value=result)

    def _reply(
        self, call_id: int, ok: bool, value: Any = None, error: str | None = None, hold: Hold | None = None
    ) -> None:
        """A tool's result crosses as data, or as its repr: never as a pickle (an object call's, with
        `hold`, also as handles to the objects it holds, which stay here).

        A pickle of a host object carries its whole state (clients, keys, tokens in attributes) to
        code that can read its raw channel; the codec carries the value and nothing else.
        """
        payload: dict[str, Any] = {"op": "tool_result", "id": call_id, "ok": ok}
        if not ok:
            payload["error"] = error
            self.proc.send(payload)
            return
        try:  # a frame is built whole before a byte is written: a refusal leaves the channel in step
            payload["value"] = encode(value, hold=hold)
            self.proc.send(payload)
        except (ValueError, TypeError, RecursionError, ProtocolError, HostObjectRefusedError) as exc:
            # an int past Python's 4,300-digit limit, a result over the frame limit: the code gets an
            # error it can handle, the executor stays usable
            reason = f"the tool's result could not be handed to the code ({_describe(exc)[:300]})"
            self.proc.send({"op": "tool_result", "id": call_id, "ok": False, "error": reason})

    def _start_async(
        self, call_id: int, fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]
    ) -> None:
        if self.wake_r < 0:
            self.wake_r, self.wake_w = os.pipe()
        runner = self.ex._async_runner()
        coroutine = traced_coroutine(
            self.trace_parent, getattr(fn, "__name__", "tool"), call_id, fn(*args, **kwargs)
        )
        future = asyncio.run_coroutine_threadsafe(coroutine, runner.loop)
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


def _failed(call_id: int, exc_type: str, text: str) -> dict[str, Any]:
    return {"op": "tool_result", "id": call_id, "ok": False, "error": text[:2000], "exc_type": exc_type[:100]}


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ProtocolError):
        return str(exc)
    return f"its bytes could not be read ({type(exc).__name__})"


async def _await(awaitable: Any) -> Any:
    return await awaitable
