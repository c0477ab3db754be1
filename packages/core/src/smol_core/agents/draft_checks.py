"""Which drafted answers did no work: for the answer drafting of small models (`CodeAgent._best_draft`).

Asked to sort `[5, 3, 9, 1]` or to multiply every number in `[1, 2, 3]` by 10, SmolLM2-135M often
copies the list into `final_answer(...)` untouched, and when two of three drafts do so, that copy
wins the vote. An answer that is one of the task's own list or string literals, unchanged, almost
never answers it, so such drafts do not vote while any other draft reached an answer.
"""

from __future__ import annotations

import ast
import re
from typing import Any

_LITERALS = re.compile(r"\[[^\[\]]*\]|'[^'\n]*'|\"[^\"\n]*\"")


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
