"""Durable teams: an agent whose process dies mid-run is started again and resumes where it was.

Real processes, the real local executor and a real SQLite store; the agent is killed with SIGKILL by
its own model at a chosen call (team_helpers.CrashingModel), as an out-of-memory kill or a crash in
a native library would end it.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from team_helpers import code, descendants, left_behind

from smol_core.durable import CheckpointError, SQLiteStore
from smol_core.durable.runner import read_checkpoint
from smol_core.teams import AgentSettings, Team
from smol_core.teams.team import agent_run_id
from smol_core.testing import FunctionModel, ResumableScript

# Agent 1 takes "21" as its task and says it is ready; it is killed at its second model call, so
# agent 0's second message (the factor) is sent while it is dead or starting again, and waits in its
# inbox for the new process.
ASKER = [
    code('send_message(target_id=1, message="21")'),
    code('ready = receive_messages(timeout=60)\nsend_message(target_id=1, message="2")'),
    code('replies = receive_messages(timeout=60)\nfinal_answer(replies[0]["message"])'),
]
DOUBLER = [
    code('n = 21\nsend_message(target_id=0, message="ready")'),
    code(
        'factor = receive_messages(timeout=60)\nproduct = n * int(factor[0]["message"])\n'
        "send_message(target_id=0, message=str(product))\nfinal_answer(product)"
    ),
]


def _team(tmp_path: Path, kill_at: int | None, max_restarts: int = 3) -> tuple[Team, Path]:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    log = tmp_path / "agent-1.calls"
    settings = [
        AgentSettings(
            model=FunctionModel(ResumableScript(ASKER, tmp_path / "agent-0.calls")),
            max_steps=5,
            verbosity_level=-1,
            checkpoint_store=store,
        ),
        AgentSettings(
            model=FunctionModel(ResumableScript(DOUBLER, log, crash_at=kill_at, marker=tmp_path / "killed")),
            max_steps=5,
            verbosity_level=-1,
            checkpoint_store=store,
        ),
    ]
    return Team(settings, deadline_seconds=120, max_restarts=max_restarts), log


def test_an_agent_killed_at_its_first_model_call_resumes_from_the_task_it_took_from_its_inbox(tmp_path):
    """Killed before its first step ended: its checkpoint holds the task the message made and the
    message's id, so the new process neither waits for that message again nor is handed it."""
    team, log = _team(tmp_path, kill_at=0)
    result = team.run("Double 21 with your peer", run_id="first-call")
    assert result.state == "success" and result.output == "42"
    assert result.agents[1].restarts == 1
    assert log.read_text().splitlines() == ["0", "1"]


def test_an_agent_killed_mid_run_is_started_again_and_resumes_with_its_variables_and_inbox(tmp_path):
    before = descendants()
    team, log = _team(tmp_path, kill_at=1)
    result = team.run("Double 21 with your peer", run_id="team-run")
    assert result.state == "success" and result.output == "42"
    assert (tmp_path / "killed").exists()
    assert result.agents[1].restarts == 1 and result.agents[0].restarts == 0
    # its first step was not done again (its model call was made once, and "ready" was sent once);
    # `n` came back in its sandbox, and the factor sent while it was down reached the new process
    assert log.read_text().splitlines() == ["0", "1"]
    heard = [m["message"] for m in result.agents[0].messages if m["direction"] == "received"]
    assert heard == ["ready", "42"]
    # (agent 1 may still be on its way to its report when agent 0's answer ends the team)
    saved = read_checkpoint(SQLiteStore(tmp_path / "runs.sqlite3"), agent_run_id("team-run", 1))
    assert saved is not None and saved.namespace["n"] == 21
    assert left_behind(before) == []


def test_without_restarts_left_the_dead_agent_stays_dead_and_its_peer_hears_of_it(tmp_path, capfd):
    team, log = _team(tmp_path, kill_at=1, max_restarts=0)
    team.deadline_seconds = 6
    result = team.run("Double 21 with your peer", run_id="no-restarts")
    assert result.agents[1].restarts == 0 and not result.agents[1].reported
    assert result.output != "42"
    said = capfd.readouterr().err
    assert "[team] agent 1 died (killed by SIGKILL) (no restarts left)" in said
    # the team is over: no agent's run is left marked as going on
    records = {r.run_id: r.status for r in SQLiteStore(tmp_path / "runs.sqlite3").list()}
    assert records[agent_run_id("no-restarts", 1)] == "stopped", records


def test_a_restarted_agent_is_said_and_no_run_stays_running_after_the_team(tmp_path, capfd):
    """A durable team said nothing of an agent that died and was started again, and its agents' runs
    stayed "running" in `smol runs list` after the team had ended."""
    team, _ = _team(tmp_path, kill_at=1)
    result = team.run("Double 21 with your peer", run_id="said")
    assert result.output == "42" and result.agents[1].restarts == 1
    said = capfd.readouterr().err
    assert "[team] agent 1 died (killed by SIGKILL); started again to resume its run (restart 1 of 3)" in said
    statuses = {r.run_id: r.status for r in SQLiteStore(tmp_path / "runs.sqlite3").list()}
    assert "running" not in statuses.values(), statuses
    assert statuses[agent_run_id("said", 0)] == "finished"


