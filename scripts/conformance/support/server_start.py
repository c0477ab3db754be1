"""`subprocess.Popen` that returns once the server it started listens: for smolagents' MCP-over-HTTP tests.

Why: `test_integration_from_mcp_with_streamable_http` and `..._with_sse` start their server with
`subprocess.Popen(["python", "-c", script])` and give it one second (`time.sleep(1)`) to listen on
127.0.0.1:8000. On a loaded machine it takes longer, and the test fails by chance on either side,
moving the count between runs. With this `Popen` (conftest.py puts it in place for those two tests,
on both sides) the server is listening before the test goes on, or has exited, or 30 s have passed.
"""

import socket
import subprocess
import time


def popen_until_listening(host: str, port: int, marker: str, wait: float = 30.0) -> type:
    """A `Popen` whose constructor, for a command holding `marker`, waits for `host:port` to accept."""

    class PopenUntilListening(subprocess.Popen):
        def __init__(self, args, *more, **kwargs):
            super().__init__(args, *more, **kwargs)
            command = " ".join(map(str, args)) if isinstance(args, list | tuple) else str(args)
            if marker in command:
                self._wait_until_listening()

        def _wait_until_listening(self):
            deadline = time.monotonic() + wait
            while self.poll() is None and time.monotonic() < deadline:
                try:
                    socket.create_connection((host, port), timeout=1).close()
                    return
                except OSError:
                    time.sleep(0.05)

    return PopenUntilListening
