"""Map MCP tool schemas (JSON Schema) to smol `Tool` inputs and output types, and back.

smol's inputs are a flat dict of argument -> {type, description, nullable, ...} with smolagents'
type names; MCP servers send full JSON Schema (pydantic's `anyOf` for optionals, `$ref`
for models, type lists). The mapping keeps what a model needs to call the tool correctly (the
type, whether it may be left out, enums, array items) and drops what only bloats the prompt
(pydantic's `title`s).
"""

from __future__ import annotations

import keyword
import re
from typing import Any

from smol_core.plugin_api import AUTHORIZED_TYPES

_DROPPED_KEYS = {"title", "type", "anyOf", "oneOf", "allOf", "$ref", "$defs", "definitions"}


def python_name(name: str) -> str:
    """A valid Python identifier for an MCP tool name (`list-items` -> `list_items`).

    Code agents call tools as Python functions, and MCP names may hold dashes, dots or slashes.
    Two servers' tools of one name keep it, as in smolagents: an agent given both refuses them
    with smolagents' "unique name" error, and the caller renames one (`tool.name = ...`).
    """
    cleaned = re.sub(r"\W", "_", name)
    if not cleaned or cleaned[0].isdigit():
        cleaned = f"tool_{cleaned}"
    if keyword.iskeyword(cleaned):
        cleaned += "_"
    return cleaned


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `$ref` (`#/$defs/Model`) once: pydantic puts nested models there."""
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return schema
    target: Any = root
    for part in ref[2:].split("/"):
        target = target.get(part, {}) if isinstance(target, dict) else {}
    merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return merged


def json_types(schema: dict[str, Any], root: dict[str, Any]) -> tuple[list[str], bool]:
    """The smol type names a JSON-schema fragment allows, and whether it allows null."""
    schema = _resolve(schema, root)
    variants = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(variants, list):
        names: list[str] = []
        nullable = False
        for variant in variants:
            kinds, null = json_types(variant, root)
            nullable = nullable or null or kinds == ["null"]
            names += [k for k in kinds if k not in names and k != "null"]
        return names or ["any"], nullable
    kind = schema.get("type")
    if kind is None:
        if "properties" in schema:
            return ["object"], False
        if "enum" in schema or "const" in schema:
            values = schema.get("enum", [schema.get("const")])
            return [_type_of_value(values[0]) if values else "any"], None in values
        return ["any"], False
    kinds = kind if isinstance(kind, list) else [kind]
    nullable = "null" in kinds
    names = [k for k in kinds if k != "null"]
    names = [k if k in AUTHORIZED_TYPES else "any" for k in names]
    return names or ["null"], nullable


def _type_of_value(value: Any) -> str:
    for python_type, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string")):
        if isinstance(value, python_type):
            return name
    return "any"


def _compact(fragment: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """A fragment without pydantic's titles and with `$ref`s resolved, for `items` and `properties`."""
    fragment = _resolve(fragment, root)
    kinds, nullable = json_types(fragment, root)
    variants = fragment.get("anyOf") or fragment.get("oneOf")
    if isinstance(variants, list):
        # `Optional[list[str]]` arrives as anyOf [array, null]: keep the one real variant's details.
        real = [v for v in variants if isinstance(v, dict) and v.get("type") != "null"]
        if len(real) == 1:
            fragment = {**_resolve(real[0], root), **fragment}
    out: dict[str, Any] = {"type": kinds[0] if len(kinds) == 1 else kinds}
    if nullable:
        out["nullable"] = True
    for key, value in fragment.items():
        if key in _DROPPED_KEYS:
            continue
        if key == "items" and isinstance(value, dict):
            out["items"] = _compact(value, root)
        elif key == "properties" and isinstance(value, dict):
            out["properties"] = {k: _compact(v, root) for k, v in value.items() if isinstance(v, dict)}
        else:
            out[key] = value
    return out


def inputs_from_schema(input_schema: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """smol `inputs` for an MCP tool's `inputSchema`.

    An argument that is not `required` (or that may be null) becomes `nullable`: smol's validation
    then lets the model leave it out, and the server applies its own default.
    """
    schema = input_schema or {}
    required = set(schema.get("required") or [])
    inputs: dict[str, dict[str, Any]] = {}
    for arg, fragment in (schema.get("properties") or {}).items():
        if not isinstance(fragment, dict):
            fragment = {}
        entry = _compact(fragment, schema)
        description = str(entry.pop("description", "") or fragment.get("title") or f"The {arg}.")
        if "default" in entry and entry["default"] is not None:
            description += f" (default: {entry['default']!r})"
        entry.pop("default", None)
        entry["description"] = description
        if arg not in required:
            entry["nullable"] = True
        inputs[arg] = {"type": entry.pop("type"), **entry}
    return inputs


def is_wrapped_result(output_schema: dict[str, Any] | None) -> bool:
    """True for the `{"result": value}` wrapper MCP SDKs put around a non-object structured output."""
    if not output_schema:
        return False
    properties = output_schema.get("properties") or {}
    return list(properties) == ["result"] and list(output_schema.get("required") or []) == ["result"]


def output_type_from_schema(output_schema: dict[str, Any] | None, structured: bool) -> str:
    """The smol output type: the structured output's type when it is used, else `object`, the
    type smolagents gives every MCP tool (code and prompts written for it read that)."""
    if not structured or not output_schema:
        return "object"
    if is_wrapped_result(output_schema):
        kinds, _ = json_types(output_schema["properties"]["result"], output_schema)
        return kinds[0] if len(kinds) == 1 else "any"
    return "object"


def describe_output(output_schema: dict[str, Any] | None) -> str:
    """A one-line sketch of a structured output (`{"city": str, "temperature": float}`) for the prompt.

    The model must know the keys of the dict it gets back to use them in code without a wasted step.
    """
    if not output_schema or is_wrapped_result(output_schema):
        return ""
    properties = output_schema.get("properties") or {}
    if not properties:
        return ""
    hints = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "list"}
    parts = []
    for key, fragment in properties.items():
        kinds, nullable = json_types(fragment if isinstance(fragment, dict) else {}, output_schema)
        hint = " | ".join(hints.get(k, "dict" if k == "object" else "Any") for k in kinds)
        parts.append(f'"{key}": {hint}{" | None" if nullable else ""}')
    return "Returns a dict: {" + ", ".join(parts) + "}."
