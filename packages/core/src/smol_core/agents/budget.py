"""Budgets: limits on what one run may spend (tokens, cost, wall time, steps).

Why: a run that loops on a failing tool, or a model that writes far more than expected, spends until
`max_steps` forces an answer, and `max_steps` is a count, not a bill. A budget stops the run when
it is reached, before the next step, without forcing an answer: the run's memory (and, for a durable
run, its checkpoint) is intact, and `resume(run_id, budget=...)` with a larger budget goes on where it
stopped.

What counts is read from the run's memory, so a resumed run counts what it spent before its process
died: tokens and cost over every model call of the run (planning too), wall time as the sum of its
steps' durations, and the action steps taken. Cost is priced by the model (`Model.cost_of`, which
the LiteLLM plugin answers from LiteLLM's bundled price map, offline); a cost budget on a model that
prices nothing is refused when the run starts, not discovered at the end.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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
    """A cost budget needs a model that prices its calls: refuse it at the start, with what to do."""
    if budget is None or budget.cost is None:
        return
    if _cost_of(model, TokenUsage(1, 1)) is None:
        raise SmolError(
            f"RunBudget(cost=...) needs prices, and {type(model).__name__} "
            f"({getattr(model, 'model_id', None) or 'no model id'}) reports none: use a tokens budget, "
            "or a model whose plugin prices calls (LiteLLMModel, from LiteLLM's price map)"
        )


def check_budget(budget: RunBudget | None, steps: Sequence[MemoryStep], model: Any) -> None:
    """Raise `BudgetExceededError` when what the run spent reached one of `budget`'s limits."""
    if budget is None:
        return
    spent = spend(steps, model, priced=budget.cost is not None)  # a price lookup per step only if asked
    reached = [
        (kind, used, limit)
        for kind, used, limit in (
            ("tokens", spent.tokens, budget.tokens),
            ("cost", spent.cost, budget.cost),
            ("seconds", spent.seconds, budget.seconds),
            ("steps", spent.steps, budget.steps),
        )
        if limit is not None and used is not None and used >= limit
    ]
    if not reached:
        return
    kind, used, limit = reached[0]
    raise BudgetExceededError(
        f"the run's {kind} budget is spent ({_amount(kind, used)} of {_amount(kind, limit)}) after "
        f"{spent.steps} step(s): it stopped before its next step; resume it with a larger budget "
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
