"""The everyday task bank's checkers accept every right form of an answer and refuse wrong ones, and
its split is the one its seeded rule makes (bench/everyday_bank.py, bench/everyday_checks.py)."""

from __future__ import annotations

import datetime
import importlib
import sys
from collections import Counter
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
checks = importlib.import_module("everyday_checks")
bank = importlib.import_module("everyday_bank")
check = checks.check


@pytest.mark.parametrize("answer", [8.05, 8.047, "8.05", "8.05 km", "8.0467 kilometers", 8.04672])
def test_a_number_within_tolerance_in_any_form(answer):
    assert check({"kind": "number", "value": 8.04672, "rel": 0.005}, answer)


@pytest.mark.parametrize("answer", [3.106855, "3.1", True, None, [8.05], "5 miles is 8.05 km", "eight"])
def test_a_wrong_number_or_no_number_is_refused(answer):
    assert not check({"kind": "number", "value": 8.04672, "rel": 0.005}, answer)


@pytest.mark.parametrize("answer", [36, 36.0, "36", "36%", "36.0", " 36 "])
def test_a_percentage_answer(answer):
    assert check({"kind": "number", "value": 36}, answer)


def test_a_number_refuses_bools_and_thousands_are_read():
    assert not check({"kind": "number", "value": 1}, True)
    assert check({"kind": "number", "value": 1200}, "1,200")
    assert not check({"kind": "number", "value": 3600}, 36)


@pytest.mark.parametrize(
    "answer",
    [[1, 3, 5, 7, 9], (1, 3, 5, 7, 9), "[1, 3, 5, 7, 9]", "1, 3, 5, 7, 9", "1 3 5 7 9", [1.0, 3, 5, 7, 9]],
)
def test_a_list_in_any_sensible_rendering(answer):
    assert check({"kind": "list", "items": [1, 3, 5, 7, 9]}, answer)


@pytest.mark.parametrize(
    "answer", [[5, 3, 9, 1, 7], [1, 3, 5, 7], "<built-in function sorted>", 13579, "[9, 7, 5, 3, 1]"]
)
def test_a_wrong_list_is_refused(answer):
    assert not check({"kind": "list", "items": [1, 3, 5, 7, 9]}, answer)


def test_word_lists_and_unordered_lists():
    assert check({"kind": "list", "items": ["fig", "pear"]}, "['fig', 'pear']")
    assert check({"kind": "list", "items": ["fig", "pear"]}, "fig, pear")
    assert not check({"kind": "list", "items": ["fig", "pear"]}, "pear, fig")
    assert check({"kind": "list", "items": [1, 2], "ordered": False}, [2, 1])
    assert not check({"kind": "list", "items": [1, 2], "ordered": False}, [2, 2])


def test_yes_or_no_in_the_form_asked():
    asked_words = {"kind": "yesno", "value": True, "form": "yesno"}
    assert check(asked_words, "yes") and check(asked_words, "Yes.") and check(asked_words, "YES")
    assert not check(asked_words, True) and not check(asked_words, "True") and not check(asked_words, 1)
    assert not check(asked_words, "no")
    free = {"kind": "yesno", "value": False, "form": "any"}
    assert check(free, False) and check(free, "no") and check(free, "False")
    assert not check(free, True) and not check(free, 0) and not check(free, "yes")


def test_a_choice_by_letter_or_by_the_options_text():
    spec = {"kind": "choice", "letter": "B", "text": "Jupiter", "letter_only": False}
    for answer in ("B", "b", "B)", "(B)", "Jupiter", "jupiter", "B) Jupiter"):
        assert check(spec, answer), answer
    for answer in ("A", "Mars", "A) Jupiter", 2, None):
        assert not check(spec, answer), answer
    letter_only = {**spec, "letter_only": True}
    assert check(letter_only, "B") and not check(letter_only, "Jupiter")
    numbers = {"kind": "choice", "letter": "D", "text": "98", "letter_only": False}
    assert check(numbers, 98) and check(numbers, "D") and not check(numbers, 73)


def test_text_case_and_quotes():
    assert check({"kind": "text", "value": "Saturday"}, "saturday")
    assert check({"kind": "text", "value": "Saturday"}, "'Saturday'.")
    assert not check({"kind": "text", "value": "Saturday"}, 1)
    assert not check({"kind": "text", "value": "Saturday"}, "Sunday")
    assert check({"kind": "text", "value": "OLLEH", "case": True}, "OLLEH")
    assert not check({"kind": "text", "value": "OLLEH", "case": True}, "olleh")


def test_a_date_in_the_usual_forms():
    spec = {"kind": "date", "value": "2024-04-14"}
    for answer in ("2024-04-14", datetime.date(2024, 4, 14), "14 April 2024", "April 14, 2024"):
        assert check(spec, answer), answer
    for answer in ("2024-04-15", "14/04/2024x", 14, None):
        assert not check(spec, answer), answer


def test_the_bank_is_the_split_its_seeded_rule_makes():
    entries = bank.load()
    assert len([e for e in entries if e["class"] != "older"]) >= 300
    held_out = bank.heldout_templates()
    for entry in entries:
        assert (entry["part"] == "heldout") == (entry["template"] in held_out), entry["task"]
    per_class = Counter(e["class"] for e in entries if e["part"] == "heldout")
    assert set(per_class) == set(bank.TEMPLATES) and min(per_class.values()) >= 10
    assert len({e["task"] for e in entries}) == len(entries)  # no task twice


def test_every_task_of_the_bank_is_answered_right_by_its_own_answer():
    """Each spec accepts its own canonical value: no task is unanswerable by construction."""
    for entry in bank.load():
        spec = entry["answer"]
        right = {
            "number": lambda s: s["value"],
            "list": lambda s: s["items"],
            "yesno": lambda s: "yes" if s["value"] else "no",
            "choice": lambda s: s["letter"],
            "text": lambda s: s["value"],
            "date": lambda s: s["value"],
        }[spec["kind"]](spec)
        assert check(spec, right), entry["task"]
