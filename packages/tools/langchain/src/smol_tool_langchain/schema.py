"""JSON Schema (what pydantic and LangChain emit) to smol `inputs`, and smol `inputs` to pydantic.

A small, deliberate twin of smol-tool-mcp's mapping: the two plugins install independently, and a
plugin depending on another for thirty lines would drag the MCP SDK into LangChain users' installs.
"""

from __future__ import annotations

from typing import Any

from smol_core.plugin_api import AUTHORIZED_TYPES

_DROPPED = {"title", "type", "anyOf", "oneOf", "allOf", "$ref", "default", "description"}


def _resolve(fragment: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = fragment.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return fragment
    target: Any = root
    for part in ref[2:].split("/"):
        target = target.get(part, {}) if isinstance(target, dict) else {}
    return {**target, **{k: v for k, v in fragment.items() if k != "$ref"}}


def _kinds(fragment: dict[str, Any], root: dict[str, Any]) -> tuple[list[str], bool, dict[str, Any]]:
    """(smol type names, may be null, the fragment whose details to keep)."""
    fragment = _resolve(fragment, root)
    variants = fragment.get("anyOf") or fragment.get("oneOf")
    if isinstance(variants, list):
        names: list[str] = []
        nullable, details = False, fragment
        real = [v for v in variants if isinstance(v, dict) and v.get("type") != "null"]
        nullable = len(real) < len(variants)
        for variant in real:
            kinds, null, _ = _kinds(variant, root)
            nullable = nullable or null
            names += [k for k in kinds if k not in names]
        if len(real) == 1:
            details = {**_resolve(real[0], root), **fragment}
        return names or ["any"], nullable, details
    kind = fragment.get("type")
    if kind is None:
        return (["object"] if "properties" in fragment else ["any"]), False, fragment
    kinds = kind if isinstance(kind, list) else [kind]
    names = [k if k in AUTHORIZED_TYPES else "any" for k in kinds if k != "null"]
    return names or ["null"], "null" in kinds, fragment


def inputs_from_json_schema(
    schema: dict[str, Any], arg_docs: dict[str, str] | None = None
) -> dict[str, dict[str, Any]]:
    """smol inputs: type, description (schema, else docstring, else a stub), `nullable` when optional."""
    required = set(schema.get("required") or [])
    inputs: dict[str, dict[str, Any]] = {}
    for arg, raw in (schema.get("properties") or {}).items():
        fragment = raw if isinstance(raw, dict) else {}
        kinds, nullable, details = _kinds(fragment, schema)
        description = fragment.get("description") or (arg_docs or {}).get(arg) or f"The {arg}."
        if fragment.get("default") is not None:
            description = f"{description} (default: {fragment['default']!r})"
        entry: dict[str, Any] = {"type": kinds[0] if len(kinds) == 1 else kinds, "description": description}
        for key in ("enum", "items"):
            if key in details:
                entry[key] = details[key]
        if nullable or arg not in required:
            entry["nullable"] = True
        inputs[arg] = entry
    return inputs


_PYTHON = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}


def pydantic_model(name: str, inputs: dict[str, dict[str, Any]]) -> Any:
    """A pydantic model whose fields are a smol tool's inputs: LangChain's `args_schema`."""
    from pydantic import Field, create_model

    fields: dict[str, Any] = {}
    for arg, entry in inputs.items():
        kinds = entry["type"] if isinstance(entry["type"], list) else [entry["type"]]
        members = [_PYTHON.get(k, Any) for k in kinds if k != "null"]
        annotation: Any = Any if not members or Any in members else members[0]
        for member in members[1:]:
            annotation = annotation | member
        if entry.get("nullable"):
            fields[arg] = (annotation | None, Field(default=None, description=entry["description"]))
        else:
            fields[arg] = (annotation, Field(description=entry["description"]))
    return create_model(f"{name}_args", **fields)
