"""Workers already configured and sandboxed, waiting for their first action: one per recent setting.

Why: a server that makes a fresh agent per request (as smolagents' maintainers advise) makes a fresh
executor each time, with the same settings each time. A spare process waiting for its `config`
(process.py) saves the interpreter's start, but the worker still has to apply its walls (rlimits,
namespaces, mounts, Landlock, the uid change, seccomp, the audit hook: a few milliseconds) once it
knows them. Here a worker is taken through that whole start in the background, for the settings the
last executors asked for, so the next executor with the same settings gives its first result at once.

What makes it safe: a ready spare is made by the same code path as any executor's worker (a real
`LocalPythonExecutor` is its vessel, see `ready_worker_for`), with the exact `config` the taking
executor would have sent (the key is every setting that goes into it) and a scratch folder of its
own that no one else has used; it has run nothing. An executor whose settings differ in anything
gets none.

`SMOL_EXECUTOR_PREWARM=0` turns spares off, these and process.py's.
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from smol_core.executors.host import process  # noqa: F401 - imported first: its exit hooks run after ours
from smol_core.executors.host.switches import EnvSwitch

if TYPE_CHECKING:
    from smol_core.executors.host.link import WorkerLink
    from smol_core.executors.local import LocalPythonExecutor

__all__ = ["READY_SPARES", "ReadySpares", "ReadyWorker", "filling_now"]

MAX_SETTINGS = 4
"""How many different settings keep ready spares: a server uses one or two; more would be memory
held for settings that may not come back."""
MAX_DEPTH = 3
"""The most spares kept for one setting. One, until executors come faster than it is refilled:
each time one finds none waiting, one more is kept, up to this."""


class ReadyWorker:
    """A worker past its `ready`, with what the executor that takes it adopts: its link, the
    protections it reported, and its scratch folder (removed with the spare unless adopted)."""

    def __init__(self, link: WorkerLink, protections: list[tuple[str, bool, str]], scratch: str) -> None:
        self.link = link
        self.protections = protections
        self.scratch = scratch
        self._cleanup = weakref.finalize(self, shutil.rmtree, scratch, True)

    def adopt(self) -> tuple[WorkerLink, list[tuple[str, bool, str]], str]:
        """Hand everything over: the taker now owns the worker and removes the folder."""
        self._cleanup.detach()
        return self.link, self.protections, self.scratch

    def discard(self) -> None:
        with contextlib.suppress(Exception):
            self.link.close()
        self._cleanup()


_FILLING = threading.local()


def filling_now() -> bool:
    """Whether this thread is making a ready spare (its vessel executor must not take one)."""
    return bool(getattr(_FILLING, "active", False))


class ReadySpares:
    """Ready workers for the `MAX_SETTINGS` settings used last, as many per setting as demand asks.

    One filler thread makes them, in the order asked (started on first need): starting a thread per
    take would put the thread's start on the path this is meant to clear.
    """

    enabled = EnvSwitch("SMOL_EXECUTOR_PREWARM")

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._ready: OrderedDict[Hashable, list[ReadyWorker]] = OrderedDict()
        self._depth: dict[Hashable, int] = {}
        self._wanted: OrderedDict[Hashable, Callable[[], LocalPythonExecutor]] = OrderedDict()
        self._filler: threading.Thread | None = None

    def take(self, key: Hashable, make: Callable[[], LocalPythonExecutor]) -> ReadyWorker | None:
        """A ready worker for `key` if one waits; either way, the spares for `key` are refilled."""
        if not self.enabled:
            return None
        with self._lock:
            spares = self._ready.setdefault(key, [])
            self._ready.move_to_end(key)
            ready = spares.pop(0) if spares else None
            if ready is None and key in self._depth:  # asked again before it was refilled
                self._depth[key] = min(MAX_DEPTH, self._depth[key] + 1)
            self._depth.setdefault(key, 1)
            self._wanted[key] = make
            evicted = self._evict()
            if self._filler is None:
                self._filler = threading.Thread(
                    target=self._fill_forever, name="smol-ready-workers", daemon=True
                )
                self._filler.start()
            self._lock.notify()
        for spare in evicted:
            spare.discard()
        if ready is not None and not ready.link.alive():
            ready.discard()
            return None
        return ready

    def _evict(self) -> list[ReadyWorker]:
        """The spares of the settings used longest ago, beyond `MAX_SETTINGS` (called locked)."""
        evicted: list[ReadyWorker] = []
        while len(self._ready) > MAX_SETTINGS:
            key, spares = self._ready.popitem(last=False)
            self._depth.pop(key, None)
            self._wanted.pop(key, None)
            evicted += spares
        return evicted

    def _fill_forever(self) -> None:
        _FILLING.active = True
        while True:
            with self._lock:
                while self.enabled and not self._wanted:
                    self._lock.wait()
                if not self.enabled:
                    self._filler = None
                    return
                key, make = next(iter(self._wanted.items()))
                if key not in self._ready or len(self._ready[key]) >= self._depth.get(key, 0):
                    del self._wanted[key]
                    continue
            try:
                ready: ReadyWorker | None = ready_worker_for(make())
            except Exception:  # a spare that failed is no spare; the executor starts its own
                ready = None
            self._keep(key, ready)

    def _keep(self, key: Hashable, ready: ReadyWorker | None) -> None:
        with self._lock:
            spares = self._ready.get(key)
            if ready is not None and self.enabled and spares is not None:
                spares.append(ready)
                return
            if ready is None:
                self._wanted.pop(key, None)  # failed: no retrying in a loop; the next take asks again
        if ready is not None:
            ready.discard()

    def shutdown(self) -> None:
        with self._lock:
            self.enabled = False
            spares = [spare for kept in self._ready.values() for spare in kept]
            self._ready = OrderedDict()
            self._wanted.clear()
            self._lock.notify_all()
        for spare in spares:
            spare.discard()


def ready_worker_for(vessel: LocalPythonExecutor) -> ReadyWorker:
    """Take `vessel`'s worker through its start, then detach it (and its scratch folder) from the
    vessel, which is closed without touching them."""
    try:
        vessel.wait_until_ready()
        link, scratch = vessel.detach_worker()
    finally:
        vessel.close()
    return ReadyWorker(link, list(vessel.protections), scratch)


READY_SPARES = ReadySpares()
atexit.register(
    READY_SPARES.shutdown
)  # before process.py's spares and template (atexit is last-in, first-out)
