"""A small model's answer is a value in the form the question asks for (prompting/answer_form.py).

Issue 38: "Sort the list [5, 3, 9, 1, 7] in ascending order." was answered `<built-in function
sorted>` (the code had printed [1, 3, 5, 7, 9]); yes/no questions were answered with `True`, a
letter with the option's text; and each wrong answer was announced "(the model was certain)".
"""

from __future__ import annotations

import dataclasses
import datetime
import io

import pytest

from smol_core import CodeAgent, LogLevel
from smol_core.executors.worker.protocol import UnserializableValue
from smol_core.monitoring import AgentLogger
from smol_core.prompting.answer_form import asked_form, fits_form, in_asked_form, not_a_value, options
from smol_core.prompting.unit_facts import unit_fact
from smol_core.testing import ScriptedModel

SORT = "Sort the list [5, 3, 9, 1, 7] in ascending order."


def code(body: str) -> str:
    return f"<code>\n{body}\n</code>"


def _run(
    replies: list[str], task: str, drafts: int | None = None, steps: int = 2
) -> tuple[object, str, CodeAgent]:
    model = ScriptedModel(replies)
    model.capabilities = dataclasses.replace(model.capabilities, small=True)
    stream = io.StringIO()
    agent = CodeAgent(tools=[], model=model, verbosity_level=LogLevel.INFO, answer_drafts=drafts)
    agent.logger = AgentLogger(level=LogLevel.INFO, stream=stream)
    with agent:
        answer = agent.run(task, max_steps=steps)
    return answer, stream.getvalue(), agent


def test_a_function_passed_to_final_answer_gives_way_to_what_the_code_printed() -> None:
    printed_then_function = code("numbers = [5, 3, 9, 1, 7]\nprint(sorted(numbers))\nfinal_answer(sorted)")
    answer, log, _ = _run([printed_then_function, code("final_answer(1 / 0)"), "no code"], SORT)
    assert answer == [1, 3, 5, 7, 9], log
    assert "built-in function" not in log.split("kept", 1)[1].split("(", 1)[0]


def test_a_function_as_the_only_answer_is_refused_and_the_model_asked_again() -> None:
    function = code("final_answer(sorted)")
    answer, log, agent = _run([function, code("final_answer(sorted([5, 3, 9, 1, 7]))")], SORT, drafts=1)
    assert answer == [1, 3, 5, 7, 9], log
    first = agent.memory.steps[1]
    assert "not a value" in str(first.error), first.error


def test_a_function_draft_does_not_vote() -> None:
    replies = [
        code("final_answer(len)"),
        code("final_answer(sorted([5, 3, 9, 1, 7]))"),
        code("final_answer(max)"),
    ]
    answer, log, _ = _run(replies, SORT)
    assert answer == [1, 3, 5, 7, 9], log
    assert "dropped draft 1 (a function, not a value)" in log, log


def test_yes_or_no_asked_for_gets_the_word() -> None:
    task = "Is 49 a perfect square? Answer yes or no."
    answer, log, _ = _run([code("final_answer(7 * 7 == 49)")] * 3, task)
    assert answer == "yes", log


def test_the_letter_asked_for_gets_the_letter() -> None:
    task = "What is 5 times 12? (a) 60 (b) 17 (c) 65. Answer with the letter."
    answer, _, _ = _run([code("final_answer(5 * 12)")] * 3, task)
    assert answer == "A"


def test_a_draft_of_the_form_asked_outranks_more_drafts_of_another() -> None:
    task = "What day of the week was 1 January 2000?"
    replies = [code("final_answer(1)"), code("final_answer(1)"), code("final_answer('Saturday')")]
    answer, log, _ = _run(replies, task)
    assert answer == "Saturday", log


