"""A stop signal that lands while Python runs code whose exceptions it ignores (an object's `__del__`:
`smol ui` lost Ctrl-C inside an asyncio event loop's) still stops the command, with nothing printed."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import os, signal, time
    from smol_core.cli import lifetime

    lifetime.stop_on_signals()

    class Closing:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)  # the signal arrives while __del__ runs
            time.sleep(0.05)

    try:
        item = Closing()
        del item
        for _ in range(500):
            time.sleep(0.01)
        print("not stopped")
    except KeyboardInterrupt as stopped:
        print("stopped", stopped.signum)
    """
)


def test_a_stop_raised_inside_a_destructor_is_delivered_again() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "stopped 2", done.stdout + done.stderr
    assert done.stderr == ""  # no "Exception ignored in ..." on the user's terminal
