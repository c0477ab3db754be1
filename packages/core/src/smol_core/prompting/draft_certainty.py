"""Whether a small model was sure of its first drafted answer, so that the step needs no other draft.

Drafting (`prompting/drafts.py`) pays one full generation per draft, each on its own prompt (other
worked examples): three drafts cost three times one. They help where the model hesitates between
two operations (`%` or `/` for "divided by"); where it wrote every token of the code without
hesitating, the other drafts measured on SmolLM2-135M only ever agreed with it, or lost the vote.

So a model that reports token log-probabilities (`ModelCapabilities.token_logprobs`) is asked for
them on the first draft, and the least likely token it chose in the code measures its certainty.
Tokens that carry no decision do not count: comment lines (the grammar writes the task there), the
names the code binds itself (`result` or `total` is the same program) and `final_answer` (the grammar
requires it). `CERTAIN_LOGPROB` (every token at least even odds) was chosen on the tuned task sets of
`bench/agent_default_model.py` (tasks, check, two_step): no task the vote solved had a first draft
above it that was wrong.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from smol_core.messages import ChatMessage

__all__ = ["CERTAIN_LOGPROB", "least_likely_choice", "token_logprobs"]

CERTAIN_LOGPROB = math.log(0.5)
_NAME = re.compile(r"[A-Za-z_]\w*")


def token_logprobs(message: ChatMessage) -> list[tuple[str, float]] | None:
    """The reply's tokens and their log-probabilities, from `raw` in OpenAI's chat completions
    shape (a dict, or the client's objects); None where the reply has none."""
    try:
        choice = _field(message.raw, "choices")[0]
        content = _field(_field(choice, "logprobs"), "content")
        return [(str(_field(entry, "token")), float(_field(entry, "logprob"))) for entry in content]
    except (LookupError, TypeError, ValueError, AttributeError):
        return None


def least_likely_choice(tokens: Sequence[tuple[str, float]], code: str) -> float | None:
    """The lowest log-probability among the tokens of the reply that decide what `code` computes
    (see the module's note); None if no token does."""
    skipped = _bound_names(code) | {"final_answer"}
    code_lines = {line.strip() for line in code.splitlines() if line.strip()}
    text = "".join(token for token, _ in tokens)
    spans = [match.span() for match in _NAME.finditer(text) if match.group() in skipped]
    lowest: float | None = None
    start = 0
    for token, logprob in tokens:
        end = start + len(token)
        line = text[text.rfind("\n", 0, start) + 1 :].split("\n", 1)[0].strip()
        decides = (
            token.strip()
            and line in code_lines
            and not line.startswith("#")
            and not any(left <= start and end <= right for left, right in spans)
        )
        if decides:
            lowest = logprob if lowest is None else min(lowest, logprob)
        start = end
    return lowest


def _bound_names(code: str) -> set[str]:
    """The names `code` assigns (variables, loop targets, comprehension variables)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {
        node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }


def _field(value: Any, name: str) -> Any:
    if isinstance(value, Mapping):
        return value[name]
    result = getattr(value, name)
    if result is None:
        raise TypeError(name)
    return result
