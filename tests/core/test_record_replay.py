"""Record and replay: a run taped (model replies, tool results) plays back exactly with no model and
no tools; a changed prompt, or code that calls another tool, is reported at the first step that
differs, with the diff."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent, ToolCallingAgent, tool
from smol_core.replay import CassetteError, ReplayDivergenceError, read_cassette, recording, replaying
from smol_core.testing import ScriptedModel

CALLS: list[int] = []


@tool
def square(x: int) -> int:
    """Squares a number (and counts its calls).

    Args:
        x: the number.
    """
    CALLS.append(x)
    return x * x


STEPS = [
    "<code>\na = square(x=3)\nprint(a)\n</code>",
    "<code>\nb = square(x=a)\nfinal_answer(b + 1)\n</code>",
]


@pytest.fixture(autouse=True)
def _fresh() -> None:
    CALLS.clear()


def code_agent(model: Any, **kwargs: Any) -> CodeAgent:
    return CodeAgent(tools=[square], model=model, verbosity_level=0, **kwargs)


class Silent(ScriptedModel):
    """A model that must never be called (a replay makes no model call)."""

    def __init__(self) -> None:
        super().__init__([AssertionError("the replay called the model")])


def _record(path: Path, steps: list[str] = STEPS, **kwargs: Any) -> Any:
    with code_agent(ScriptedModel(steps), **kwargs) as agent, recording(agent, path, task="Square twice."):
        return agent.run("Square twice.")


def test_a_recorded_run_replays_exactly_with_no_model_and_no_tools(tmp_path: Path) -> None:
    tape = tmp_path / "run.jsonl"
    assert _record(tape) == 82 and CALLS == [3, 9]
    cassette = read_cassette(tape)
    assert cassette.task == "Square twice."
    assert [type(event).__name__ for event in cassette.events] == [
        "ModelEvent",
        "ToolEvent",
        "ModelEvent",
        "ToolEvent",
        "ToolEvent",
    ]
    CALLS.clear()
    with code_agent(Silent()) as agent, replaying(agent, tape) as player:
        assert agent.run("Square twice.") == 82
    assert CALLS == [] and player.position == len(player.events)
    # the agent has its own model and tools back
    assert isinstance(agent.model, Silent) and agent.tools["square"] is square


def test_a_changed_prompt_is_reported_at_the_first_step_with_a_diff(tmp_path: Path) -> None:
    tape = tmp_path / "run.jsonl"
    _record(tape)
    with code_agent(Silent(), instructions="Always answer in French.") as agent:
        with pytest.raises(
            ReplayDivergenceError, match="diverged at step 1: the model request differs"
        ) as raised:
            with replaying(agent, tape):
                agent.run("Square twice.")
    assert raised.value.step == 1 and raised.value.what == "model request"
    assert any(line.startswith("+") and "French" in line for line in raised.value.diff)


def test_code_that_calls_another_tool_is_a_divergence(tmp_path: Path) -> None:
    tape = tmp_path / "run.jsonl"
    _record(tape)
    # the same first reply, but the cassette is replayed against code asking square(x=4)
    changed = tmp_path / "changed.jsonl"
    changed.write_text(tape.read_text().replace("a = square(x=3)", "a = square(x=4)"))
    CALLS.clear()
    with code_agent(Silent()) as agent:
        with pytest.raises(ReplayDivergenceError, match=r"the tool square was called with \{'x': 4\}"):
            with replaying(agent, changed):
                agent.run("Square twice.")
    assert CALLS == []


def test_a_run_that_ends_early_is_a_divergence(tmp_path: Path) -> None:
    tape = tmp_path / "run.jsonl"
    _record(tape)
    lines = tape.read_text().splitlines()
    # a recording that went on after the answer: the replay ends before its last event
    tape.write_text("\n".join([*lines, lines[2]]) + "\n")
    with (
        code_agent(Silent()) as agent,
        pytest.raises(ReplayDivergenceError, match="the run ended where the recording went on"),
    ):
        with replaying(agent, tape):
            agent.run("Square twice.")


def test_a_tool_calling_agent_records_and_replays(tmp_path: Path) -> None:
    tape = tmp_path / "tc.jsonl"
    replies = [
        {"name": "square", "arguments": {"x": 5}},
        {"name": "final_answer", "arguments": {"answer": "25"}},
    ]
    with ToolCallingAgent(tools=[square], model=ScriptedModel(replies), verbosity_level=0) as agent:
        with recording(agent, tape):
            assert agent.run("Square 5.") == "25"
    CALLS.clear()
    with ToolCallingAgent(tools=[square], model=Silent(), verbosity_level=0) as agent:
        with replaying(agent, tape):
            assert agent.run("Square 5.") == "25"
    assert CALLS == []


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("", "is empty"),
        ("{}\n", "not a smol cassette"),
        ('{"format": "smol.cassette", "version": 9}\n', "version 9"),
        ('{"format": "smol.cassette", "version": 1}\n{"kind": "model"}\n', "corrupt"),
    ],
)
def test_a_bad_cassette_is_a_one_line_error(tmp_path: Path, content: str, words: str) -> None:
    tape = tmp_path / "bad.jsonl"
    tape.write_text(content)
    with pytest.raises(CassetteError, match=words) as raised:
        read_cassette(tape)
    assert "\n" not in str(raised.value)
    with pytest.raises(CassetteError, match="cannot read"):
        read_cassette(tmp_path / "missing.jsonl")


def test_the_command_records_and_replays_and_prints_the_divergence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from smol_core.cli import smolagent

    tape = str(tmp_path / "cli.jsonl")
    models = iter([ScriptedModel(["<code>\nfinal_answer(6 * 7)\n</code>"]), Silent(), Silent()])
    monkeypatch.setattr(smolagent, "build_model", lambda args: next(models))
    quiet = ["--verbosity-level", "-1"]
    assert smolagent.main(["Multiply.", "--record", tape, *quiet]) == 0
    assert capsys.readouterr().out.strip() == "42"
    assert smolagent.main(["--replay", tape, *quiet]) == 0  # the task is the cassette's
    assert capsys.readouterr().out.strip() == "42"
    assert smolagent.main(["Multiply, in words.", "--replay", tape, *quiet]) == 4
    err = capsys.readouterr().err
    assert err.startswith("smolagent: the replay diverged at step 1") and "+Multiply, in words." in err
    with pytest.raises(SystemExit) as refused:  # a usage mistake, as argparse reports one
        smolagent.main(["--replay", str(tmp_path / "none.jsonl"), *quiet])
    assert refused.value.code == 2
    assert "cannot read the cassette" in capsys.readouterr().err


def _team(manager_model: Any, member_model: Any, member_instructions: str | None = None) -> CodeAgent:
    member = CodeAgent(
        tools=[square],
        model=member_model,
        name="squarer",
        description="Squares numbers.",
        instructions=member_instructions,
        verbosity_level=0,
    )
    return CodeAgent(tools=[], model=manager_model, managed_agents=[member], verbosity_level=0)


MANAGER_STEPS = ["<code>\nreport = squarer(task='Square 4.')\nfinal_answer(report)\n</code>"]
MEMBER_STEPS = ["<code>\nfinal_answer(square(x=4))\n</code>"]


def test_a_managed_agents_calls_are_taped_and_replayed_with_no_model_and_no_tools(tmp_path: Path) -> None:
    tape = tmp_path / "team.jsonl"
    with _team(ScriptedModel(MANAGER_STEPS), ScriptedModel(MEMBER_STEPS)) as manager:
        with recording(manager, tape):
            answer = manager.run("Have 4 squared.")
    assert "16" in str(answer) and CALLS == [4]
    events = read_cassette(tape).events
    assert [(type(e).__name__, e.agent) for e in events] == [
        ("ModelEvent", ""),
        ("ModelEvent", "squarer"),
        ("ToolEvent", "squarer"),
        ("ToolEvent", "squarer"),  # the member's final_answer
        ("ToolEvent", ""),
    ]
    CALLS.clear()
    with _team(Silent(), Silent()) as manager:
        member = manager.managed_agents["squarer"]
        with replaying(manager, tape) as player:
            assert manager.run("Have 4 squared.") == answer
        assert CALLS == [] and player.position == len(player.events)
        assert isinstance(member.model, Silent) and member.tools["square"] is square  # given back


def test_a_changed_managed_agent_is_reported_as_that_agents_divergence(tmp_path: Path) -> None:
    tape = tmp_path / "team.jsonl"
    with _team(ScriptedModel(MANAGER_STEPS), ScriptedModel(MEMBER_STEPS)) as manager:
        with recording(manager, tape):
            manager.run("Have 4 squared.")
    with _team(Silent(), Silent(), member_instructions="Answer in French.") as manager:
        with pytest.raises(ReplayDivergenceError, match="of the managed agent 'squarer'") as diverged:
            with replaying(manager, tape):
                manager.run("Have 4 squared.")
    assert any("French" in line for line in diverged.value.diff)


def test_a_cassette_without_managed_agents_names_no_agent(tmp_path: Path) -> None:
    tape = tmp_path / "run.jsonl"
    _record(tape)
    assert '"agent"' not in tape.read_text()  # cassettes of single agents are as they were
