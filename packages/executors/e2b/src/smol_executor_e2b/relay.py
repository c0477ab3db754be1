"""Runs inside the E2B sandbox (not on the host): turns E2B's text streams into the worker's byte pipe.

Why a relay: E2B's command API hands stdout to the SDK as UTF-8 text, which would mangle the
protocol's binary length prefixes. The relay starts the bundled worker with ordinary pipes and
carries each direction as base64 lines (worker → host lines start with "smol:", so whatever else a
template's login shell prints is told apart and ignored), so the frames themselves (and so the protocol) are the same
bytes as everywhere else. It also gives the worker a clean environment and ties the worker's life to
its own (PR_SET_PDEATHSIG): killing the relay command kills the running code.

Usage (stdlib only, any python3): python3 -I -c RELAY_SOURCE ENV_JSON WORKER_ARGV...
The host's first line is the worker bundle (see smol_core.executors.host.bundle), then protocol frames.
"""

import base64
import json
import os
import signal
import subprocess
import sys
import threading


def _die_with_parent() -> None:
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass
    os.setsid()


def _pump_out(worker: subprocess.Popen) -> None:  # type: ignore[type-arg]
    fd = worker.stdout.fileno()  # type: ignore[union-attr]
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        os.write(1, b"smol:" + base64.b64encode(chunk) + b"\n")
    code = worker.wait()
    os._exit(code if code >= 0 else 128 - code)


def main(argv: list[str]) -> None:
    env = json.loads(argv[0])
    worker = subprocess.Popen(
        argv[1:],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        close_fds=True,
        preexec_fn=_die_with_parent,
    )
    threading.Thread(target=_pump_out, args=(worker,), daemon=True).start()
    to_worker = worker.stdin.fileno()  # type: ignore[union-attr]
    for line in sys.stdin.buffer:
        data = memoryview(base64.b64decode(line))
        try:
            while data:
                data = data[os.write(to_worker, data) :]
        except OSError:
            break
    worker.stdin.close()  # type: ignore[union-attr]
    worker.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
