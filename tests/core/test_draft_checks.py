"""Drafts that copy the task's own input into final_answer do not vote (small-model answer drafting)."""

from __future__ import annotations

import dataclasses

from smol_core import CodeAgent, LogLevel
from smol_core.agents.draft_checks import echoes_task, task_literals
from smol_core.testing import ScriptedModel

TASK = "Sort the list [5, 3, 9, 1] in ascending order."


def test_task_literals_and_echoes() -> None:
    assert task_literals("Join 'a' and \"b\" in [1, 2]") == ["a", "b", [1, 2]]
    assert echoes_task([5, 3, 9, 1], TASK) and echoes_task((5, 3, 9, 1), TASK)
    assert not echoes_task([1, 3, 5, 9], TASK)
    assert not echoes_task(9, TASK)  # a number of the task can be its answer ("the largest")
    assert not echoes_task("quick", "What is the first word of 'quick brown fox'?")
    assert echoes_task("banana", "Reverse 'banana'.")


def test_an_echo_loses_the_vote_to_an_answer_that_did_some_work() -> None:
    def draft(line: str) -> str:
        return f"<code>\n# {TASK}\n{line}\n</code>"

    model = ScriptedModel(
        [
            draft("final_answer([5, 3, 9, 1])"),
            draft("final_answer(sorted([5, 3, 9, 1]))"),
            draft("numbers = [5, 3, 9, 1]\nfinal_answer(numbers)"),
        ]
    )
    model.capabilities = dataclasses.replace(model.capabilities, grammar=True, small=True)
    agent = CodeAgent(tools=[], model=model, verbosity_level=LogLevel.OFF)
    with agent:
        assert agent.run(TASK) == [1, 3, 5, 9]
