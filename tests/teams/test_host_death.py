"""A host killed outright (SIGKILL: no clean-up of its own) leaves no agent running, whichever way
its agents started.

A spawned agent's parent is the host, and the kernel's PDEATHSIG stops it. A forked agent's parent
is the fork server, which outlives the host while any agent runs: it used to go on running (and
its sandbox worker with it) until the deadline no one was left to enforce.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

HERE = Path(__file__).parent

HOST = """
import json
import sys
import threading
import time

sys.path.insert(0, {helpers!r})

from team_helpers import code

from smol_core.teams import AgentSettings, Team
from smol_core.testing import ScriptedModel

if __name__ == "__main__":
    busy = [code("for i in range(10**10):\\n    pass")]
    settings = AgentSettings(model=ScriptedModel(busy, repeat_last=True), verbosity_level=-1)
    team = Team(settings, num_agents=2, deadline_seconds=300, context={context!r})
    threading.Thread(target=team.run, args=("Work.",), daemon=True).start()
    while len(team.processes) < 2 or any(process.pid is None for process in team.processes):
        time.sleep(0.05)
    print(json.dumps([process.pid for process in team.processes]), flush=True)
    time.sleep(600)
"""


def _children(pid: int) -> list[int]:
    """The live children of `pid` but its scratch janitor (it outlives its agent by design, briefly)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid and fields[0] != "Z":
                    if b"smol-janitor" not in (entry / "cmdline").read_bytes():
                        found.append(int(entry.name))
    return found


def _descendants(pid: int) -> list[int]:
    """Every live process below `pid` (the janitor aside): agents, the fork server, the worker
    template and the sandbox workers it forked for the agents."""
    found, stack = [], [pid]
    while stack:
        for child in _children(stack.pop()):
            found.append(child)
            stack.append(child)
    return found


def _is_sandbox_worker_of(agent: int, pid: int) -> bool:
    """A worker the agent spawned, or one the host's template forked for it (it watches the agent)."""
    try:
        parent = int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
        parent_cmdline = (Path("/proc") / str(parent) / "cmdline").read_bytes()
    except OSError:
        return False
    return parent == agent or b"serve_template" in parent_cmdline


def _running(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_for(condition, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= end:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("context", ["forkserver", "spawn"])
def test_agents_and_their_sandbox_workers_end_when_the_host_is_killed(tmp_path: Path, context: str):
    script = tmp_path / "host.py"
    script.write_text(textwrap.dedent(HOST.format(helpers=str(HERE), context=context)))
    host = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    agents: list[int] = []
    workers: list[int] = []
    try:
        assert host.stdout is not None
        agents = json.loads(host.stdout.readline())
        # agent 0 is in its run once it has its sandbox worker (spawned, or forked by the host's
        # template); agent 1 waits for a message
        assert _wait_for(lambda: any(_is_sandbox_worker_of(agents[0], p) for p in _descendants(host.pid)), 60)
        workers = [pid for pid in _descendants(host.pid) if pid not in agents]
        os.kill(host.pid, signal.SIGKILL)
        host.wait()
        assert _wait_for(lambda: not any(_running(pid) for pid in agents + workers), 15), [
            pid for pid in agents + workers if _running(pid)
        ]
    finally:
        for pid in [host.pid, *agents, *workers]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        host.wait()
