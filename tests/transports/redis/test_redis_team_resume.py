"""A durable team over Redis survives its host: the host is SIGKILLed mid-run, and a new host
(`Team.resume`) takes the team over and answers right, each message handed over once.

The host runs in its own process (the team of tests/teams/test_durable_team.py: agent 0 sends "21",
agent 1 answers "ready", agent 0 sends the factor "2", agent 1 answers 42). It is killed while agent
1 is in its second model call: agent 1 has taken "21" and not acknowledged it, and said "ready".
Its agents stop as they do when their host dies. The resumed agent 1 goes on from its checkpoint;
Redis hands it "21" again (a dead reader's pending entry), which its inbox position drops: handed
over twice, "21" would be read as the factor and the answer would be 441.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from smol_core.durable import SQLiteStore
from smol_core.durable.errors import RunFinishedError, RunLockedError
from smol_core.durable.leases import parse_owner
from smol_core.teams import AgentSettings, Team
from smol_core.testing import FunctionModel, ResumableScript

TEAMS_TESTS = Path(__file__).parents[2] / "teams"
sys.path.insert(0, str(TEAMS_TESTS))
from team_helpers import code  # noqa: E402
from test_durable_team import DOUBLER, _team  # noqa: E402  (the team and its scripts: tests/teams)

TASK = "Double 21 with your peer"
HOST = f"""
import dataclasses, json, sys
from pathlib import Path
sys.path.insert(0, {str(TEAMS_TESTS)!r})
from test_durable_team import DOUBLER, _team
from smol_core.teams import AgentSettings, Team
from smol_core.testing import FunctionModel, ResumableScript

if __name__ == "__main__":
    folder, kwargs = Path(sys.argv[1]), json.loads(sys.argv[2])
    team, _ = _team(folder, kill_at=None)
    # agent 1's replies take a while, so that the host's kill lands inside its second model call
    slow = FunctionModel(ResumableScript(DOUBLER, folder / "agent-1.calls", pause_seconds=2.0))
    team.settings[1] = dataclasses.replace(team.settings[1], model=slow)
    team.transport_name = "redis"
    team.transport_kwargs = kwargs
    team.run({TASK!r}, run_id="host-killed")
"""


def _wait_for(condition, seconds: float, what: str) -> None:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _agents_of(store: Path) -> list[int]:
    """The processes driving the team's agents' runs now, by their runs' leases."""
    with contextlib.closing(sqlite3.connect(store)) as db:
        owners = [parse_owner(row[0]) for row in db.execute("SELECT owner FROM leases")]
    return [int(owner.pid) for owner in owners if owner is not None]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("acl_users", [False, True], ids=["plain", "acl-users"])
def test_a_team_whose_host_was_killed_is_resumed_and_answers_with_each_message_once(
    acl_users, request, tmp_path
):
    """With ACL users, the new host makes each agent's user again with the same password (drawn
    from the team's key), and each resumed agent logs in as its own."""
    if acl_users:
        server = request.getfixturevalue("secured_redis_server")
        kwargs = {"url": server.url, "admin_password_file": server.admin_password_file}
    else:
        kwargs = {"url": request.getfixturevalue("redis_url")}
    kwargs["claim_idle_seconds"] = 0.01
    calls = _kill_the_host_mid_run(tmp_path, kwargs)

    team, _ = _team(tmp_path, kill_at=None)
    team.settings[1] = dataclasses.replace(
        team.settings[1], model=FunctionModel(ResumableScript(DOUBLER, calls))
    )
    team.transport_name, team.transport_kwargs = "redis", kwargs
    result = team.resume("host-killed")

    assert result.state == "success" and result.output == "42", [a.error for a in result.agents.values()]
    # agent 1's first step was not made again; the second, cut short by the kill, was made once more
    assert _lines(calls) == ["0", "1", "1"]
    heard = [m["message"] for m in result.agents[0].messages if m["direction"] == "received"]
    assert heard == ["42"]  # "ready" was taken before the host died, and not handed over again
    with pytest.raises(RunFinishedError, match="already finished"):
        team.resume("host-killed")


def _kill_the_host_mid_run(tmp_path: Path, kwargs: dict[str, object]) -> Path:
    """Start the team's host, SIGKILL it inside agent 1's second model call (refusing a resume
    while it lives), and wait for its agents to stop; agent 1's log of model calls."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TEAMS_TESTS), *sys.path])}
    host = subprocess.Popen([sys.executable, "-c", HOST, str(tmp_path), json.dumps(kwargs)], env=env)
    calls = tmp_path / "agent-1.calls"
    try:
        _wait_for(lambda: _lines(calls) == ["0", "1"], 120, "agent 1's second model call")
        agents = _agents_of(tmp_path / "runs.sqlite3")
        with pytest.raises(RunLockedError, match="is being driven by process"):
            _team(tmp_path, kill_at=None)[0].resume("host-killed")  # its host lives: not taken over
    finally:
        os.kill(host.pid, signal.SIGKILL)
        host.wait()
    # the agents stop as they do when their host dies (SIGTERM from the kernel or their watcher)
    _wait_for(lambda: not any(_alive(pid) for pid in agents), 30, "the dead host's agents to stop")
    return calls


CLI_RESUME = """
import dataclasses, sys
from pathlib import Path
import smol_core.cli.smolagent as cli
from test_durable_team import DOUBLER, _team
from smol_core.testing import FunctionModel, ResumableScript

