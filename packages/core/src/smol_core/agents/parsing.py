"""Reading actions out of model replies.

Small models are sloppy: a missing closing tag, a fence instead of a tag, code with no wrapper at
all. The parser accepts every common shape and, when it still finds nothing, says exactly which
format it expected, so the model can correct itself on the next step.

A reply is also hostile input: every reader here runs in time linear in its length (no pattern that
rescans the rest of the text from each candidate), JSON is read within a nesting limit
(`smol_core.json_limits`), and content that is not text is an error the model sees.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from smol_core.errors import AgentParsingError
from smol_core.json_limits import find_json_object
from smol_core.messages import ChatMessage

MAX_OBSERVATION_LENGTH = 20_000


_FENCE = "```"
_FENCE_HEADER = re.compile(r"(?:py|python|Python|python3)?[ \t]*\n")


def _tagged_blocks(text: str, opening: str, closing: str) -> list[str]:
    """Every `opening ... closing` block, found with `str.find` so the scan is linear: a pattern
    with a lazy `.*?` would rescan to the end from each unclosed opening (quadratic)."""
    blocks: list[str] = []
    position = text.find(opening)
    while position != -1:
        start = position + len(opening)
        end = text.find(closing, start)
        if end == -1:
            break  # no later opening can be closed either
        blocks.append(text[start:end].lstrip())
        position = text.find(opening, end + len(closing))
    return blocks


def _fenced_blocks(text: str) -> list[str]:
    """Every ```py fenced block (```python, ```python3, or a bare ```), in one linear scan."""
    blocks: list[str] = []
    position = text.find(_FENCE)
    while position != -1:
        header = _FENCE_HEADER.match(text, position + len(_FENCE))
        if header is None:
            position = text.find(_FENCE, position + 1)
            continue
        end = text.find(_FENCE, header.end())
        if end == -1:
            break
        blocks.append(text[header.end() : end].removesuffix("\n"))
        position = text.find(_FENCE, end + len(_FENCE))
    return blocks


def extract_code_from_text(text: str, code_block_tags: tuple[str, str] = ("<code>", "</code>")) -> str | None:
    """Join every code block in the text; None if there is none."""
    for found in (_tagged_blocks(text, *code_block_tags), _fenced_blocks(text)):
        blocks = [block.strip("\n") for block in found if block.strip()]
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
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # deep nesting overflows the parser
        return False
    return any(not isinstance(node, ast.Expr) or isinstance(node.value, ast.Call) for node in tree.body)


def as_text(value: Any) -> str:
    """`str(value)`, or what it is when it cannot be shown: an int past Python's 4,300-digit limit, or
    an object whose `__str__` raises, must give the model an observation, not end the run."""
    try:
        return str(value)
    except Exception as error:
        return f"<{type(value).__name__} that cannot be shown as text: {type(error).__name__}: {error}>"


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
    """The first JSON object in `text`, and the text before it (the model's thought).

    Linear in the length of the reply and bounded in depth (see `smol_core.json_limits`): raises
    `ValueError` if there is no object, `JSONLimitError` (a `ValueError`) if it is nested too deeply.
    """
    value, position = find_json_object(text)
    return value, text[:position]


def reply_text(message: ChatMessage) -> str:
    """The text of a model reply, or `AgentParsingError` when its content is not text.

    A backend (or a hostile server behind it) can put anything in `content`; reading it as text
    must not raise a `TypeError` out of the run, but tell the model what was wrong.
    """
    content = message.content
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list) and all(_is_text_or_media_part(part) for part in content):
        return message.text
    raise AgentParsingError(
        f"Your reply's content must be text, got {_describe(content)}. Reply with plain text."
    )


def _is_text_or_media_part(part: Any) -> bool:
    if not isinstance(part, dict):
        return False
    return part.get("type") != "text" or isinstance(part.get("text", ""), str)


def _describe(value: Any) -> str:
    """A short, safe description of a hostile value: its type, never its (possibly huge) repr."""
    if isinstance(value, list):
        kinds = sorted({type(item).__name__ for item in value[:20]})
        return f"a list of {', '.join(kinds) or 'nothing'}"
    return f"a value of type {type(value).__name__}"


def split_action(model_output: str, split_token: str, logger: Any = None) -> tuple[str, str]:
    """The rationale and the action of a reply written as `<thought><split_token><action>`
    (smolagents' helper for agents that parse their replies themselves); the last split wins."""
    parts = model_output.split(split_token)
    if len(parts) < 2:
        raise AgentParsingError(
            f"No '{split_token}' token provided in your output.\nYour output:\n{model_output}\n. "
            f"Be sure to include an action, prefaced with '{split_token}'!",
            logger,
        )
    return parts[-2].strip(), parts[-1].strip()
