"""`RunResult`: everything about a run, returned by `run(..., return_full_result=True)`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from smol_core.messages import Timing, TokenUsage


@dataclass
class RunResult:
    output: Any
    state: Literal["success", "max_steps_error"]
    steps: list[dict[str, Any]] = field(default_factory=list)
    token_usage: TokenUsage | None = None
    timing: Timing = field(default_factory=Timing)
    team_messages: list[dict[str, Any]] = field(default_factory=list)
    """Messages this agent sent and received (teams of agents): direction, id, sender, recipient,
    timestamp and the message itself."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Seed-system name for the steps."""
        return self.steps

    def dict(self) -> dict[str, Any]:
        return {
            "output": self.output,
            "state": self.state,
            "steps": self.steps,
            "token_usage": self.token_usage.dict() if self.token_usage else None,
            "timing": self.timing.dict(),
            "team_messages": self.team_messages,
        }
