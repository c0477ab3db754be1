"""Drafts that copy the task's own input into final_answer do not vote (small-model answer drafting)."""

from __future__ import annotations

import dataclasses

from smol_core import CodeAgent, LogLevel
from smol_core.prompting.draft_checks import (
    echoes_task,
    operations_done,
    task_literals,
    task_operations,
    wrong_kind,
)
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


def _drafted(task: str, *lines: str) -> object:
    """What a small-model CodeAgent answers when its three drafts are `lines`."""
    model = ScriptedModel([f"<code>\n# {task}\n{line}\n</code>" for line in lines])
    model.capabilities = dataclasses.replace(model.capabilities, grammar=True, small=True)
    agent = CodeAgent(tools=[], model=model, verbosity_level=LogLevel.OFF)
    with agent:
        return agent.run(task)


def test_operations_named_by_the_task_and_done_by_the_code() -> None:
    task = "Sort the list [3, 1, 2] and give its last element."
    assert task_operations(task) == {"sort", "last"}
    assert operations_done("numbers = sorted([3, 1, 2])\nfinal_answer(numbers[-1])") == {"sort", "last"}
    # comments and prints shape no answer; symbols inside string literals are not arithmetic
    assert operations_done("# sorted(x)\nprint(sorted(x))\nfinal_answer(x[0])") == frozenset()
    assert operations_done("final_answer('a-b' + '*')") == {"sum"}
    assert task_operations("Reverse the string 'the sum' and convert it to upper case.") == {
        "reverse",
        "upper",
    }


def test_a_draft_that_leaves_out_an_operation_loses_to_one_that_does_them_all() -> None:
    """Two drafts agree on the unsorted list's last element; the one that sorts first is kept."""
    task = "Sort the list [3, 1, 2] and give its last element."
    answer = _drafted(
        task,
        "numbers = [3, 1, 2]\nfinal_answer(numbers[-1])",
        "numbers = sorted([3, 1, 2])\nfinal_answer(numbers[-1])",
        "numbers = [3, 1, 2]\nfinal_answer(numbers[-1])",
    )
    assert answer == 3


def test_a_list_where_a_number_is_asked_loses() -> None:
    task = "How many different words are in 'the cat saw the dog'?"
    assert wrong_kind(["the", "cat"], task) and not wrong_kind(4, task)
    assert not wrong_kind([1, 2], "Sort the list [2, 1].")
    answer = _drafted(
        task,
        "words = 'the cat saw the dog'.split()\nfinal_answer(words)",
        "words = 'the cat saw the dog'.split()\nfinal_answer(len(set(words)))",
        "words = 'the cat saw the dog'.split()\nfinal_answer(words)",
    )
    assert answer == 4


def test_an_answer_with_no_plain_form_loses() -> None:
    task = "Multiply every number in [1, 2, 3] by 10."
    answer = _drafted(
        task,
        "final_answer(map(lambda x: x * 10, [1, 2, 3]))",
        "final_answer(map(lambda x: x * 10, [1, 2, 3]))",
        "final_answer([x * 10 for x in [1, 2, 3]])",
    )
    assert answer == [10, 20, 30]


def test_drafts_that_fit_equally_still_vote() -> None:
    task = "What is the largest number in [4, 18, 7]?"
    assert _drafted(
        task, "final_answer(max([4, 7]))", "final_answer(max([4, 18, 7]))", "final_answer(max([4, 18]))"
    ) in (7, 18)
    assert _drafted(task, "final_answer(max([4, 7]))", "final_answer(18)", "final_answer(max([4, 7]))") == 7