def settings(args, n):
    team, _ = _team(Path(sys.argv[1]), kill_at=None)
    calls = Path(sys.argv[1]) / "agent-1.calls"
    team.settings[1] = dataclasses.replace(team.settings[1], model=FunctionModel(ResumableScript(DOUBLER, calls)))
    return team.settings  # their store is the one --store names, as the host's was

cli._team_settings = settings
if __name__ == "__main__":
    sys.exit(cli.main(["--num-agents", "2", "--resume", "host-killed", "--transport", "redis",
                       "--transport-url", sys.argv[2], "--store", sys.argv[3], "--deadline", "120"]))
"""


def test_the_command_line_resumes_a_team_whose_host_was_killed(redis_url, tmp_path):
    """`smolagent --num-agents 2 --resume ID --transport redis ...`: the same take-over as
    `Team.resume`, from the command line; a second time, one line says the team finished."""
    calls = _kill_the_host_mid_run(tmp_path, {"url": redis_url, "claim_idle_seconds": 0.01})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TEAMS_TESTS), *sys.path])}
    command = [sys.executable, "-c", CLI_RESUME, str(tmp_path), redis_url, str(tmp_path / "runs.sqlite3")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "42\n" and _lines(calls) == ["0", "1", "1"]
    again = subprocess.run(command, capture_output=True, text=True, timeout=180, env=env)
    assert again.returncode == 2 and again.stdout == ""
    assert again.stderr.strip().count("\n") == 0 and "already finished" in again.stderr, again.stderr


# Agent 0 sends "21", then takes agent 1's "ready" in its second step and waits for more; agent 1
# answers "ready" and waits for more: the team ends idle. Agent 0's replies are slow, so the host is
# killed after agent 1 sent "ready" and before agent 0 took it.
WAIT = "receive_messages(timeout=300)"
PATIENT_ASKER = [
    code('send_message(target_id=1, message="21")'),
    code(f"ready = {WAIT}"),
    code(WAIT),
]
PATIENT_DOUBLER = [code('send_message(target_id=0, message="ready")'), code(WAIT)]
IDLE_HOST = f"""
import sys
from pathlib import Path
sys.path.insert(0, {str(Path(__file__).parent)!r})
sys.path.insert(0, {str(TEAMS_TESTS)!r})
from test_redis_team_resume import idle_team

if __name__ == "__main__":
    idle_team(Path(sys.argv[1]), sys.argv[2], pause_seconds=3.0).run({TASK!r}, run_id="idle")
"""


def idle_team(folder: Path, url: str, pause_seconds: float = 0.0) -> Team:
    store = SQLiteStore(folder / "runs.sqlite3")
    scripts = ((PATIENT_ASKER, pause_seconds), (PATIENT_DOUBLER, 0.0))
    settings = [
        AgentSettings(
            model=FunctionModel(ResumableScript(script, folder / f"agent-{n}.calls", pause_seconds=pause)),
            max_steps=5,
            verbosity_level=-1,
            checkpoint_store=store,
        )
        for n, (script, pause) in enumerate(scripts)
    ]
    kwargs = {"url": url, "claim_idle_seconds": 0.01}
    return Team(settings, transport="redis", transport_kwargs=kwargs, deadline_seconds=40)


def test_a_resumed_team_whose_agents_all_wait_ends_idle(redis_url, tmp_path):
    """The host counted messages sent and taken in its own memory: the new host's counts started at
    zero, and "ready" (sent before the kill, taken after) left them unequal for good, so a team
    whose agents all waited ran to its deadline instead of ending idle."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TEAMS_TESTS), *sys.path])}
    host = subprocess.Popen([sys.executable, "-c", IDLE_HOST, str(tmp_path), redis_url], env=env)
    asker, doubler = tmp_path / "agent-0.calls", tmp_path / "agent-1.calls"
    try:
        _wait_for(lambda: _lines(asker) == ["0", "1"] and "1" in _lines(doubler), 120, "'ready' to be sent")
        agents = _agents_of(tmp_path / "runs.sqlite3")
        assert _lines(asker) == ["0", "1"], "agent 0 took 'ready' before the host was killed"
    finally:
        os.kill(host.pid, signal.SIGKILL)
        host.wait()
    _wait_for(lambda: not any(_alive(pid) for pid in agents), 30, "the dead host's agents to stop")

    result = idle_team(tmp_path, redis_url).resume("idle")
    assert result.state == "idle", result.state
