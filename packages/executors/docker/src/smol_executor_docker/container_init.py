"""The container's first process: it starts the worker, and ends the container when the host is gone.

Why not the worker as PID 1 (as before): the kernel delivers to a PID namespace's init only the
signals it has handlers for, so the worker's own SIGKILL timer and the CPU limit's signals did
nothing, and a container whose host was SIGKILLed mid-action ran on past its action's limit. Why not
Docker's `--init` (tini): it cannot see the host, and it is not installed with every engine.

What it does, stdlib only:
- forks the worker, which gets a hard RLIMIT_CPU (`SMOL_CONTAINER_CPU_SECONDS`: the container's
  CPU budget over its life; the worker raises its soft limit per action, never past it), so the
  worker's timer and CPU limit kill it as they kill a local worker;
- watches the host's link: the host's attached stdin is the protocol stream, and when the host's
  process ends, however it ends, the engine closes it (StdinOnce). This process polls stdin for that
  hang-up without reading a byte of it (the worker reads it), then exits: the kernel then kills every
  process of the container's PID namespace, the worker and anything it started. Within a fraction
  of a second, whether the worker is idle, sleeping or spinning in C;
- reaps orphans (PID 1's duty), exits with the worker's status when the worker ends, and turns
  SIGTERM (`docker stop`) into the same immediate end;
- makes itself non-dumpable, so code in the worker (same user) cannot ptrace it to stop the watch.
"""

from __future__ import annotations

CPU_ENV = "SMOL_CONTAINER_CPU_SECONDS"

CONTAINER_INIT = """\
import os, select, signal, sys
cpu = os.environ.pop("SMOL_CONTAINER_CPU_SECONDS", "")
try:
    import ctypes
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no ptrace by the worker's code
except Exception:
    pass
worker = os.fork()
if worker == 0:
    try:
        if cpu.isdigit() and int(cpu) > 0:
            import resource
            resource.setrlimit(resource.RLIMIT_CPU, (int(cpu), int(cpu)))
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
def end(*_):
    os._exit(137)
signal.signal(signal.SIGTERM, end)
signal.signal(signal.SIGINT, end)
watch = select.poll()
watch.register(0, 0)  # no POLLIN: only a hang-up (or an error) of the host's stream wakes it
while True:
    if watch.poll(100):
        end()
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            os._exit(0)
        if pid == 0:
            break
        if pid == worker:
            os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
"""


def wrap(command: list[str], python: str = "python3") -> list[str]:
    """`command` run under the container's init process."""
    return [python, "-I", "-c", CONTAINER_INIT, *command]


def cpu_seconds(timeout_seconds: float | None) -> int:
    """The container's CPU budget over its life (its worker's hard RLIMIT_CPU): at least an hour,
    and room for many actions at their limit. When it is spent the worker dies, and the host starts
    a fresh container (variables and tools replayed), as after any crash."""
    if timeout_seconds is None:
        return 24 * 3600
    return max(3600, int(timeout_seconds * 20) + 1)
