"""Stopping a run leaves nothing behind: signals at several points of a real `smolagent` run.

Each case starts the real command (under a parent process that stands for `hatch run` or a shell)
with a model whose action loops for ever in the sandbox, waits until the run is where the case wants
it, sends the signal, and then checks that within a few seconds no process of the run is left: not
the agent, not its executor workers. Processes are found from /proc (every descendant of the parent
seen while the run was alive), so a worker that re-parents itself to PID 1 is still counted.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from smol_core.testing.processes import (
    alive,
    as_from_a_terminal,
    cpu_seconds,
    descendants,
    describe,
    entry_point_plugin,
    process_table,
    silent_launcher,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc"),
]

LOOPING_MODEL = """
from smol_core import ChatMessage, Model, hookimpl
from smol_core.plugins.specs import ModelSpec

ACTION = "Thought: count for ever.\\n<code>\\nn = 0\\nwhile True:\\n    n += 1\\n</code>"


class LoopingModel(Model):
    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kw):
        return ChatMessage("assistant", ACTION)


@hookimpl
def smol_models():
    return [ModelSpec("looping", lambda **kw: LoopingModel(model_id="looping"), "Its action never ends.")]
"""


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `smol` entry point for the looping model, on PYTHONPATH only for the runs of this module."""
    return entry_point_plugin(
        tmp_path_factory.mktemp("looping-plugin"), "smol_looping_model", textwrap.dedent(LOOPING_MODEL)
    )


class Run:
    """A `smolagent` run under a stand-in parent; `seen` gathers every process of it while it lives."""

    def __init__(self, plugin_path: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(plugin_path), "PYTHONUNBUFFERED": "1"}
        smolagent = str(Path(sys.executable).with_name("smolagent"))
        command = [smolagent, "Count for ever", "--model-type", "looping", "--max-steps", "3"]
        # its own session, as a terminal would give it: the test's signals reach no one else
        self.parent = subprocess.Popen(
            silent_launcher(command),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=as_from_a_terminal,  # whatever this test run was started with (nohup)
        )
        self.seen: set[int] = set()
        self.stderr: list[str] = []
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stderr(self) -> None:
        for line in self.parent.stderr:  # type: ignore[union-attr]
            self.stderr.append(line.decode(errors="replace"))

    def watch(self) -> None:
        self.seen |= descendants(self.parent.pid)

    @property
    def agent(self) -> int | None:
        table = process_table()
        children = [pid for pid, (ppid, _) in table.items() if ppid == self.parent.pid]
        return children[0] if children else None

    def wait_for(self, condition: str, timeout: float = 90.0) -> None:
        """`started`: the agent process exists (Python may still be starting); `running`: the run's
        banner is out; `busy`: its workers exist and an action is running."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.watch()
            agent = self.agent
            if condition == "started" and agent is not None:
                return
            if condition == "running" and any("New run" in line for line in self.stderr):
                return
            # a worker that has burnt a second of CPU is in the looping action (its start takes less)
            if condition == "busy" and agent is not None:
                if any(cpu_seconds(pid) >= 1.0 for pid in descendants(agent)):
                    self.watch()
                    return
            if self.parent.poll() is not None:
                pytest.fail(f"the run ended early: {''.join(self.stderr)[-2000:]}")
            time.sleep(0.05)
        pytest.fail(f"the run never got {condition}")

    def leftovers(self, within: float) -> set[int]:
        """The run's processes still alive after `within` seconds (sooner if none is)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            left = alive(self.seen | {self.parent.pid})
            self.parent.poll()
            if not left:
                return set()
            time.sleep(0.05)
        return alive(self.seen | {self.parent.pid})

    def kill_all(self) -> None:
        for pid in alive(self.seen | {self.parent.pid}):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.parent.wait(10)


@pytest.fixture
def run(plugin_path: Path) -> Iterator[Run]:
    started = Run(plugin_path)
    yield started
    started.kill_all()


# (who gets the signal, which signal, when)
CASES = [
    ("agent", signal.SIGTERM, "busy"),
    ("agent", signal.SIGINT, "busy"),
    ("agent", signal.SIGKILL, "busy"),
    ("agent", signal.SIGTERM, "started"),
    ("agent", signal.SIGINT, "started"),
    ("parent", signal.SIGKILL, "busy"),
    ("parent", signal.SIGTERM, "busy"),
    # A launcher killed while Python is still starting the agent (before `smolagent`'s main) is not
    # noticed: from then on the agent follows its launcher (smol_core.cli.lifetime).
    ("parent", signal.SIGKILL, "running"),
    ("group", signal.SIGHUP, "busy"),  # the terminal closes
]


@pytest.mark.parametrize(("target", "signum", "when"), CASES, ids=[f"{t}-{s.name}-{w}" for t, s, w in CASES])
def test_nothing_of_the_run_is_left(run: Run, target: str, signum: signal.Signals, when: str) -> None:
    run.wait_for(when)
    if target == "agent":
        agent = run.agent
        assert agent is not None
        os.kill(agent, signum)
    elif target == "parent":
        os.kill(run.parent.pid, signum)
    else:
        os.killpg(run.parent.pid, signum)
    left = run.leftovers(within=30.0)  # returns as soon as none is left: the bound is on a hang
    assert not left, f"still running after {signum.name} to the {target} ({when}):\n{describe(left)}"
