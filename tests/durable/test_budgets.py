"""Budgets: a run stops before the step that would go past its budget, keeps what it did, and a
durable run goes on with a larger budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent
from smol_core.agents.budget import RunBudget, spend
from smol_core.durable import SQLiteStore
from smol_core.errors import BudgetExceededError, SmolError
from smol_core.memory import ActionStep
from smol_core.messages import TokenUsage
from smol_core.testing import ScriptedModel

STEPS = [f"<code>\nx{i} = {i}\nprint(x{i})\n</code>" for i in range(1, 5)] + [
    "<code>\nfinal_answer(x1 + x4)\n</code>"
]


class PricedModel(ScriptedModel):
    """A scripted model that prices its calls: a cent per thousand tokens."""

    def cost_of(self, usage: TokenUsage) -> float | None:
        return usage.total_tokens / 100_000


def agent(model: Any, **kwargs: Any) -> CodeAgent:
    return CodeAgent(tools=[], model=model, verbosity_level=0, **kwargs)


def test_a_steps_budget_stops_the_run_before_the_next_step_without_forcing_an_answer() -> None:
    model = ScriptedModel(STEPS)
    with agent(model, budget=RunBudget(steps=2)) as bot:
        with pytest.raises(BudgetExceededError, match=r"steps budget is spent \(2 of 2\)") as raised:
            bot.run("Count.")
        assert raised.value.kind == "steps" and raised.value.spent.steps == 2
        # two steps ran, no third model call, and no forced final answer was asked for
        assert model.position == 2
        assert [s.step_number for s in bot.memory.steps if isinstance(s, ActionStep)] == [1, 2]


def test_a_full_result_says_budget_exceeded_and_keeps_the_steps() -> None:
    model = ScriptedModel(STEPS)
    with agent(model) as bot:
        result = bot.run("Count.", budget=RunBudget(steps=1), return_full_result=True)
    assert result.state == "budget_exceeded" and result.output is None
    assert len([step for step in result.steps if step.get("step_number")]) == 1


def test_a_tokens_budget_counts_every_model_call() -> None:
    model = ScriptedModel(STEPS)
    with agent(model) as bot:
        with pytest.raises(BudgetExceededError) as raised:
            bot.run("Count.", budget=RunBudget(tokens=1))
        assert raised.value.kind == "tokens"
        assert model.position == 1  # the first step's call spent the budget; the second never ran
        assert spend(bot.memory.steps, model).tokens >= 1


def test_a_cost_budget_is_priced_by_the_model() -> None:
    model = PricedModel(STEPS)
    with agent(model) as bot:
        spent_one_step = None
        with pytest.raises(BudgetExceededError) as raised:
            bot.run("Count.", budget=RunBudget(cost=1e-9))
        spent_one_step = raised.value.spent
    assert raised.value.kind == "cost" and spent_one_step.cost is not None and spent_one_step.cost > 0
    assert "$" in str(raised.value)


def test_a_cost_budget_on_a_model_without_prices_is_refused_before_any_call() -> None:
    model = ScriptedModel(STEPS)
    with agent(model) as bot:
        with pytest.raises(SmolError, match="needs prices"):
            bot.run("Count.", budget=RunBudget(cost=1.0))
        assert model.position == 0
        # the refused run ended: the next one is not taken for a run still going
        assert bot._runs.active == 0


def test_a_seconds_budget_of_zero_stops_before_the_first_step() -> None:
    model = ScriptedModel(STEPS)
    with agent(model) as bot:
        with pytest.raises(BudgetExceededError, match="seconds budget"):
            bot.run("Count.", budget=RunBudget(seconds=0))
    assert model.position == 0


@pytest.mark.parametrize("bad", [{"tokens": -1}, {"cost": "1"}, {"steps": True}, {"seconds": float("nan")}])
def test_a_budget_that_is_not_a_number_is_a_clear_error(bad: dict[str, Any]) -> None:
    with pytest.raises(SmolError, match="give a number"):
        RunBudget(**bad)


def test_a_durable_run_stopped_by_its_budget_resumes_with_a_larger_one(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    model = ScriptedModel(STEPS)
    with agent(model, checkpoint_store=store) as bot:
        with pytest.raises(BudgetExceededError):
            bot.run("Count.", run_id="budgeted", budget=RunBudget(steps=2))
    assert store.load("budgeted").status != "finished"  # type: ignore[union-attr]
    # another agent, as another process would build it, goes on from step 3 with a larger budget
    with agent(model, checkpoint_store=store) as again:
        # still the old budget: it stops at once, calling nothing
        with pytest.raises(BudgetExceededError):
            again.resume("budgeted", budget=RunBudget(steps=2))
        assert model.position == 2
        assert again.resume("budgeted", budget=RunBudget(steps=10)) == 5
    assert model.position == len(STEPS)  # each scripted reply asked for once
    assert store.load("budgeted").status == "finished"  # type: ignore[union-attr]


def test_the_command_stops_on_its_budget_with_status_3_and_resumes_with_a_larger_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from smol_core.cli import smolagent

    model = ScriptedModel(STEPS)
    monkeypatch.setattr(smolagent, "build_model", lambda args: model)
    store = str(tmp_path / "runs.sqlite3")
    quiet = ["--verbosity-level", "-1", "--store", store]
    assert smolagent.main(["Count.", "--run-id", "r1", "--budget-steps", "2", *quiet]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "steps budget is spent (2 of 2)" in err, err
    assert smolagent.main(["--resume", "r1", "--budget-steps", "9", *quiet]) == 0
    assert capsys.readouterr().out.strip() == "5"
    assert model.position == len(STEPS)
    # a budget that is not a number is the command's one-line mistake
    assert smolagent.main(["Count.", "--budget-seconds", "nan", "--verbosity-level", "-1"]) == 2
    assert "give a number" in capsys.readouterr().err
