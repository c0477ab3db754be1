"""What `agent.run(task, stream=True)` yields besides memory steps.

The stream is, in order: a `PlanningStep` when planning runs; per action step the model's
`ChatMessageStreamDelta`s (when `stream_outputs=True`), a `ToolCall` per call, a `ToolOutput` per
tool result (tool-calling agents), an `ActionOutput` (code agents), then the `ActionStep` itself;
the run ends with a `FinalAnswerStep`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from smol_core.memory import ToolCall


@dataclass
class ActionOutput:
    output: Any
    is_final_answer: bool


@dataclass
class ToolOutput:
    id: str
    output: Any
    is_final_answer: bool
    observation: str
    tool_call: ToolCall
