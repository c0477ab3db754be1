"""While a step runs, `smolagent` shows what the agent is doing on a terminal, and nothing in a pipe.

The model of these runs waits for the test before its first reply (a slow model, on cue), then asks
for code that takes a few seconds, then answers. On a pseudo-terminal the test sees the status line
name the model wait, then the code; with stderr a pipe, stderr holds no status line at all.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

GATED_MODEL = '''
import os, time
from smol_core import ChatMessage, Model, hookimpl
from smol_core.plugins.specs import ModelSpec


class GatedModel(Model):
    """Its first reply waits for the test's gate file; then code that takes a while; then 7."""

    calls = 0

    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kw):
        GatedModel.calls += 1
        if GatedModel.calls == 1:
            while not os.path.exists(os.environ["SMOL_TEST_GATE"]):
                time.sleep(0.05)
            return ChatMessage("assistant", "Thought: work.\\n<code>\\nimport time\\ntime.sleep(4)\\n</code>")
        return ChatMessage("assistant", "Thought: done.\\n<code>\\nfinal_answer(7)\\n</code>")


@hookimpl
def smol_models():
    return [ModelSpec("gated", lambda **kw: GatedModel(model_id="gated"), "Waits for its cue.")]
'''


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("gated-plugin")
    (site / "smol_gated_model.py").write_text(textwrap.dedent(GATED_MODEL))
    info = site / "smol_gated_model-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: smol-gated-model\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[smol]\nsmol-gated-model = smol_gated_model\n")
    return site


def _command() -> list[str]:
    smolagent = str(Path(sys.executable).with_name("smolagent"))
    return [smolagent, "Work, then say 7", "--model-type", "gated", "--verbosity-level", "-1"]


def _env(plugin_path: Path, gate: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(plugin_path), "SMOL_TEST_GATE": str(gate), "TERM": "xterm"}


def test_a_terminal_shows_what_the_step_is_doing(plugin_path: Path, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        _command(),
        env=_env(plugin_path, gate),
        stdout=subprocess.PIPE,
        stderr=follower,
        stdin=subprocess.DEVNULL,
    )
    os.close(follower)
    seen: list[str] = []

    def read() -> None:
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                return
            if not chunk:
                return
            seen.append(chunk.decode(errors="replace"))

    threading.Thread(target=read, daemon=True).start()

    def wait_for(text: str) -> None:
        deadline = time.monotonic() + 120  # only a hang takes this long
        while text not in "".join(seen):
            assert process.poll() is None, "".join(seen)
            assert time.monotonic() < deadline, f"never showed {text!r}: {''.join(seen)!r}"
            time.sleep(0.05)

    try:
        wait_for("step 1: waiting for the model…")
        gate.touch()
        wait_for("step 1: running code…")
        out, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(leader)
    assert process.returncode == 0
    assert out.decode().strip() == "7"  # the answer alone on stdout: the status line is on stderr
    shown = "".join(seen)
    assert shown.rstrip(" ").endswith("\r\x1b[2K") or "\x1b[2K" in shown.splitlines()[-1], repr(shown[-200:])


def test_a_pipe_gets_no_status_line(plugin_path: Path, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    gate.touch()
    done = subprocess.run(_command(), env=_env(plugin_path, gate), capture_output=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.decode().strip() == "7"
    assert b"running code" not in done.stderr and b"\x1b[2K" not in done.stderr, done.stderr[-2000:]
