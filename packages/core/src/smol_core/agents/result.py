"""`RunResult`: everything about a run, returned by `run(..., return_full_result=True)`."""

from __future__ import annotations

import warnings
from dataclasses import InitVar, dataclass, field
from typing import Any, Literal

from smol_core.messages import Timing, TokenUsage

_MESSAGES_DEPRECATED = (
    "Parameter 'messages' is deprecated and will be removed in version 1.25. Please use 'steps' instead."
)


RunEnd = Literal["success", "max_steps_error", "budget_exceeded"]
"""How a run ended: an answer, an answer forced when `max_steps` ran out, or stopped by its budget
(`smol_core.agents.budget`; `output` is then None and a durable run can be resumed with a larger one)."""


@dataclass
class RunResult:
    output: Any
    state: RunEnd
    steps: list[dict[str, Any]] = field(default_factory=list)
    token_usage: TokenUsage | None = None
    timing: Timing = field(default_factory=Timing)
    team_messages: list[dict[str, Any]] = field(default_factory=list)
    """Messages this agent sent and received (teams of agents): direction, id, sender, recipient,
    timestamp and the message itself."""
    messages: InitVar[list[dict[str, Any]] | None] = None
    """smolagents' older name for `steps`: still taken, with the FutureWarning smolagents gives, so
    code written for it runs and learns the new name."""

    def __post_init__(self, messages: list[dict[str, Any]] | None) -> None:
        if messages is None:
            return
        if self.steps:
            raise ValueError("Cannot specify both 'messages' and 'steps' parameters. Use 'steps' instead.")
        warnings.warn(_MESSAGES_DEPRECATED, FutureWarning, stacklevel=3)
        self.steps = messages

    def dict(self) -> dict[str, Any]:
        return {
            "output": self.output,
            "state": self.state,
            "steps": self.steps,
            "token_usage": self.token_usage.dict() if self.token_usage else None,
            "timing": self.timing.dict(),
            "team_messages": self.team_messages,
        }


def _messages(self: RunResult) -> list[dict[str, Any]]:
    """smolagents' older name for the steps (a FutureWarning says so)."""
    warnings.warn(_MESSAGES_DEPRECATED, FutureWarning, stacklevel=2)
    return self.steps


# set after the class is made: the dataclass takes `messages` as an init-only argument, and the
# attribute read is this property
setattr(RunResult, "messages", property(_messages))  # noqa: B010 - mypy sees only the InitVar
