"""Reading actions out of model replies.

Small models are sloppy: a missing closing tag, a fence instead of a tag, code with no wrapper at
all. The parser accepts every common shape and, when it still finds nothing, says exactly which
format it expected, so the model can correct itself on the next step.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from smol_core.errors import AgentParsingError

MAX_OBSERVATION_LENGTH = 20_000


def _block_patterns(opening: str, closing: str) -> list[re.Pattern[str]]:
    return [
        re.compile(re.escape(opening) + r"\s*\n?(.*?)" + re.escape(closing), re.DOTALL),
        re.compile(r"```(?:py|python|Python|python3)?[ \t]*\n(.*?)\n?```", re.DOTALL),
    ]


def extract_code_from_text(text: str, code_block_tags: tuple[str, str] = ("<code>", "</code>")) -> str | None:
    """Join every code block in the text; None if there is none."""
    for pattern in _block_patterns(*code_block_tags):
        blocks = [block.strip("\n") for block in pattern.findall(text) if block.strip()]
        if blocks:
            return "\n\n".join(blocks)
    return None


def parse_code_blobs(text: str, code_block_tags: tuple[str, str] = ("<code>", "</code>")) -> str:
    """The code of a reply, in `<code>` tags or ```py fences; raises a readable error if none."""
    code = extract_code_from_text(text, code_block_tags)
    if code is not None:
        return code
    opening, closing = code_block_tags
    unclosed = re.search(re.escape(opening) + r"\s*\n?(.*)$", text, re.DOTALL) or re.search(
        r"```(?:py|python)?[ \t]*\n(.*)$", text, re.DOTALL
    )
    if unclosed and unclosed.group(1).strip() and _is_python(unclosed.group(1)):
        return unclosed.group(1).strip("\n")
    if _is_python(text) and not text.strip().startswith(("Thought", "I ")):
        return text.strip()
    raise AgentParsingError(
        "Your reply had no code block. Write a thought, then code in this exact format:\n"
        f"Thought: what you will do\n{opening}\n# python code\n{closing}\n"
        f"Your reply was:\n{text[:500]}"
    )


def _is_python(text: str) -> bool:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    return any(not isinstance(node, ast.Expr) or isinstance(node.value, ast.Call) for node in tree.body)


_FINAL_ANSWER_ASSIGN = re.compile(r"(?<![\w.])final_answer(\s*)=(?!=)")


def fix_final_answer_code(code: str) -> str:
    """Models sometimes assign `final_answer = ...`, shadowing the function; rename that variable."""
    if not _FINAL_ANSWER_ASSIGN.search(code):
        return code
    code = _FINAL_ANSWER_ASSIGN.sub(r"final_answer_variable\1=", code)
    return re.sub(r"(?<![\w.])final_answer(?!\s*\()", "final_answer_variable", code)


def truncate_content(content: str, max_length: int = MAX_OBSERVATION_LENGTH) -> str:
    """Keep the head and the tail of a long observation: that is where the useful lines usually are."""
    if len(content) <= max_length:
        return content
    half = max_length // 2
    return (
        content[:half]
        + f"\n..._This content was cut: {len(content) - max_length} characters in the middle were removed_...\n"
        + content[-half:]
    )


def parse_json_blob(text: str) -> tuple[dict[str, Any], str]:
    """The first JSON object in `text`, and the text before it (the model's thought)."""
    start = text.find("{")
    if start == -1:
        raise ValueError("no JSON object found")
    decoder = json.JSONDecoder()
    for position in range(start, len(text)):
        if text[position] != "{":
            continue
        try:
            value, _ = decoder.raw_decode(text[position:])
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value, text[:position]
    raise ValueError(f"no valid JSON object found in: {text[:300]!r}")