def test_a_team_run_id_already_used_is_refused_before_any_agent_starts(tmp_path):
    team, _ = _team(tmp_path, kill_at=None)
    assert team.run("Double 21 with your peer", run_id="once").output == "42"
    again, _ = _team(tmp_path, kill_at=None)
    with pytest.raises(CheckpointError, match="exists already"):
        again.run("Double 21 with your peer", run_id="once")
    assert again.processes == []


def test_an_invalid_team_run_id_is_refused_in_one_line(tmp_path):
    team, _ = _team(tmp_path, kill_at=None)
    with pytest.raises(CheckpointError, match="is not valid"):
        team.run("anything", run_id="no spaces please")


def test_the_cli_runs_a_durable_team_whose_killed_agent_resumes(tmp_path):
    """`smolagent --num-agents 2 --run-id ID --store FILE`: each agent's run is in FILE, the killed
    one started again; `smol runs list --store FILE` shows both."""
    script = tmp_path / "team.py"
    store = tmp_path / "runs.sqlite3"
    script.write_text(
        "import dataclasses, sys\n"
        "import smol_core.cli.smolagent as cli\n"
        "from test_durable_team import _team\n"
        "from pathlib import Path\n"
        "def settings(args, n):\n"
        "    team, _ = _team(Path(sys.argv[1]), kill_at=1)\n"
        "    store = cli.agent_settings(args).checkpoint_store\n"
        "    return [dataclasses.replace(each, checkpoint_store=store) for each in team.settings]\n"
        "cli._team_settings = settings\n"
        "if __name__ == '__main__':\n"
        "    sys.exit(cli.main(['Double 21', '--num-agents', '2', '--run-id', 'cli-team',\n"
        "                       '--store', sys.argv[2], '--deadline', '120']))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.dirname(__file__), *sys.path])}
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path), str(store)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "42\n" and (tmp_path / "killed").exists()
    listed = subprocess.run(
        [sys.executable, "-m", "smol_core.cli.smol", "runs", "--store", str(store), "list"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    assert "cli-team.agent-0" in listed.stdout and "cli-team.agent-1" in listed.stdout


def test_the_cli_resumes_only_a_team_it_has_a_record_of(tmp_path):
    """`smolagent --num-agents 2 --resume ID` takes over a team whose host died; with no such team
    in the store it says so in one line (tests/transports/redis/test_redis_team_resume.py resumes one)."""
    done = subprocess.run(
        [sys.executable, "-m", "smol_core.cli.smolagent", "--resume", "x", "--num-agents", "2"]
        + ["--store", str(tmp_path / "runs.sqlite3")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "no team run 'x'" in done.stderr, done.stderr


def test_an_agent_killed_while_it_waits_for_messages_is_started_again(tmp_path):
    """An agent in a receive reads as "waiting" in the team's status, not "running": killed there
    (here, while it waits for its task), it is started again all the same."""
    import signal
    import threading
    import time

    team, log = _team(tmp_path, kill_at=None)
    slow = FunctionModel(ResumableScript(ASKER, tmp_path / "agent-0.calls", pause_seconds=1.5))
    team.settings[0] = dataclasses.replace(team.settings[0], model=slow)
    team.deadline_seconds = 30

    def kill_agent_1() -> None:
        time.sleep(0.8)  # agent 0 is in its first model call: agent 1 waits for its task
        os.kill(team.processes[1].pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_agent_1)
    killer.start()
    result = team.run("Double 21 with your peer", run_id="killed-waiting")
    killer.join()
    assert result.agents[1].restarts == 1
    assert result.state == "success" and result.output == "42"


@pytest.mark.parametrize("seed", range(6))
def test_a_durable_team_answers_right_whatever_moment_its_agents_are_killed(tmp_path, seed):
    """One or two SIGKILLs of a random agent at a random moment (bench/durable_team_kills.py runs
    hundreds): the team still answers 42, so no message was lost or handed over twice."""
    import random
    import signal
    import threading
    import time

    rng = random.Random(seed)
    team, _ = _team(tmp_path, kill_at=None)
    team.settings = [
        dataclasses.replace(each, model=FunctionModel(ResumableScript(script, pause_seconds=0.02)))
        for each, script in zip(team.settings, (ASKER, DOUBLER), strict=True)
    ]

    def killer() -> None:
        for _ in range(rng.choice((1, 2))):
            time.sleep(rng.uniform(0.0, 0.15))
            try:
                process = team.processes[rng.randrange(2)]
                if process.pid and process.exitcode is None:
                    os.kill(process.pid, signal.SIGKILL)
            except (IndexError, ProcessLookupError):  # not started yet, or just gone
                pass

    thread = threading.Thread(target=killer)
    thread.start()
    result = team.run("Double 21 with your peer", run_id=f"random-kills-{seed}")
    thread.join()
    assert result.output == "42", result
