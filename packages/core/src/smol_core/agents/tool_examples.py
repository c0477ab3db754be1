"""Worked examples that call the agent's own tools, for small models (see `agents/examples.py`).

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

from smol_core.agents.examples import WorkedExample

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

    For small models only (`CodeAgent._answers_directly`): shown examples that call the tools, a
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
    """Up to `count` examples, one per tool, for the tools closest to `task`; the closest last."""
    candidates = [tool for tool in tools if getattr(tool, "name", "") not in ("final_answer", "")]
    words = _words(task)
    ranked = sorted(
        enumerate(candidates),
        key=lambda pair: (-len(words & _words(f"{pair[1].name} {pair[1].description}")), pair[0]),
    )
    examples = [_example(tool) for _, tool in ranked[:count]]
    return [example for example in examples if example is not None][::-1]


def _example(tool: Any) -> WorkedExample | None:
    inputs: dict[str, dict[str, Any]] = dict(getattr(tool, "inputs", {}) or {})
    arguments = [_value(name, spec) for name, spec in inputs.items() if not spec.get("nullable")]
    if not arguments:
        arguments = [] if not inputs else [_value(*next(iter(inputs.items())))]
    sentence = (tool.description or tool.name).strip().split("\n")[0].split(". ")[0].rstrip(".")
    question = _VERBS.sub("", sentence)
    shown = ", ".join(repr(value) if isinstance(value, str) else str(value) for value in arguments)
    task = f"What is {question[:1].lower()}{question[1:]}" + (f", for {shown}?" if shown else "?")
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
