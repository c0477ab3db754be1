"""Constrained decoding helpers: response formats and truncated JSON (tool-call schemas are in the core).

llama.cpp constrains sampling with a grammar (GBNF, or a JSON schema that it compiles through
LLGuidance), so a reply always follows the shape asked for. One gap remains: a reply cut by
`max_tokens` stops mid-value. `complete_truncated_json` closes it and fills required fields, so that
a caller asking for JSON always gets JSON.
"""

from __future__ import annotations

import json
from typing import Any

from smol_core.plugin_api import sanitize_schema

# --- response formats -------------------------------------------------------------------------------


def schema_of_response_format(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """The JSON schema inside an OpenAI-style `response_format` ({} for plain `json_object`), or None."""
    if not response_format:
        return None
    kind = response_format.get("type")
    if kind == "json_schema":
        inner = response_format.get("json_schema") or {}
        schema = inner.get("schema", inner if "properties" in inner or "type" in inner else {})
        return dict(schema) if isinstance(schema, dict) else {}
    if kind == "json_object":
        schema = response_format.get("schema") or {}
        return dict(schema) if isinstance(schema, dict) else {}
    if kind == "text":
        return None
    if "properties" in response_format or response_format.get("type") == "object":
        return dict(response_format)  # a bare JSON schema
    raise ValueError(
        f"Unsupported response_format {response_format!r}: use {{'type': 'json_schema', 'json_schema': "
        "{'name': ..., 'schema': {...}}}, {'type': 'json_object'} or {'type': 'text'}."
    )


def normalize_response_format(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """An OpenAI-style `response_format` that llama.cpp's server accepts (bare schemas get wrapped)."""
    schema = schema_of_response_format(response_format)
    if schema is None:
        return None
    if not schema:
        return {"type": "json_object"}
    name = "response"
    if response_format and response_format.get("type") == "json_schema":
        name = str((response_format.get("json_schema") or {}).get("name") or name)
    return {"type": "json_schema", "json_schema": {"name": name, "schema": sanitize_schema(schema)}}


# --- truncated JSON -------------------------------------------------------------------------------------------

_LITERALS = ("true", "false", "null")


class _Frame:
    __slots__ = ("kind", "last_key", "state")

    def __init__(self, kind: str) -> None:
        self.kind = kind  # "object" or "array"
        self.state = "open"  # open | key | colon | value | done  (after: {/[ , key : value)
        self.last_key = ""


def _scan(text: str) -> tuple[list[_Frame], str, bool, str, bool]:
    """Where a JSON prefix stopped: open frames, partial string (and whether it is a key) or literal."""
    stack: list[_Frame] = []
    in_string = False
    string_is_key = False
    string_text = ""
    literal = ""

    def value_done() -> None:
        if stack:
            stack[-1].state = "done"

    for char in text:
        if in_string:
            string_text += char
            if string_text.endswith('"') and not _escaped_quote(string_text):
                in_string = False
                if string_is_key:
                    stack[-1].state = "colon"
                    try:
                        stack[-1].last_key = json.loads('"' + string_text)
                    except json.JSONDecodeError:
                        stack[-1].last_key = string_text[:-1]
                else:
                    value_done()
            continue
        if literal and (char.isspace() or char in ",]}:"):
            literal = ""
            value_done()
        if char.isspace():
            continue
        if char == '"':
            in_string, string_text = True, ""
            string_is_key = bool(stack) and stack[-1].kind == "object" and stack[-1].state in ("open", "key")
        elif char in "{[":
            stack.append(_Frame("object" if char == "{" else "array"))
        elif char in "}]":
            if stack:
                stack.pop()
            value_done()
        elif char == ":":
            if stack:
                stack[-1].state = "value"
        elif char == ",":
            if stack:
                stack[-1].state = "key" if stack[-1].kind == "object" else "value"
        else:
            literal += char
    return stack, string_text if in_string else "", string_is_key if in_string else False, literal, in_string


def _escaped_quote(string_text: str) -> bool:
    """Whether the final quote of `string_text` is escaped (preceded by an odd run of backslashes)."""
    run = len(string_text) - 1 - len(string_text[:-1].rstrip("\\"))
    return run % 2 == 1


def _finish_literal(literal: str) -> str:
    for word in _LITERALS:
        if word.startswith(literal):
            return word[len(literal) :]
    if literal and literal[-1] in "-+.eE":
        return "0"
    return ""


def _finish_string(partial: str) -> str:
    """What closes a string whose text so far (after the opening quote) is `partial`."""
    trailing = len(partial) - len(partial.rstrip("\\"))
    suffix = "\\" if trailing % 2 == 1 else ""
    escape = partial.rfind("\\u")
    if not suffix and escape != -1 and len(partial) - escape < 6:
        run = len(partial[:escape]) - len(partial[:escape].rstrip("\\"))
        if run % 2 == 0:  # a real \u escape, half written
            suffix = "0" * (6 - (len(partial) - escape))
    return suffix + '"'


def _default_for(schema: dict[str, Any]) -> Any:
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0] if kind else None
    return {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}.get(
        str(kind)
    )


def _missing_required(value: Any, schema: dict[str, Any] | None) -> list[str]:
    if not schema or not isinstance(value, dict):
        return []
    return [name for name in schema.get("required") or [] if name not in value]


def json_completion_suffix(text: str, schema: dict[str, Any] | None = None) -> str | None:
    """The text to append to a JSON reply cut short so that it parses (None if none can be found).

    Only appends, never rewrites: a stream can send it as one last delta. Open strings, literals,
    arrays and objects are closed; a dangling key gets `null`; required top-level properties that the
    reply never reached are added with empty values (`""`, `0`, `[]`...).
    """
    if not text.strip():
        return json.dumps(fill_required({}, schema))
    stack, partial, is_key, literal, in_string = _scan(text)
    properties: dict[str, Any] = (schema or {}).get("properties") or {}
    top = len(stack) == 1 and stack[0].kind == "object"

    def value_for(key: str) -> str:
        """The empty value a top-level property's schema allows (null elsewhere)."""
        return json.dumps(_default_for(properties.get(key, {}))) if top and key in properties else "null"

    middle = ""
    if in_string and is_key:
        matches = [name for name in properties if name.startswith(partial)] if top else []
        if len(matches) == 1:  # the grammar was writing this key: finish it
            middle = matches[0][len(partial) :] + '": ' + value_for(matches[0])
        else:
            middle = _finish_string(partial) + ": null"
    elif in_string:
        middle = _finish_string(partial)
    elif literal:
        middle = _finish_literal(literal)
    elif stack:
        frame = stack[-1]
        if frame.kind == "object":
            middle = {
                "colon": ": " + value_for(frame.last_key),
                "value": value_for(frame.last_key),
                "key": '"": null',
            }.get(frame.state, "")
        elif frame.state == "value":
            middle = "null"
    closers = ["}" if frame.kind == "object" else "]" for frame in reversed(stack)]
    candidate = text + middle + "".join(closers)
    try:
        value = json.loads(candidate)
    except json.JSONDecodeError:
        return None
    missing = _missing_required(value, schema)
    if not missing or not stack or stack[0].kind != "object":
        return candidate[len(text) :]
    filled = ", ".join(f"{json.dumps(k)}: {json.dumps(_default_for(properties.get(k, {})))}" for k in missing)
    if len(stack) == 1 and stack[0].state == "key" and middle == '"": null':
        middle = filled  # right after a comma: the missing keys take the empty key's place
    else:
        has_keys = isinstance(value, dict) and len(value) > 0
        closers[-1] = (", " if has_keys else "") + filled + "}"
    candidate = text + middle + "".join(closers)
    try:
        json.loads(candidate)
    except json.JSONDecodeError:
        return None
    return candidate[len(text) :]


def fill_required(value: Any, schema: dict[str, Any] | None) -> Any:
    """Add the schema's required properties that a truncated reply never reached (recursively)."""
    if not schema or not isinstance(value, dict):
        return value
    properties = schema.get("properties") or {}
    for name in _missing_required(value, schema):
        value[name] = _default_for(properties.get(name, {}))
    for name, sub in properties.items():
        if isinstance(value.get(name), dict) and isinstance(sub, dict):
            fill_required(value[name], sub)
    return value


def complete_truncated_json(text: str, schema: dict[str, Any] | None = None) -> str:
    """Turn a JSON reply cut short by the token limit into valid JSON (best effort, never raises).

    The reply is kept as written and only extended (see `json_completion_suffix`); text before the
    first `{` or `[` is dropped; if nothing works, the schema's empty instance is returned.
    """
    start = min((i for i in (text.find("{"), text.find("[")) if i != -1), default=-1)
    body = text[start:] if start != -1 else ""
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        value = None
    else:
        if not _missing_required(value, schema):
            return body
    suffix = json_completion_suffix(body, schema)
    if suffix is not None:
        return body + suffix
    return json.dumps(fill_required({}, schema))
