"""Checkers for the everyday task bank (`bench/everyday_bank.py`): each accepts every right form of
an answer and refuses the wrong ones.

Why a checker per kind of answer, not one equality: the agent's final answer is a Python value, and
a right answer comes in many forms. 8.05, 8.047, "8.05 km" and "8.05" all answer "Convert 5 miles
to kilometers"; [1, 3, 5], (1, 3, 5) and "1, 3, 5" all answer a sort. A checker that took one form
would count right answers as wrong, and one that took anything would count `True` as the number 1
or "Jupiter" as the letter "B" where the question asked for the letter. So each task carries an
answer spec (a small dict, stored in the bank's JSON) and `check(spec, answer)` reads it:

- number: value, `rel` (relative tolerance, default 1e-6): an int or float, or a string holding
  exactly one number ("36%", "8.05 km", "1,200"); never a bool;
- list: items, `ordered` (default true): a list, tuple or set, or a string such as "[1, 3, 5]",
  "1, 3, 5" or "1 3 5"; items compare as numbers where both are numbers, else as text;
- yesno: value, `form` ("yesno": the question asked for yes or no, so only those words; "any":
  yes/no or True/False);
- choice: letter, text, `letter_only` (the question asked for the letter): "B", "B)", "(b)", and
  unless `letter_only` the option's text or "B) Jupiter";
- text: value, `case` (default false: compared without regard to case): the text, stripped of
  quotes, surrounding spaces and a final full stop;
- date: an ISO date: a `datetime.date` or a string in ISO, "15 March 2024" or "March 15, 2024" form.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Mapping
from typing import Any

_NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?|-?\.\d+")
_DATE_FORMATS = ("%Y-%m-%d", "%d %B %Y", "%B %d, %Y", "%B %d %Y", "%d %b %Y", "%b %d, %Y", "%A, %d %B %Y")


def check(spec: Mapping[str, Any], answer: Any) -> bool:
    """Whether `answer` is right for the answer `spec` (see the module's note)."""
    kind = spec["kind"]
    if kind == "number":
        return number_matches(answer, float(spec["value"]), float(spec.get("rel", 1e-6)))
    if kind == "list":
        return list_matches(answer, list(spec["items"]), bool(spec.get("ordered", True)))
    if kind == "yesno":
        return yesno_matches(answer, bool(spec["value"]), str(spec.get("form", "any")))
    if kind == "choice":
        return choice_matches(answer, spec["letter"], spec["text"], bool(spec.get("letter_only", False)))
    if kind == "text":
        return text_matches(answer, str(spec["value"]), bool(spec.get("case", False)))
    if kind == "date":
        return date_matches(answer, datetime.date.fromisoformat(spec["value"]))
    raise ValueError(f"unknown answer kind {kind!r}")


def as_number(answer: Any) -> float | None:
    """The number `answer` holds: itself, or the one number written in a string; else None."""
    if isinstance(answer, bool):
        return None
    if isinstance(answer, int | float):
        return float(answer)
    if not isinstance(answer, str):
        return None
    found = _NUMBER.findall(answer)
    if len(found) != 1:
        return None
    return float(found[0].replace(",", ""))


def number_matches(answer: Any, value: float, rel: float = 1e-6) -> bool:
    got = as_number(answer)
    return got is not None and math.isclose(got, value, rel_tol=rel, abs_tol=1e-9)


def _clean(text: str) -> str:
    text = text.strip()
    if text.endswith(".") and not _NUMBER.fullmatch(text):
        text = text[:-1].strip()
    return text.strip("'\"").strip()


def text_matches(answer: Any, value: str, case: bool = False) -> bool:
    if not isinstance(answer, str):
        return False
    got = _clean(answer)
    return got == value if case else got.casefold() == value.casefold()


def _items(answer: Any) -> list[Any] | None:
    if isinstance(answer, list | tuple | set | frozenset):
        return list(answer)
    if not isinstance(answer, str):
        return None
    text = answer.strip().strip("[](){}")
    parts = [part for part in re.split(r"\s*,\s*|\s+", text) if part] if text else []
    return [_clean(part) for part in parts]


def _same_item(got: Any, want: Any) -> bool:
    if isinstance(want, int | float) and not isinstance(want, bool):
        return number_matches(got, float(want))
    return isinstance(got, str) and _clean(got) == str(want)


def list_matches(answer: Any, items: list[Any], ordered: bool = True) -> bool:
    got = _items(answer)
    if got is None or len(got) != len(items):
        return False
    if not ordered:
        return _unordered_by_matching(got, items)
    return all(_same_item(a, b) for a, b in zip(got, items, strict=True))


def _unordered_by_matching(got: list[Any], items: list[Any]) -> bool:
    remaining = list(items)
    for value in got:
        match = next((i for i, want in enumerate(remaining) if _same_item(value, want)), None)
        if match is None:
            return False
        remaining.pop(match)
    return not remaining


_YES = {"yes", "y"}
_NO = {"no", "n"}


def yesno_matches(answer: Any, value: bool, form: str = "any") -> bool:
    """`form` "yesno": only the words; "any": the words or a bool (True, or the text "True")."""
    if isinstance(answer, bool):
        return form == "any" and answer is value
    if not isinstance(answer, str):
        return False
    word = _clean(answer).casefold()
    if word in _YES | _NO:
        return (word in _YES) is value
    if form == "any" and word in {"true", "false"}:
        return (word == "true") is value
    return False


def choice_matches(answer: Any, letter: str, text: str, letter_only: bool = False) -> bool:
    if not isinstance(answer, str):  # a number is the option's text, where the options are numbers
        return not letter_only and as_number(text) is not None and number_matches(answer, float(text))
    got = _clean(answer)
    bare = got.strip("()").rstrip(")").strip()
    if bare.casefold() == letter.casefold():
        return True
    if letter_only:
        return False
    if got.casefold() == text.casefold():
        return True
    labelled = re.fullmatch(r"\(?([A-Za-z])[).:]\s*(.+)", got)
    return (
        bool(labelled)
        and labelled.group(1).casefold() == letter.casefold()
        and (_clean(labelled.group(2)).casefold() == text.casefold())
    )


def date_matches(answer: Any, value: datetime.date) -> bool:
    if isinstance(answer, datetime.datetime):
        return answer.date() == value
    if isinstance(answer, datetime.date):
        return answer == value
    if not isinstance(answer, str):
        return False
    got = _clean(answer)
    for form in _DATE_FORMATS:
        try:
            return datetime.datetime.strptime(got, form).date() == value
        except ValueError:
            continue
    return False
