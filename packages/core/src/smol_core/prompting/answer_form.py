"""What an answer must look like, read from the task, and whether a drafted answer is a value at all.

A 135M model's code often computes the right thing and hands `final_answer` the wrong one: the
function instead of its result (`final_answer(sorted)` after printing the sorted list), `True` where
the question said "answer yes or no", the option's text where it asked for the letter. None of this
needs the right answer to see, only the question. So the drafts' vote (`prompting/drafts.py`) asks
this module two things about each draft:

- `not_a_value`: a function, class, method or module, or the repr of one ("<built-in function
  sorted>"): never an answer; such a draft does not vote, and such a final answer is refused.
- `asked_form` and `fits_form`: the form the question asks for (a number, a list, yes or no, an
  option's letter, a weekday, a date), from plain word patterns; a draft of another form ranks
  below those that fit. `in_asked_form` puts an answer into the form asked where that is plain (True
  to "yes" when the question asked for yes or no, an option's text to its letter when it asked for
  the letter), and `from_printed` takes the answer from what the code printed last when that fits
  and the answer passed to `final_answer` does not.

A question whose form these patterns do not recognise asks for none (`asked_form` is None): the
checks then never drop or move a draft.
"""

from __future__ import annotations

import ast
import datetime
import re
from types import BuiltinFunctionType, FunctionType, MethodType, ModuleType
from typing import Any

from smol_core.errors import AgentExecutionError
from smol_core.executors.worker.protocol import UnserializableValue

__all__ = ["FORM_NAMES", "asked_form", "fits_form", "from_printed", "in_asked_form", "not_a_value", "options"]

