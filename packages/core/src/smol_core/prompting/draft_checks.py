"""Which drafted answers fit the task: for the answer drafting of small models (`prompting/drafts.py`).

Drafting votes among several answers, but a 135M model's drafts often agree on the same mistake:
one operation of the task left out ("Reverse 'abc' and convert it to upper case" answered with
`text.upper()` alone, "Sort [3, 1, 2] and give its last element" with `numbers[-1]` of the unsorted
list), a list given where a count is asked, or the task's own list copied into `final_answer(...)`.
Each of those can be seen without knowing the answer, so drafts are ranked before they vote:

1. an answer that is one of the task's own list or string literals, unchanged, did no work;
2. an answer of the wrong kind: a list or text where "how many" or "the sum" asks for a number, a
   value with no plain form (`map(...)` never turned into a list), or any value of another form
   than the question asks for (`prompting/answer_form.py`: `True` for "answer yes or no", `1` for
   "what day of the week");
3. fewer of the operations the task names ("sort", "largest", "upper case") done by the code that
   computes the answer (comments and prints do not count).

Only the drafts that rank best vote. The checks are deliberately plain word and token tables: they
never decide between two drafts that both fit, they only stop a draft that plainly does not from
outvoting one that does.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Any

from smol_core.executors.worker.protocol import UnserializableValue
from smol_core.prompting.answer_form import asked_form, fits_form

_LITERALS = re.compile(r"\[[^\[\]]*\]|'[^'\n]*'|\"[^\"\n]*\"")
_STRINGS = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")

# operation: (words in a task that ask for it, code that does it)
_OPERATIONS: dict[str, tuple[str, str]] = {
    "reverse": (r"\brevers\w*|\bbackwards?\b", r"\[\s*::\s*-1\s*\]|\breversed\(|\.reverse\("),
    "upper": (r"\bupper\b|\buppercase\b|\bcapital letters\b", r"\.upper\("),
    "lower": (r"\blower\b|\blowercase\b", r"\.lower\("),
    "sort": (r"\bsort\w*|\bascending\b|\bdescending\b|\bin order\b", r"\bsorted\(|\.sort\("),
    "sum": (r"\bsum\b|\btotal\b|\badd (?:them |it )?up\b|\bplus\b", r"\bsum\(|\+"),
    "multiply": (r"\btimes\b|\bmultipl\w*|\bproduct\b|\bdouble\b|\btriple\b", r"\*(?!\*)|\bprod\("),
    "subtract": (r"\bminus\b|\bsubtract\w*|\bdifference\b", r"[\w)\]]\s*-\s*[\w(]"),
    "divide": (r"\bdivided\b|\bhalf\b|\baverage\b|\bmean\b|\bthird of\b", r"/|\bmean\("),
    "power": (r"\bpower\b|\bsquares?\b|\bsquared\b|\bcubed?\b", r"\*\*|\bpow\(|\*"),
    "remainder": (r"\bremainder\b|\bmodulo\b", r"%|\bdivmod\("),
    "max": (r"\blargest\b|\bbiggest\b|\bhighest\b|\bmaximum\b|\blongest\b|\bgreatest\b", r"\bmax\("),
    "min": (r"\bsmallest\b|\blowest\b|\bminimum\b|\bshortest\b|\bleast\b", r"\bmin\("),
    "length": (r"\bhow many\b|\blength\b|\bcount\b|\bnumber of\b", r"\blen\(|\.count\(|\bsum\("),
    "unique": (r"\bdifferent\b|\bunique\b|\bdistinct\b", r"\bset\(|\{"),
    "words": (r"\bwords\b", r"\.split\("),
    "slice": (r"\b(?:first|last) (?:two|three|four|five|\d+)\b", r"\[\s*-?\d*\s*:\s*-?\d*\s*\]"),
    "last": (r"\blast (?:element|item|number|letter|value|one)\b", r"\[\s*-\s*1\s*\]|\bmax\("),
}
_NUMBER_QUESTION = re.compile(
    r"^\s*(?:how many|how much|what is the (?:sum|total|product|average|mean|number|count|length|"
    r"difference|remainder)\b)",
    re.IGNORECASE,
)


def task_literals(task: str) -> list[Any]:
    """The list and string literals written in `task` (`[5, 3, 9, 1]`, `'banana'`)."""
    values = []
    for match in _LITERALS.finditer(task):
        try:
            values.append(ast.literal_eval(match.group()))
        except (ValueError, SyntaxError):
            continue
    return values


def echoes_task(answer: Any, task: str) -> bool:
    """Whether `answer` is one of the task's list or string literals, unchanged."""
    if isinstance(answer, tuple):
        answer = list(answer)
    if not isinstance(answer, list | str):
        return False
    return any(type(value) is type(answer) and value == answer for value in task_literals(task))


def task_operations(task: str) -> frozenset[str]:
    """The operations `task` names in words: `{"sort", "last"}` for "Sort [3, 1, 2] and give its last element"."""
    words = _LITERALS.sub(" ", task).lower()  # 'the sum' inside a quoted string asks for nothing
    return frozenset(name for name, (asked, _) in _OPERATIONS.items() if re.search(asked, words))


def operations_done(code: str) -> frozenset[str]:
    """The operations the lines of `code` that can shape the answer perform (no comments, no prints)."""
    lines = [
        _STRINGS.sub("''", line)  # '-' or '*' inside a string literal is not arithmetic
        for line in code.splitlines()
        if line.strip() and not line.lstrip().startswith(("#", "print("))
    ]
    text = "\n".join(lines)
    return frozenset(name for name, (_, done) in _OPERATIONS.items() if re.search(done, text))


def wrong_kind(answer: Any, task: str) -> bool:
    """A value with no plain form, or a list, dict or text for a task that asks for a number."""
    if isinstance(answer, UnserializableValue | Iterator):
        return True
    if not _NUMBER_QUESTION.search(task):
        return False
    return isinstance(answer, list | tuple | set | frozenset | dict | str)


def best_rank(task: str) -> tuple[int, int, int]:
    """The rank of a draft that passes every check: no draft can rank higher."""
    return (1, 1, len(task_operations(task)))


def draft_rank(answer: Any, code: str, task: str) -> tuple[int, int, int]:
    """Higher is better: (did work, right kind, operations of the task done). See the module's note;
    a value of another form than the task asks for (`answer_form.asked_form`) is of the wrong kind."""
    asked = task_operations(task)
    kind_wrong = wrong_kind(answer, task) or not fits_form(answer, asked_form(task), task)
    return (
        0 if echoes_task(answer, task) else 1,
        0 if kind_wrong else 1,
        len(asked & operations_done(code)),
    )
