"""Worked examples that call the agent's own tools, for small models (see `prompting/examples.py`).

A model of a hundred million parameters copies the nearest pattern. Shown only arithmetic, it answers
"What is the temperature in Oslo?" with a number it makes up; shown a fixed example that calls some
`get_weather`, it calls `get_weather` whatever tools it has. So the examples are made from the tools
at hand: for the tools whose name and description share the most words with the task, a question
made from the description ("Gets the price of one item." -> "What is the price of one item, for
'apple'?") answered by calling the tool and passing what it returns to `final_answer`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from smol_core.prompting.examples import WorkedExample

_VERBS = re.compile(
    r"^(gets?|returns?|fetch(es)?|looks? up|finds?|retrieves?|gives?|tells?|computes?|calculates?)\s+",
    re.IGNORECASE,
)
_EXAMPLE_VALUE = re.compile(r"e\.g\.,?\s*(?:'([^']+)'|\"([^\"]+)\"|([\w.-]+))")
# Values for common argument names whose description gives no example.
_DEFAULT_VALUES: dict[str, Any] = {
    "city": "London",
    "location": "London",
    "country": "Spain",
    "query": "solar panels",
    "item": "pencil",
    "name": "Alice",
    "word": "table",
    "text": "good day",
    "url": "https://example.com",
    "date": "2024-05-01",
}


def task_needs_tools(task: str, tools: Iterable[Any]) -> bool:
    """Whether `task` names something one of `tools` is about: a word of the task (synonyms folded)
    in a tool's name, description or argument names.

    For small models only (`SmallModelPrompting.answers_directly`): shown examples that call the tools, a
    135M model calls one whatever the task ("What is 17 times 23?" became `get_population(23) * 17`).
    A task that shares no word with any tool is computed directly instead. A task worded unlike
    the tool it needs misses the tool; a capable model never goes through this guess.
    """
    words = _words(task) - _GENERIC
    for tool in tools:
        name = getattr(tool, "name", "")
        if name in ("final_answer", ""):
            continue
        inputs = " ".join(dict(getattr(tool, "inputs", {}) or {}))
        about = _words(
            f"{name.replace('_', ' ')} {getattr(tool, 'description', '')} {inputs.replace('_', ' ')}"
        )
        if words & about:
            return True
    return False


def tool_examples(task: str, tools: Iterable[Any], count: int = 2) -> list[WorkedExample]:
    """Up to `count` examples, one per tool, for the tools closest to `task`; the closest last.

    Where the task reads as more than one call, the closest example is one of that shape instead
    (`_compound_example`): a 135M model composes two calls when shown how, rarely otherwise.
    """
    candidates = [tool for tool in tools if getattr(tool, "name", "") not in ("final_answer", "")]
    words = _words(task)
    ranked = sorted(
        enumerate(candidates),
        key=lambda pair: (-len(words & _words(f"{pair[1].name} {pair[1].description}")), pair[0]),
    )
    examples = [_example(tool) for _, tool in ranked[:count]]
    found = [example for example in examples if example is not None][::-1]
    matched = [tool for _, tool in ranked if words & _words(f"{tool.name} {tool.description}")]
    compound = _compound_example(task, matched)
    return [*found[1:], compound] if compound is not None and found else found


def _compound_example(task: str, matched: list[Any]) -> WorkedExample | None:
    """A two-call example when the task asks for one: a call whose result feeds another ("the
    temperature in the capital of Norway": the tool named first in the task is the outer one), a
    call's result and a number ("3 apples", "plus 10"), or one tool called for two things whose
    results are added ("bread and milk together"). Not "warmer than": shown `a - b` with example
    values, the model copied the example's second value into its answer (measured)."""
    lowered = task.lower()
    if len(matched) >= 2:
        outer, inner = sorted(matched[:2], key=lambda tool: _first_mention(lowered, tool))
        if _one_text_input(outer) is not None and _one_text_input(inner) is not None:
            variable = _result_name(inner)
            inner_args = _arguments(inner)
            code = (
                f"{variable} = {inner.name}({inner_args})\n"
                f"result = {outer.name}({variable})\nfinal_answer(result)"
            )
            question = f"What is {_question(outer)}, for {_question(inner)}, for {inner_args}?"
            return WorkedExample(question, code)
    if matched and _one_text_input(matched[0]) is not None:
        tool = matched[0]
        number = _NUMBER.search(lowered)
        if number is not None and getattr(tool, "output_type", "") in ("integer", "number"):
            operator = _OPERATORS.get(number.group(1) or "", "*")
            other = 7 if number.group(2) != "7" else 6
            code = f"result = {tool.name}({_arguments(tool)}) {operator} {other}\nfinal_answer(result)"
            said = {"*": "times", "+": "plus", "-": "minus", "/": "divided by"}[operator]
            return WorkedExample(f"What is {_question(tool)}, for {_arguments(tool)}, {said} {other}?", code)
        if _TOGETHER.search(lowered):
            first, second = _two_values(tool)
            code = f"a = {tool.name}({first!r})\nb = {tool.name}({second!r})\nfinal_answer(a + b)"
            return WorkedExample(f"What is {_question(tool)}, for {first!r} and {second!r} together?", code)
    return None


_NUMBER = re.compile(r"(?:\b(plus|minus|times|divided by)\s+)?\b(\d+)\b")
_OPERATORS = {"plus": "+", "minus": "-", "times": "*", "divided by": "/"}
_TOGETHER = re.compile(r"\b(?:together|in total|combined|both)\b")
_SECOND_VALUES = {"city": "Madrid", "location": "Madrid", "country": "Chile", "item": "eraser", "name": "Bob"}


def _first_mention(task: str, tool: Any) -> int:
    """Where in `task` the first word of the tool's subject appears (far away if none does)."""
    positions = [
        match.start()
        for word in _words(f"{tool.name} {tool.description}")
        for match in re.finditer(r"\b" + re.escape(word), task)
    ]
    return min(positions, default=len(task))


def _one_text_input(tool: Any) -> str | None:
    """The name of the tool's one required string argument, if that is all it takes."""
    inputs: dict[str, dict[str, Any]] = dict(getattr(tool, "inputs", {}) or {})
    required = [name for name, spec in inputs.items() if not spec.get("nullable")]
    if len(required) == 1 and inputs[required[0]].get("type") == "string":
        return required[0]
    return None


def _arguments(tool: Any) -> str:
    inputs: dict[str, dict[str, Any]] = dict(getattr(tool, "inputs", {}) or {})
    values = [_value(name, spec) for name, spec in inputs.items() if not spec.get("nullable")]
    return ", ".join(repr(value) if isinstance(value, str) else str(value) for value in values)


def _two_values(tool: Any) -> tuple[str, str]:
    name = _one_text_input(tool) or ""
    first = str(_value(name, dict(tool.inputs)[name]))
    second = _SECOND_VALUES.get(name.lower(), "other")
    return first, second if second != first else "other"


def _result_name(tool: Any) -> str:
    """`capital` for `get_capital`: a variable named for what the inner call returns."""
    name = re.sub(r"^(?:get|fetch|find|lookup|look_up|compute|calculate)_", "", tool.name)
    return name if name.isidentifier() and name != tool.name else "value"


def _question(tool: Any) -> str:
    sentence = (tool.description or tool.name).strip().split("\n")[0].split(". ")[0].rstrip(".")
    question = _VERBS.sub("", sentence)
    return f"{question[:1].lower()}{question[1:]}"


def _example(tool: Any) -> WorkedExample | None:
    inputs: dict[str, dict[str, Any]] = dict(getattr(tool, "inputs", {}) or {})
    arguments = [_value(name, spec) for name, spec in inputs.items() if not spec.get("nullable")]
    if not arguments:
        arguments = [] if not inputs else [_value(*next(iter(inputs.items())))]
    shown = ", ".join(repr(value) if isinstance(value, str) else str(value) for value in arguments)
    task = f"What is {_question(tool)}" + (f", for {shown}?" if shown else "?")
    call = f"{tool.name}({shown})"
    return WorkedExample(task, f"result = {call}\nfinal_answer(result)")


def _value(name: str, spec: dict[str, Any]) -> Any:
    match = _EXAMPLE_VALUE.search(str(spec.get("description", "")))
    kind = spec.get("type")
    if match:
        text = next(group for group in match.groups() if group)
        if kind in ("integer", "number"):
            try:
                return int(text) if kind == "integer" else float(text)
            except ValueError:
                pass
        else:
            return text
    if kind == "integer":
        return 3
    if kind == "number":
        return 2.5
    if kind == "boolean":
        return True
    return _DEFAULT_VALUES.get(name.lower(), "example")


_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "in",
        "is",
        "are",
        "what",
        "for",
        "to",
        "and",
        "get",
        "gets",
        "how",
        "do",
        "does",
    ]
)
# Words that say nothing of what a tool is about: "Gets the number of words in a text" and "How many
# numbers are in the list [1, 2]?" share no subject.
_GENERIC = frozenset(
    [
        "number",
        "numbers",
        "list",
        "string",
        "text",
        "value",
        "one",
        "two",
        "many",
        "give",
        "tell",
        "say",
        "result",
        "return",
        "returns",
        "given",
        "which",
        "who",
        "where",
        "when",
        "it",
        "its",
        "this",
        "that",
        "with",
        "by",
        "on",
        "at",
        "from",
        "as",
        "or",
        "be",
        "can",
        "will",
        "my",
        "me",
        "i",
        "you",
        "your",
    ]
)
# Words for the same quantity, folded together so that "How much do apples cost?" finds a price tool.
_SYNONYM_GROUPS = (
    "price cost costs much expensive cheap",
    "temperature warm warmer hot cold degree degrees weather",
    "population people inhabitants populous",
    "capital capitals",
)
_SYNONYMS = {word: group.split()[0] for group in _SYNONYM_GROUPS for word in group.split()}


def _words(text: str) -> set[str]:
    words = set()
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in _STOP:
            continue
        if word not in _SYNONYMS and word.endswith("s") and len(word) > 3:
            word = word[:-1]
        words.add(_SYNONYMS.get(word, word))
    return words