_CODE_TYPES = {  # a value's type name, as the executor reports it, -> what to call it
    "function": "a function",
    "builtin_function_or_method": "a function",
    "method": "a method",
    "method_descriptor": "a method",
    "wrapper_descriptor": "a method",
    "type": "a class",
    "module": "a module",
}
_CODE_REPR = re.compile(
    r"^<(?:built-in (?:function|method)|function|bound method|class|module|method|"
    r"method-wrapper|slot wrapper)\b.*>$",
    re.DOTALL,
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_OPTION = re.compile(
    r"(?:^|\s)\(?([A-Da-d])(?:\)|:)\s*([^()\s:][^()]*?)(?=\s+\(?[A-Da-d](?:\)|:)|[.?]?\s*$|\.\s)"
)
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
_NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?")


FORM_NAMES = {
    "number": "a number",
    "list": "a list",
    "yesno": "yes or no",
    "bool": "yes or no",
    "letter": "an option's letter",
    "choice": "one of the options",
    "weekday": "a weekday",
    "date": "a date",
}


def not_a_value(answer: Any) -> str | None:
    """Why `answer` is code rather than a value ("a function"), or None when it is a value."""
    if isinstance(answer, UnserializableValue):
        kind = _CODE_TYPES.get(answer.type_name.rsplit(".", 1)[-1])
        return f"{kind}, not a value" if kind else None
    if isinstance(answer, type):
        return "a class, not a value"
    if isinstance(answer, ModuleType):
        return "a module, not a value"
    if isinstance(answer, FunctionType | BuiltinFunctionType | MethodType):
        return "a function, not a value"
    if isinstance(answer, str) and _CODE_REPR.match(answer.strip()):
        return "the repr of a function, not a value"
    return None


def options(task: str) -> dict[str, str]:
    """The lettered options of a multiple-choice task (`A) 12 B) 45`): letter (upper case) -> text."""
    found = {letter.upper(): text.strip().rstrip(".") for letter, text in _OPTION.findall(task)}
    return found if len(found) >= 2 else {}


def asked_form(task: str) -> str | None:
    """The form of answer `task` asks for: "letter", "choice" (the letter or the option's text),
    "yesno" (the words), "bool" (yes/no or True/False), "weekday", "date", "list", "number"; None
    when the wording says nothing plain."""
    text = " ".join(_QUOTED.sub("''", task).lower().split())  # 'sort these' quoted asks for nothing
    if options(task):
        return "letter" if re.search(r"\b(?:with|only) the letter\b|\bwhich letter\b", text) else "choice"
    if re.search(r"\byes or no\b", text):
        return "yesno"
    if re.search(r"\bday of the week\b|\bweekday\b|\bwhat day (?:is|was|will)\b", text):
        return "weekday"
    if re.search(r"\bwhat date\b|\bwhich date\b", text):
        return "date"
    if re.match(r"\s*(?:is|are|does|do|did|can|was|were|has|have|will)\b", text):
        return "bool"
    if re.match(r"\s*(?:how (?:many|much|far|old|long)\b|what is -?\d)", text):
        return "number"
    if re.search(r"\b(?:sort|arrange|alphabetical order|list the)\b", text):
        return "list"
    if re.search(
        r"\bpercent|%|\bconvert\b|\b(?:sum|total|product|average|mean|median|factorial|remainder)\b", text
    ):
        return "number"
    return None


def fits_form(answer: Any, form: str | None, task: str = "") -> bool:
    """Whether `answer` has the form asked (any value fits when no form is asked)."""
    if form is None:
        return True
    if form == "number":
        return _is_number(answer)
    if form == "list":
        return isinstance(answer, list | tuple) or (isinstance(answer, str) and _looks_like_list(answer))
    if form in ("yesno", "bool"):
        words = {"yes", "no"} | ({"true", "false"} if form == "bool" else set())
        return (form == "bool" and isinstance(answer, bool)) or _word(answer) in words
    if form in ("letter", "choice"):
        return _option_letter(answer, task, by_text=form == "choice") is not None
    if form == "weekday":
        return _word(answer) in _WEEKDAYS
    if form == "date":
        return isinstance(answer, datetime.date) or _is_date(answer)
    return True


def in_asked_form(answer: Any, task: str) -> Any:
    """`answer` put into the form `task` asks for, where that is plain; else `answer` unchanged."""
    form = asked_form(task)
    if form == "yesno" and isinstance(answer, bool):
        return "yes" if answer else "no"
    if form == "yesno" and _word(answer) in ("true", "false"):
        return "yes" if _word(answer) == "true" else "no"
    if form == "letter":
        letter = _option_letter(answer, task, by_text=True)
        return letter if letter is not None else answer
    if form == "weekday" and isinstance(answer, datetime.date):
        return _WEEKDAYS[answer.weekday()].capitalize()
    return answer


def from_printed(logs: str, task: str) -> Any:
    """The value the code printed last, when it has the form `task` asks for; else None."""
    form = asked_form(task)
    lines = [line.strip() for line in (logs or "").splitlines() if line.strip()]
    if form is None or not lines:
        return None
    try:
        value: Any = ast.literal_eval(lines[-1])
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        value = lines[-1]
    value = in_asked_form(value, task)
    return value if fits_form(value, form, task) and not_a_value(value) is None else None


def _is_number(answer: Any) -> bool:
    if isinstance(answer, bool):
        return False
    if isinstance(answer, int | float):
        return True
    return isinstance(answer, str) and len(_NUMBER.findall(answer)) == 1


def _looks_like_list(text: str) -> bool:
    stripped = text.strip()
    return (stripped.startswith("[") and stripped.endswith("]")) or "," in stripped


def _word(answer: Any) -> str:
    return answer.strip().strip("'\".").strip().lower() if isinstance(answer, str) else ""


def _is_date(answer: Any) -> bool:
    if not isinstance(answer, str):
        return False
    text = answer.strip()
    for form in ("%Y-%m-%d", "%d %B %Y", "%B %d, %Y", "%B %d %Y", "%d %b %Y", "%b %d, %Y"):
        try:
            datetime.datetime.strptime(text, form)
            return True
        except ValueError:
            continue
    return False


def _option_letter(answer: Any, task: str, by_text: bool) -> str | None:
    """The option `answer` names: by its letter ("B", "B)", "(b)"), or with `by_text` by its text."""
    choices = options(task)
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        answer = str(int(answer)) if float(answer).is_integer() else str(answer)
    if not isinstance(answer, str) or not choices:
        return None
    text = answer.strip().strip("'\"").strip().rstrip(".")
    bare = text.strip("()").strip()
    if bare.upper() in choices and len(bare) == 1:
        return bare.upper()
    labelled = re.fullmatch(r"\(?([A-Da-d])[):]\s*(.+)", text)
    if labelled and labelled.group(1).upper() in choices:
        return labelled.group(1).upper()
    if by_text:
        for letter, option in choices.items():
            if option.lower() == text.lower():
                return letter
    return None


def refuse_code_as_answer(agent: Any, final_answer: Any) -> None:
    """A small model prompted by smol (`SmallModelPrompting`) that passes `final_answer` a function,
    class or module, or the repr of one (`final_answer(sorted)` after printing the sorted list), is
    asked again: its step fails with an error that says what to pass instead (the code agent calls
    this on each final answer its code gives). Other models' answers pass as smolagents passes them,
    whatever they are."""
    prompting = getattr(agent, "prompting", None)
    if not getattr(prompting, "compact_prompt", False):
        return
    reason = not_a_value(final_answer)
    if reason is not None:
        raise AgentExecutionError(
            f"The final answer {final_answer!r:.80} is {reason}: call it, and pass final_answer "
            "the result it computes (for example final_answer(sorted(numbers))).",
            agent.logger,
        )
