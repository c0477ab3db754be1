"""A step's heartbeats: each save in the middle of a step reaches the Temporal server before the
step goes on, and the newest is repeated while the step runs.

Why waited for: `activity.heartbeat()` only queues the details; the worker sends them a moment
later. A worker killed in that moment lost a save the step had already gone past: a tool call
recorded as starting (its side effect then made again by the retry on another worker) or a model
reply received (the call made again). A worker made by `create_worker` registers its client and
event loop here, and each beat is recorded with the server by that client
(RecordActivityTaskHeartbeat, its answer awaited), one at a time, so the details the server holds
only move forward. An activity run by some other worker falls back to `activity.heartbeat()`.

A beat the server does not take in time (or refuses) is queued as `activity.heartbeat()` queues
it, as before: no new way for a step to fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator
from datetime import timedelta

from temporalio import activity
from temporalio.client import Client

_recorders: dict[str, tuple[Client, asyncio.AbstractEventLoop]] = {}
_recorders_lock = threading.Lock()

RECORD_SECONDS = 30.0
"""The longest a beat waits for the server (a server that does not answer fails the attempt)."""


def register(task_queue: str, client: Client, loop: asyncio.AbstractEventLoop) -> None:
    """Record the heartbeats of `task_queue`'s steps through `client`, on `loop` (its worker's)."""
    with _recorders_lock:
        for queue in [queue for queue, (_, old) in _recorders.items() if old.is_closed()]:
            del _recorders[queue]  # its worker is gone with its loop
        _recorders[task_queue] = (client, loop)


def _recorder(info: activity.Info) -> Callable[[str], None] | None:
    with _recorders_lock:
        found = _recorders.get(info.task_queue)
    if found is None or found[1].is_closed():
        return None
    client, loop = found
    handle = client.get_async_activity_handle(task_token=info.task_token)

    def record(details: str) -> None:
        beat = handle.heartbeat(details, rpc_timeout=timedelta(seconds=RECORD_SECONDS))
        asyncio.run_coroutine_threadsafe(beat, loop).result(RECORD_SECONDS + 5)

    return record


class Heartbeat:
    """The heartbeats of one attempt of a step, its details the newest save (a checkpoint, as text)."""

    def __init__(self, details: str | None) -> None:
        self._details = details
        self._lock = threading.Lock()
        self._record = _recorder(activity.info())
        self._context = contextvars.copy_context()  # the activity's, which activity.heartbeat() needs

    def send(self, details: str) -> None:
        """A save in the middle of the step: on the server when this returns."""
        with self._lock:
            self._details = details
            self._beat()

    def _beat(self) -> None:
        if self._details is None:
            self._context.run(activity.heartbeat)  # nothing saved yet: only alive
        else:
            if self._record is not None:
                with contextlib.suppress(Exception):
                    self._record(self._details)
                    return
            self._context.run(activity.heartbeat, self._details)

    @contextlib.contextmanager
    def repeating(self, timeout: timedelta | None) -> Iterator[None]:
        """Repeat the newest details every third of `timeout` while the block runs, so that a long
        model call or tool does not pass for a dead worker."""
        if not timeout:
            yield
            return
        stop = threading.Event()

        def beat() -> None:
            while True:
                with self._lock:
                    self._beat()
                if stop.wait(timeout.total_seconds() / 3):
                    return

        thread = threading.Thread(target=beat, name="smol-temporal-heartbeat", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
