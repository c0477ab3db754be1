"""An agent the host stops (the deadline) reports what it did: its steps and its last error.

It used to report "stopped, 0 steps, error null" however many steps had failed before the stop, so
`smol team` and `smolagent`'s last line hid why a team gave no answer.
"""

from __future__ import annotations

from pathlib import Path

from team_helpers import code

from smol_core import run_agents
from smol_core.teams import AgentSettings
from smol_core.teams.record import load_team_run, render_team_run, save_team_run
from smol_core.testing import ScriptedModel


def test_an_agent_stopped_by_the_deadline_reports_its_steps_and_last_error(tmp_path) -> None:
    failing = [code("1 / 0")] * 3 + [code("import time\ntime.sleep(120)")]
    result = run_agents(
        "Fail, then work on.",
        num_agents=2,
        settings=AgentSettings(
            model=ScriptedModel(failing, repeat_last=True), max_steps=10, verbosity_level=-1
        ),
        deadline_seconds=25,  # long enough for three failing steps on a loaded machine; a hang bound
    )
    assert result.state == "deadline"
    first = result.agents[0]
    assert first.state == "stopped"
    assert first.steps == 4, first  # three that failed, and the one the deadline cut short
    assert first.error is not None and "ZeroDivisionError" in first.error, first
    shown = render_team_run(load_team_run(save_team_run(result, tmp_path / "run.json")))
    assert "ZeroDivisionError" in shown, shown


def test_a_team_whose_agents_cannot_build_their_model_says_so_in_a_line_each(tmp_path: Path) -> None:
    """A mistake of the user's (here: a model file that is not there) reads as a single run says it,
    not as a traceback per agent (26 lines for two)."""
    import subprocess
    import sys

    smolagent = Path(sys.executable).with_name("smolagent")
    done = subprocess.run(
        [str(smolagent), "x", "--num-agents", "2", "--model-id", str(tmp_path / "missing.gguf")],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr and len(lines) <= 3, done.stderr
    assert lines[-1].startswith("smolagent: the team gave no answer") and "No GGUF file" in lines[-1]
