"""A saved team run reads back as it was, and a hostile or broken file is one clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smol_core.cli.smol import main as smol_main
from smol_core.teams.record import TeamRecordError, load_team_run, render_team_run, save_team_run
from smol_core.teams.team import AgentOutcome, TeamResult


def a_result() -> TeamResult:
    result = TeamResult(
        output="8",
        state="success",
        agents={
            1: AgentOutcome(agent_id=1, state="stopped", steps=1),
            0: AgentOutcome(agent_id=0, state="success", output="8", steps=2),
        },
        messages=[
            {
                "direction": "sent",
                "id": "m1",
                "sender": 0,
                "recipient": 1,
                "timestamp": 10.0,
                "message": "print(5 + 3)",
            },
            {
                "direction": "received",
                "id": "m1",
                "sender": 0,
                "recipient": 1,
                "timestamp": 10.5,
                "message": "print(5 + 3)",
            },
            {
                "direction": "sent",
                "id": "m2",
                "sender": 1,
                "recipient": 0,
                "timestamp": 11.0,
                "message": {"result": 8},
            },
            {
                "direction": "sent",
                "id": "m3",
                "sender": 1,
                "recipient": 0,
                "timestamp": 12.0,
                "message": "late",
            },
            {
                "direction": "received",
                "id": "m2",
                "sender": 1,
                "recipient": 0,
                "timestamp": 11.2,
                "message": {"result": 8},
            },
        ],
    )
    result.timing.start_time = 9.0
    result.timing.end_time = 12.5
    return result


def test_a_saved_run_reads_back_with_each_message_once_in_time_order(tmp_path: Path) -> None:
    record = load_team_run(save_team_run(a_result(), tmp_path / "run.json"))
    assert (record.output, record.state, record.duration) == ("8", "success", 3.5)
    assert [a.agent_id for a in record.agents] == [0, 1]
    assert [(m.id, m.received) for m in record.messages] == [("m1", True), ("m2", True), ("m3", False)]
    shown = render_team_run(record)
    assert "Team run of 2 agents" in shown and "success in 3.5 s, 3 messages" in shown
    assert "agent 0: success, 2 steps - answer: 8" in shown
    assert '1 -> 0  {"result": 8}' in shown and "late  (never read)" in shown


def test_control_sequences_in_a_file_never_reach_the_terminal(tmp_path: Path) -> None:
    result = a_result()
    result.messages[0]["message"] = "\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J clear"
    result.output = "\x1b[31mred"
    shown = render_team_run(load_team_run(save_team_run(result, tmp_path / "run.json")))
    assert "\x1b" not in shown and "\x07" not in shown


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("not json", "not JSON"),
        ("[" * 100_000 + "]" * 100_000, "not JSON"),
        ('{"format": "something else"}', "format"),
        ('{"format": "smol-team-run/1", "agents": {}, "messages": []}', "must be lists"),
        (
            '{"format": "smol-team-run/1", "output": 5, "state": "x", "started": 1, "agents": [], "messages": []}',
            "wrong type",
        ),
        (
            '{"format": "smol-team-run/1", "output": null, "state": "x", "started": 1, "agents": [{"agent_id": true, "state": "x"}], "messages": []}',
            "wrong type",
        ),
        (
            '{"format": "smol-team-run/1", "output": null, "state": "x", "started": 1, "agents": [], "messages": [{"id": "m"}]}',
            "missing",
        ),
    ],
)
def test_a_broken_or_hostile_file_is_one_clear_error(tmp_path: Path, content: str, says: str) -> None:
    path = tmp_path / "run.json"
    path.write_text(content)
    with pytest.raises(TeamRecordError, match=says):
        load_team_run(path)


def test_smol_team_shows_a_run_or_says_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = save_team_run(a_result(), tmp_path / "run.json")
    assert smol_main(["team", str(path)]) == 0
    assert "Answer: 8" in capsys.readouterr().out
    assert smol_main(["team", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["output"] == "8"
    assert smol_main(["team", str(tmp_path / "missing.json")]) == 2
    assert "Cannot read" in capsys.readouterr().err


def test_save_run_needs_a_team(capsys: pytest.CaptureFixture[str]) -> None:
    from smol_core.cli.smolagent import main

    with pytest.raises(SystemExit) as ended:
        main(["task", "--save-run", "x.json"])
    assert ended.value.code == 2
    assert "--save-run saves a team run" in capsys.readouterr().err
