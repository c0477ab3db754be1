"""Paths and helpers shared by the MCP tests (a module name unique across tests/)."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).parent
DEMO = HERE / "demo_server.py"
SMOL_TOOLS = HERE / "smol_tools.py"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")
