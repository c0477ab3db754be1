"""Run a page-serving program (a saved `app.py`, `smol ui`) as its own process, as a user would."""

from __future__ import annotations

import os
import subprocess
import urllib.request
from pathlib import Path

from browser_kit import free_port, wait_for


def serve_process(
    argv: list[str], cwd: Path, extra_env: dict[str, str], port: int | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """Start `argv` in `cwd` with Gradio told to serve on a free port of 127.0.0.1; wait until the
    page answers. Returns the process and the page's URL (output goes to `cwd/app.log`)."""
    port = port or free_port()
    env = {
        **os.environ,
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_ANALYTICS_ENABLED": "False",
        **extra_env,
    }
    log_path = cwd / "app.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"

    def answering() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"{argv} exited: {log_path.read_text(errors='replace')}")
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 (127.0.0.1 only)
            return bool(response.status == 200)

    try:
        wait_for(answering, timeout=120, what=f"{argv} to serve its page")
    except BaseException:
        process.kill()
        process.wait()
        raise
    return process, url


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
