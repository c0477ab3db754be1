"""The agent loop meets teams only through the protocols of `smol_core.agents.team_membership`.

A tool shaped like a team's inbox (no class from `smol_core.teams`) is enough for `run(task=None)`
to wait for its task, and a run's full result lists what its message tools logged, once per log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from smol_core import CodeAgent, Tool
from smol_core.agents.team_membership import MessageTool, TaskInbox
from smol_core.testing import ScriptedModel


class Log:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []


class Inbox(Tool):
    name = "inbox"
    description = "Waits for a task."
    inputs: dict[str, Any] = {}
    output_type = "string"

    def __init__(self, task: str, log: Log) -> None:
        super().__init__()
        self.task, self.log, self.trace_context = task, log, {}
        self.stopped_by: Callable[[], bool] | None = None

    def forward(self) -> str:
        return self.task

    def wait_for_task(self, poll_seconds: float = 0.5, should_stop: Callable[[], bool] | None = None) -> str:
        self.stopped_by = should_stop
        self.log.records.append({"timestamp": 2.0, "direction": "received", "message": self.task})
        return self.task


class Outbox(Tool):
    name = "outbox"
    description = "Sends."
    inputs: dict[str, Any] = {}
    output_type = "null"

    def __init__(self, log: Log) -> None:
        super().__init__()
        self.log = log

    def forward(self) -> None:
        self.log.records.append({"timestamp": 1.0, "direction": "sent", "message": "hi"})


def test_an_inbox_of_any_class_gives_a_run_without_task_its_task() -> None:
    log = Log()
    inbox, outbox = Inbox("Say 7.", log), Outbox(log)
    assert isinstance(inbox, TaskInbox) and isinstance(outbox, MessageTool)
    agent = CodeAgent(
        tools=[inbox, outbox],
        model=ScriptedModel(["<code>\noutbox()\nfinal_answer(7)\n</code>"]),
        verbosity_level=0,
    )
    result = agent.run(task=None, return_full_result=True)
    assert result.output == 7
    assert agent.task == "Say 7."
    assert inbox.stopped_by is not None and inbox.stopped_by() is False
    # both tools share one log: each message once, in time order
    assert [record["direction"] for record in result.team_messages] == ["sent", "received"]


def test_a_run_without_task_and_without_inbox_says_what_to_do() -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([]), verbosity_level=0)
    with pytest.raises(ValueError, match="ReceiveMessagesTool"):
        agent.run(task=None)
    # the failed run ended: the next one runs alone, not beside a run still counted as going
    assert agent._runs.active == 0


def test_a_tool_with_a_log_of_another_kind_is_not_a_message_tool() -> None:
    class Logged(Tool):
        name = "logged"
        description = "Has a log that is not a message log."
        inputs: dict[str, Any] = {}
        output_type = "null"

        def __init__(self) -> None:
            super().__init__()
            self.log = "a file name"

        def forward(self) -> None:
            return None

    agent = CodeAgent(
        tools=[Logged()], model=ScriptedModel(["<code>\nfinal_answer(1)\n</code>"]), verbosity_level=0
    )
    assert agent.run("Go.", return_full_result=True).team_messages == []
