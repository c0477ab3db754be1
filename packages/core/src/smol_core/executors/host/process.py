"""Host side: starting worker processes, talking to them with deadlines, and keeping one spare warm.

Why a spare: starting CPython and importing the worker takes tens of milliseconds; a worker that is
already waiting for its `config` makes a fresh executor ready at once. The spare holds no settings and
no sandbox yet (it applies both on `config`), so any executor can take it.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

from smol_core.executors.host.bootstrap import worker_program
from smol_core.executors.host.link import FramedLink
from smol_core.executors.host.switches import EnvSwitch
from smol_core.executors.host.template import ForkedProcess, WorkerTemplate
from smol_core.executors.worker.framing import write_message

_SRC_ROOT = str(Path(__file__).resolve().parents[3])

_BOOTSTRAP = worker_program("from smol_core.executors.worker.main import main\nmain([])")

# The worker's whole environment: nothing of the host's (API keys, tokens, paths) crosses.
WORKER_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "HOME": "/nonexistent",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONHASHSEED": "0",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "MPLBACKEND": "Agg",
}


TEMPLATE = WorkerTemplate(_SRC_ROOT, WORKER_ENV)
"""The warm template this process forks its default workers from (`smol_core.executors.host.template`)."""


class WorkerProcess(FramedLink):
    """One worker: its pipes, a frame reader, and a kill switch."""

    def __init__(
        self,
        command: list[str] | None = None,
        env: dict[str, str] | None = None,
        template: WorkerTemplate | None = None,
    ) -> None:
        """`command` replaces the default (this interpreter, importing the worker from smol's sources),
        `env` the worker's environment (other runtimes, e.g. Node for WebAssembly, bring their own).
        `template`: fork the default worker from this warm template instead (OSError if it
        cannot; `new_worker()` then spawns).

        The default environment names this process as the worker's host (`SMOL_WORKER_PARENT`), so a
        worker started just as its host dies still notices and exits (`smol_core.executors.worker.lifetime`).
        """
        super().__init__()
        self.stderr: IO[bytes] = tempfile.TemporaryFile(prefix="smol-worker-stderr-")  # noqa: SIM115 - lives with the worker
        self.popen: subprocess.Popen[bytes] | ForkedProcess
        if template is not None and command is None and env is None:
            try:
                self.popen = _fork_from(template, self.stderr)
            except BaseException:
                self.stderr.close()
                raise
        else:
            self.popen = subprocess.Popen(
                command or [sys.executable, "-I", "-c", _BOOTSTRAP, _SRC_ROOT],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                env=dict(env) if env is not None else {**WORKER_ENV, "SMOL_WORKER_PARENT": str(os.getpid())},
                cwd=tempfile.gettempdir(),
                close_fds=True,
                start_new_session=True,
            )
        assert self.popen.stdin is not None and self.popen.stdout is not None
        self.in_fd = self.popen.stdin.fileno()
        self.out_fd = self.popen.stdout.fileno()
        self.killed_by_us = False
        self.oom_kills_at_start = oom_kill_count()

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def send(self, message: dict[str, Any]) -> None:
        try:
            write_message(self.in_fd, message)
        except (BrokenPipeError, OSError) as exc:
            raise EOFError(f"worker pipe closed: {exc}") from None

    def send_raw(self, data: bytes) -> None:
        """Write bytes that are not a protocol message: the worker bundle a loader reads first."""
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.in_fd, view) :]
        except (BrokenPipeError, OSError) as exc:
            raise EOFError(f"worker pipe closed: {exc}") from None

    def has_unread(self) -> bool:
        """Whether the worker sent anything not yet taken as a message: parsed, buffered or in the pipe.

        Asked without waiting when an exchange ends and between actions, when a well-behaved worker
        has nothing more to say, so anything there is a frame written out of turn.
        """
        if super().has_unread():
            return True
        try:
            ready, _, _ = select.select([self.out_fd], [], [], 0)
        except (OSError, ValueError):
            return False
        if not ready:
            return False
        # Readable at end of file too (a worker that exited has sent nothing): read to tell. A byte
        # read here is lost, which does not matter: it is a violation, and the worker is killed for it.
        try:
            return bool(os.read(self.out_fd, 1))
        except OSError:
            return False

    def _source(self) -> int:
        return self.out_fd

    def _receive(self) -> None:
        chunk = os.read(self.out_fd, 1 << 20)
        if not chunk:
            raise EOFError("worker closed its output")
        self._pending.extend(self._reader.feed(chunk))

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.killed_by_us = True
            try:
                os.killpg(self.popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=5)
        for stream in (self.popen.stdin, self.popen.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def exit_description(self) -> str:
        """How the process ended, once it did on its own (reaps it; kills it if it lingers)."""
        self.kill() if self.alive() else self.popen.wait()
        code = self.popen.returncode
        if code is None or code >= 0:
            return f"exit code {code}"
        return describe_signal_death(-code, self.killed_by_us, self.oom_kills_at_start)

    def stderr_tail(self, limit: int = 1500) -> str:
        try:
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - limit))
            return self.stderr.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def close(self) -> None:
        self.kill()
        self.stderr.close()


def _fork_from(template: WorkerTemplate, stderr: IO[bytes]) -> ForkedProcess:
    """A worker forked from `template` on two new pipes and `stderr`; the host keeps its ends."""
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    try:
        forked = template.fork(in_read, out_write, stderr.fileno())
    except BaseException:
        for fd in (in_write, out_read):
            os.close(fd)
        raise
    finally:
        os.close(in_read)  # the worker's ends: only the worker may hold them, or its end is never seen
        os.close(out_write)
    forked.stdin = os.fdopen(in_write, "wb", buffering=0)
    forked.stdout = os.fdopen(out_read, "rb", buffering=0)
    return forked


_workers_asked = 0


def new_worker(wait_for_template: bool = False) -> WorkerProcess:
    """A default worker: forked from the warm template when it serves, else spawned.

    The template is started by a process's second worker, not its first: a process that needs one
    worker (an agent of a team, a one-shot command without spares) would pay for starting two
    interpreters instead of one. `wait_for_template` (a spare made in the background) waits for it
    to serve rather than spawning meanwhile: its start costs what a spawned worker costs, once.
    """
    global _workers_asked
    _workers_asked += 1
    if wait_for_template and TEMPLATE.enabled:
        TEMPLATE.wait_until_serving()
    if TEMPLATE.ready(start=_workers_asked > 1):
        with contextlib.suppress(OSError):
            return WorkerProcess(template=TEMPLATE)
    return WorkerProcess()


class _SparePool:
    """At most one idle worker, refilled in the background after each take."""

    enabled = EnvSwitch("SMOL_EXECUTOR_PREWARM")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spare: WorkerProcess | None = None
        self._filling = False

    def take(self) -> WorkerProcess:
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is None or not spare.alive():
            spare = new_worker()
        self._refill()
        return spare

    def _refill(self) -> None:
        if not self.enabled:
            return
        with self._lock:
            if self._filling or self._spare is not None:
                return
            self._filling = True
        threading.Thread(target=self._fill, name="smol-spare-worker", daemon=True).start()

    def _fill(self) -> None:
        try:
            worker = new_worker(wait_for_template=True)
        except Exception:  # pragma: no cover - spawning failed; the next take will retry
            worker = None
        with self._lock:
            self._filling = False
            if self._spare is None and worker is not None:
                self._spare, worker = worker, None
        if worker is not None:
            worker.close()

    def shutdown(self) -> None:
        with self._lock:
            spare, self._spare = self._spare, None
            self.enabled = False
        if spare is not None:
            spare.close()


POOL = _SparePool()
atexit.register(TEMPLATE.shutdown)  # atexit runs last-registered first: the spares go before their template
atexit.register(POOL.shutdown)


def oom_kill_count() -> int | None:
    """How many processes the kernel's out-of-memory killer has killed since boot (None if unknown)."""
    try:
        with open("/proc/vmstat", "rb") as vmstat:  # bytes: no codec to look up in a fresh process
            for line in vmstat:
                if line.startswith(b"oom_kill "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def describe_signal_death(signum: int, killed_by_us: bool, oom_kills_at_start: int | None) -> str:
    """What is known about a worker killed by a signal, and nothing more.

    SIGKILL used to be reported as "likely out of memory"; it is that only if the kernel's
    out-of-memory counter moved while the worker lived. Otherwise someone sent it (`kill -9`, a
    supervisor), and the message says so. SIGXCPU is the worker's own CPU-time limit.
    """
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    how = f"killed by {name}"
    if killed_by_us:
        return how + " (stopped by smol)"
    if signum == signal.SIGXCPU:
        return how + ": the code used up its CPU-time limit"
    if signum != signal.SIGKILL:
        return how
    now = oom_kill_count()
    if oom_kills_at_start is None or now is None:
        return how + ", sent from outside smol: the kernel's out-of-memory killer, or another process"
    if now > oom_kills_at_start:
        return how + ": the kernel's out-of-memory killer (this machine or its container ran out of memory)"
    return how + ", sent by another process (the kernel reports no out-of-memory kill)"
