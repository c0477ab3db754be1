"""Request options: the model's defaults, the call's own, and `REMOVE_PARAMETER` to drop one.

Why: a model sends what the agent needs (`stop`, `tool_choice`, `max_tokens`...) and what the user
set on it (`Model(temperature=0.2)`). Some providers refuse a parameter the library adds by default;
`Model(max_tokens=REMOVE_PARAMETER)` (smolagents' sentinel) takes it out of every request, whoever
set it. `supports_stop_parameter` is smolagents' guess of which models refuse `stop` (reasoning
models); smol's API models also learn it from a server's refusal and cut replies client-side.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "REMOVE_PARAMETER",
    "RemoveParameter",
    "grammar_options",
    "layer_options",
    "supports_stop_parameter",
]


class RemoveParameter:
    """The type of `REMOVE_PARAMETER`: one instance, compared by identity."""

    _instance: RemoveParameter | None = None

    def __new__(cls) -> RemoveParameter:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "REMOVE_PARAMETER"

    def __reduce__(self) -> str:
        return "REMOVE_PARAMETER"  # a copy (pickle, deepcopy) is the same sentinel


REMOVE_PARAMETER: Final = RemoveParameter()
"""A model option's value meaning "send no such parameter": `Model(max_tokens=REMOVE_PARAMETER)` drops
`max_tokens` from every request, even where the library or the call would set it."""


def layer_options(payload: Mapping[str, Any], *layers: Mapping[str, Any]) -> dict[str, Any]:
    """`payload` with each layer's options on top, in order (the last wins); an option whose value
    is `REMOVE_PARAMETER` in any layer is left out of the result, whoever set it."""
    merged = dict(payload)
    removed: set[str] = set()
    for layer in layers:
        for key, value in layer.items():
            if value is REMOVE_PARAMETER:
                removed.add(key)
            else:
                merged[key] = value
    for key in removed:
        merged.pop(key, None)
    return merged


# o3 and o4 (and their versioned and -mini variants, but not o3-mini), the gpt-5 family and xAI's grok
# models refuse `stop`, as smolagents lists them; o1 does too.
_NO_STOP = re.compile(
    r"^((?:o1|o3|o4)(?:$|[-.].*)|gpt-5.*|([A-Za-z][A-Za-z0-9_-]*\.)?grok-[A-Za-z0-9][A-Za-z0-9_.-]*)$"
)


def supports_stop_parameter(model_id: str) -> bool:
    """Whether a model takes the `stop` parameter, guessed from its id (`"openai/o3"` -> False).

    Only the last path segment counts, so provider prefixes (`openai/`, `oci/xai.`) do not matter.
    """
    name = (model_id or "").split("/")[-1]
    if name == "o3-mini":
        return True
    return _NO_STOP.match(name) is None


def grammar_options(grammar: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """What an agent's `grammar=` adds to each model call: a string is a grammar (GBNF, for backends
    that decode under one), a mapping a `response_format` (smolagents' `{"type": "regex", ...}` or a
    JSON schema), as providers take them. Nothing when unset, so models without these keywords work."""
    if grammar is None:
        return {}
    if isinstance(grammar, str):
        return {"grammar": grammar}
    return {"response_format": grammar}
