"""Budgets: limits on what one run may spend (tokens, cost, wall time, steps).

Why: a run that loops on a failing tool, or a model that writes far more than expected, spends until
`max_steps` forces an answer, and `max_steps` is a count, not a bill. A budget stops the run when
it is reached, before the next step, without forcing an answer: the run's memory (and, for a durable
run, its checkpoint) is intact, and `resume(run_id, budget=...)` with a larger budget goes on where it
stopped.

Tokens and cost are counted at the run's door (`effects.py`), call by call, where each call
is made: drafts that lost their vote, plans, the last-chance answer, and every call of the team
members the run calls (their runs share the budget of the run that called them). A reply that
reports no usage, or a negative count, is not taken for zero: the budget cannot count it, and the
run stops with that said. A tokens budget on a model that declares it reports no usage
(`ModelCapabilities.reports_usage`), or a cost budget on one that prices nothing (`Model.cost_of`,
which the LiteLLM plugin answers from LiteLLM's bundled price map, offline), is refused when the run
starts, not discovered at the end. A durable run saves what it spent with its checkpoint, so a
resumed run counts what it spent before its process died. Wall time is the sum of the run's steps'
durations, and steps are the action steps taken, both read from its memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from smol_core.effects import ModelCall, RunExtension
from smol_core.errors import BudgetExceededError, SmolError
from smol_core.memory import ActionStep, MemoryStep, PlanningStep
from smol_core.messages import TokenUsage


@dataclass(frozen=True)
class RunBudget:
    """Limits on one run; None: no limit of that kind."""

    tokens: int | None = None
    """Input plus output tokens over every model call of the run."""
    cost: float | None = None
    """In US dollars, as the model prices its calls (`Model.cost_of`)."""
    seconds: float | None = None
    """Wall time spent in the run's steps (a resumed run's earlier steps count)."""
    steps: int | None = None
    """Action steps. Unlike `max_steps`, reaching it stops the run without asking for an answer."""

    def __post_init__(self) -> None:
        for name in ("tokens", "cost", "seconds", "steps"):
            value = getattr(self, name)
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if value is not None and not (number and 0 <= value < math.inf):
                raise SmolError(
                    f"RunBudget({name}={value!r}): give a number of at least 0 (finite), or None for no limit"
                )


@dataclass(frozen=True)
class Spend:
    """What a run has spent so far; `cost` is None when the model prices nothing."""

    tokens: int
    cost: float | None
    seconds: float
    steps: int


def spend(steps: Sequence[MemoryStep], model: Any, priced: bool = True) -> Spend:
    """What the run whose memory holds `steps` has spent; its cost priced by `model` when `priced`
    (else None, as for a model that prices nothing)."""
    tokens = 0
    cost: float | None = 0.0
    seconds = 0.0
    actions = 0
    for step in steps:
        if not isinstance(step, ActionStep | PlanningStep):
            continue
        actions += isinstance(step, ActionStep)
        seconds += step.timing.duration or 0.0
        if step.token_usage is None:
            continue
        tokens += step.token_usage.total_tokens
        price = _cost_of(model, step.token_usage) if priced else None
        cost = None if cost is None or price is None else cost + price
    return Spend(tokens=tokens, cost=cost, seconds=seconds, steps=actions)


def _cost_of(model: Any, usage: Any) -> float | None:
    price = getattr(model, "cost_of", None)
    return price(usage) if callable(price) else None


def check_can_price(budget: RunBudget | None, model: Any) -> None:
    """A cost budget needs a model that prices its calls, and a tokens budget one that reports its
    usage: refuse either at the start, with what to do."""
    if budget is None:
        return
    capabilities = getattr(model, "capabilities", None)
    if budget.tokens is not None and not getattr(capabilities, "reports_usage", True):
        raise SmolError(
            f"RunBudget(tokens=...) needs token counts, and {type(model).__name__} "
            f"({getattr(model, 'model_id', None) or 'no model id'}) reports none: use a steps or seconds "
            "budget, or a model whose plugin reports usage"
        )
    if budget.cost is None:
        return
    if _cost_of(model, TokenUsage(1, 1)) is None:
        raise SmolError(
            f"RunBudget(cost=...) needs prices, and {type(model).__name__} "
            f"({getattr(model, 'model_id', None) or 'no model id'}) reports none: use a tokens budget, "
            "or a model whose plugin prices calls (LiteLLMModel, from LiteLLM's price map)"
        )


@dataclass
class BudgetExtension(RunExtension):
    """A run's budget at its door: every model call is checked before it is made and counted after,
    over the run and every team-member run it calls (`runs`, shared with their extensions)."""

    budget: RunBudget
    runs: list[Any] = field(default_factory=list)

    def open(self, run: Any) -> None:
        check_can_price(self.budget, run.agent.model)
        self.runs.append(run)

    def child(self, member: str) -> BudgetExtension:
        return BudgetExtension(self.budget, self.runs)

    def before_model_call(self, call: ModelCall) -> None:
        self._check(call.run, at_step=False)

    def step_starting(self, run: Any) -> None:
        self._check(run, at_step=True)

    def _check(self, run: Any, at_step: bool) -> None:
        budget = self.budget
        tokens, uncounted = 0, 0
        cost: float | None = 0.0
        for each in self.runs:
            spending = each.spending
            tokens += spending.tokens
            uncounted += spending.uncounted
            cost = None if cost is None or spending.cost is None else cost + spending.cost
        steps = run.memory.steps if run is not None else []
        own = spend(steps, None, priced=False)
        spent = Spend(tokens=tokens, cost=cost, seconds=own.seconds, steps=own.steps)
        if uncounted and (budget.tokens is not None or budget.cost is not None):
            raise BudgetExceededError(
                f"the run's budget cannot be counted: {uncounted} model repl{'y' if uncounted == 1 else 'ies'} "
                "reported no token usage (or a negative one), which is not taken for zero; it stopped "
                "before its next model call. Use a model whose plugin reports usage, or a steps or seconds budget",
                kind="tokens" if budget.tokens is not None else "cost",
                spent=spent,
            )
        limits = [("tokens", spent.tokens, budget.tokens), ("cost", spent.cost, budget.cost)]
        if at_step:
            limits += [("seconds", spent.seconds, budget.seconds), ("steps", spent.steps, budget.steps)]
        reached = [
            (kind, used, limit)
            for kind, used, limit in limits
            if limit is not None and used is not None and used >= limit
        ]
        if reached:
            kind, used, limit = reached[0]
            when = "before its next step" if at_step else "before its next model call"
            raise BudgetExceededError(
                f"the run's {kind} budget is spent ({_amount(kind, used)} of {_amount(kind, limit)}) after "
                f"{spent.steps} step(s): it stopped {when}; resume it with a larger budget "
                "(agent.resume(run_id, budget=RunBudget(...)) for a durable run) to go on",
                kind=kind,
                spent=spent,
            )


def _amount(kind: str, value: float) -> str:
    if kind == "cost":
        return f"${value:.4f}"
    if kind == "seconds":
        return f"{value:.1f} s"
    return f"{int(value):,}"