def test_the_vote_line_says_what_was_checked_never_certain() -> None:
    replies = [
        code("final_answer(17 * 23)"),
        code("final_answer(17 * 23 + 1)"),
        code("final_answer(17 * 23)"),
    ]
    _, log, _ = _run(replies, "What is 17 times 23?")
    line = next(line for line in log.splitlines() if line.startswith("Drafted"))
    expected = "kept 391 (2 of 3 drafts agreed; form as asked: a number)"
    assert line == f"Drafted 3 answers: 391, 392, 391; {expected}"
    assert "certain" not in log


@pytest.mark.parametrize(
    ("task", "form"),
    [
        ("Convert 5 miles to kilometers.", "number"),
        ("What is 15% of 240?", "number"),
        ("What is 17 times 23?", "number"),
        ("What day of the week was 1 January 2000?", "weekday"),
        (SORT, "list"),
        ("How many words are in 'sort the list'?", "number"),
        ("Is 17 a prime number?", "bool"),
        ("Does 'level' read the same backwards? Answer yes or no.", "yesno"),
        ("Which is the largest? A) 12 B) 45 C) 7", "choice"),
        ("What is 6 times 7? (a) 42 (b) 36. Answer with the letter.", "letter"),
        ("What date is 30 days after 2024-01-01?", "date"),
        ("Reverse the string 'hello'.", None),
        ("What is (3 + 4) * 5?", None),
    ],
)
def test_the_form_a_question_asks_for(task: str, form: str | None) -> None:
    assert asked_form(task) == form


def test_answers_fit_or_not_and_are_put_in_the_form_asked() -> None:
    assert fits_form(36.0, "number") and fits_form("36%", "number") and not fits_form(True, "number")
    assert fits_form([1, 2], "list") and fits_form("1, 2", "list") and not fits_form(12, "list")
    assert fits_form(True, "bool") and not fits_form(True, "yesno") and fits_form("Yes", "yesno")
    assert fits_form("saturday", "weekday") and not fits_form(5, "weekday")
    assert fits_form(datetime.date(2024, 1, 31), "date") and fits_form("2024-01-31", "date")
    task = "Which is the largest? A) 12 B) 45 C) 7"
    assert options(task) == {"A": "12", "B": "45", "C": "7"}
    assert (
        fits_form(45, "choice", task)
        and fits_form("B", "choice", task)
        and not fits_form("D", "choice", task)
    )
    assert in_asked_form(False, "Is 9 prime? Answer yes or no.") == "no"
    assert in_asked_form(datetime.date(2000, 1, 1), "What day of the week was 1 January 2000?") == "Saturday"
    assert in_asked_form(3, "What is 3?") == 3


def test_code_is_not_a_value() -> None:
    assert not_a_value(sorted) and not_a_value(int) and not_a_value(datetime) and not_a_value(lambda: 1)
    assert not_a_value("<built-in function sorted>") and not_a_value("<function f at 0x7f>")
    assert not_a_value(UnserializableValue("builtin_function_or_method", "<built-in function sorted>"))
    for value in (3, "sorted", [1], None, "<b>bold</b>", UnserializableValue("Widget", "<Widget>")):
        assert not_a_value(value) is None, value


@pytest.mark.parametrize(
    ("task", "fact"),
    [
        ("Convert 5 miles to kilometers.", "1 mile = 1.60934 kilometers"),
        ("42 km in miles?", "1 kilometer = 0.621371 miles"),
        ("convert 68F to celsius", "Celsius = (Fahrenheit - 32) * 5 / 9"),
        ("What is 30 degrees Celsius in Fahrenheit?", "Fahrenheit = Celsius * 9 / 5 + 32"),
        ("How many minutes are in 3 hours?", "1 hour = 60 minutes"),
        ("A car drives at 50 km per hour for 2 hours. How far does it go?", None),
        ("What date is 30 days after 2024-09-05?", None),
        ("What is 17 times 23?", None),
    ],
)
def test_a_unit_task_is_told_its_factor(task: str, fact: str | None) -> None:
    assert unit_fact(task) == fact
