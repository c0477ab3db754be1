"""Taking a durable team over from a dead host (`Team.resume`): what is refused, in one line, before
any agent starts. The take-over itself runs over Redis (tests/transports/redis/test_redis_team_resume.py):
local inboxes die with their host."""

from __future__ import annotations

import pytest
from test_durable_team import _team

from smol_core.durable import CheckpointError, SQLiteStore
from smol_core.durable.errors import CheckpointFormatError, RunFinishedError, RunNotFoundError
from smol_core.teams import resume_agents
from smol_core.teams.host_record import HostRecord, save_host_record


def _saved(store: SQLiteStore, record: HostRecord) -> None:
    lease = store.acquire(record.run_id)
    try:
        save_host_record(store, lease, record)
    finally:
        store.release(lease)


def _one_line(error: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(error.value)
    assert "\n" not in text
    return text


def test_a_team_never_started_is_not_resumed(tmp_path):
    team, _ = _team(tmp_path, kill_at=None)
    with pytest.raises(RunNotFoundError) as error:
        team.resume("never-ran")
    assert "no team run 'never-ran'" in _one_line(error) and "smol runs list" in str(error.value)
    assert team.processes == []


def test_a_finished_team_is_not_resumed_and_its_record_keeps_no_key(tmp_path):
    team, _ = _team(tmp_path, kill_at=None)
    assert team.run("Double 21 with your peer", run_id="done").output == "42"
    with pytest.raises(RunFinishedError) as error:
        team.resume("done")
    assert _one_line(error) == "team run 'done' already finished: there is nothing to resume"
    stored = SQLiteStore(tmp_path / "runs.sqlite3").load("done")
    assert stored is not None and stored.status == "finished" and b'"team_key": null' in stored.data


def test_a_team_whose_inboxes_died_with_its_host_says_so(tmp_path):
    """A local team's record says its queues did not outlive its host (none is to be joined)."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    _saved(store, HostRecord("local-team", "task", 2, "local", team=None, team_key=None))
    team, _ = _team(tmp_path, kill_at=None)
    with pytest.raises(CheckpointError) as error:
        team.resume("local-team")
    assert "whose inboxes died with its host" in _one_line(error)
    assert "smol runs resume local-team.agent-0" in str(error.value)


def test_a_team_is_resumed_only_as_it_was_started(tmp_path):
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    _saved(store, HostRecord("redis-team", "task", 2, "redis", team="abc", team_key=b"k" * 32))
    team, _ = _team(tmp_path, kill_at=None)
    with pytest.raises(CheckpointError) as error:
        team.resume("redis-team")  # the team is built over local inboxes here
    assert "was started with 2 agents over 'redis', not 2 over 'local'" in _one_line(error)


def test_an_agents_run_is_not_taken_for_a_team(tmp_path):
    team, _ = _team(tmp_path, kill_at=None)
    assert team.run("Double 21 with your peer", run_id="t").output == "42"
    with pytest.raises(CheckpointFormatError) as error:
        resume_agents("t.agent-0", settings=team.settings)
    assert "is not a team's run" in _one_line(error)


def test_a_new_team_run_is_refused_where_a_team_record_is(tmp_path):
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    _saved(store, HostRecord("taken", "task", 2, "redis", team="abc", team_key=None))
    team, _ = _team(tmp_path, kill_at=None)
    with pytest.raises(CheckpointError, match="exists already: resume it with Team.resume"):
        team.run("Double 21 with your peer", run_id="taken")
    assert team.processes == []


def test_a_team_whose_host_still_runs_is_not_taken_over(tmp_path):
    """The host holds its team's record for as long as it runs: a second host is refused in one line
    instead of starting the same agents' runs beside the first's."""
    from smol_core.durable.errors import RunLockedError

    store = SQLiteStore(tmp_path / "runs.sqlite3")
    _saved(store, HostRecord("busy", "task", 2, "redis", team="abc", team_key=None))
    running = store.acquire("busy")  # as a live host holds it
    try:
        team, _ = _team(tmp_path, kill_at=None)
        team.transport_name = "redis"
        with pytest.raises(RunLockedError) as error:
            team.resume("busy")
        assert "is being driven by process" in _one_line(error)
        assert team.processes == []
    finally:
        store.release(running)


def test_smol_runs_resume_of_a_teams_record_says_how_to_resume_the_team(tmp_path):
    """`smol runs list` shows a team's record (its agent "Team"); resuming it as one agent's run
    would read it as a checkpoint: the command says, in one line, to give the team's options."""
    import subprocess
    import sys

    from smol_core.cli.runs_command import TEAM_AGENT_LABEL
    from smol_core.teams.host_record import TEAM_LABEL

    assert TEAM_AGENT_LABEL == TEAM_LABEL
    store = tmp_path / "runs.sqlite3"
    _saved(SQLiteStore(store), HostRecord("team-7", "task", 2, "redis", team="t7", team_key=b"k" * 32))
    done = subprocess.run(
        [sys.executable, "-m", "smol_core.cli.smol", "runs", "--store", str(store), "resume", "team-7"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert done.stderr.count("\n") == 1 and "is a team's" in done.stderr
    assert "smol runs resume team-7 --num-agents N" in done.stderr
