"""Reading JSON out of model replies within fixed bounds: linear time, and a nesting limit.

A reply is hostile input. Two things go wrong with a naive reader: trying `json` at every `{` of
a long reply costs time quadratic in its length (a reply of a million `{` took 20 s), and a deeply
nested value either raises `RecursionError` while being read or, once stored in the agent's memory,
each time the memory is written out again. So replies are read here: at most `MAX_CANDIDATES`
places are tried, each by one pass of the C decoder over the text (no copies), and a value nested
more than `MAX_JSON_DEPTH` levels is refused with `JSONLimitError`, whose message the model sees.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_JSON_DEPTH = 64
MAX_CANDIDATES = 32

# A JSON object starts with `{` then optional blanks then a key or the closing brace: other `{`
# (in prose, in code, or a run of a million) are never handed to the decoder.
_OBJECT_START = re.compile(r'\{[ \t\r\n]*["}]')
_DECODER = json.JSONDecoder()


class JSONLimitError(ValueError):
    """JSON from a model is too deeply nested (or otherwise beyond the bounds) to be accepted."""


def _too_deep_message(limit: int) -> str:
    return (
        f"The JSON is nested more than {limit} levels deep, which is not accepted. Use a flatter structure."
    )


def nesting_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
    """The nesting depth of a JSON-like value (lists, tuples, dicts), walked without recursion.

    Stops as soon as the depth passes `limit` and returns `limit + 1`, so a hostile value costs no
    more than the part of it within the limit.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limit:
            return limit + 1
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def check_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> Any:
    """`value` itself if it is nested at most `limit` levels; `JSONLimitError` otherwise."""
    if nesting_depth(value, limit) > limit:
        raise JSONLimitError(_too_deep_message(limit))
    return value


def loads_bounded(text: str, limit: int = MAX_JSON_DEPTH) -> Any:
    """`json.loads` that never lets `RecursionError` out and refuses values nested beyond `limit`."""
    try:
        value = json.loads(text)
    except RecursionError as error:
        raise JSONLimitError(_too_deep_message(limit)) from error
    return check_depth(value, limit)


def parse_arguments(arguments: Any, limit: int = MAX_JSON_DEPTH) -> Any:
    """Tool-call arguments as a value: a JSON string is decoded (bounded); other text stays text.

    The bounded twin of `models.base.parse_json_if_needed`, for arguments that came from a model.
    """
    if isinstance(arguments, str):
        try:
            return loads_bounded(arguments, limit)
        except json.JSONDecodeError:
            return arguments
    return check_depth(arguments, limit)


def find_json_object(text: str, limit: int = MAX_JSON_DEPTH) -> tuple[dict[str, Any], int]:
    """The first JSON object in free text and where it starts, in time linear in `len(text)`.

    Tries the first `MAX_CANDIDATES` places where an object can start; raises `ValueError` if none
    holds one, `JSONLimitError` if the object found is nested beyond `limit`.
    """
    for tried, match in enumerate(_OBJECT_START.finditer(text)):
        if tried >= MAX_CANDIDATES:
            break
        position = match.start()
        try:
            value, _end = _DECODER.raw_decode(text, position)
        except json.JSONDecodeError:
            continue
        except RecursionError as error:
            raise JSONLimitError(_too_deep_message(limit)) from error
        if isinstance(value, dict):
            return check_depth(value, limit), position
    raise ValueError(f"no valid JSON object found in: {text[:300]!r}")
