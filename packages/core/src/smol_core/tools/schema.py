"""Describe Python functions as tools: JSON types from type hints, descriptions from Google docstrings.

The JSON type names are smolagents', so tools written for it keep validating:
string, boolean, integer, number, image, audio, array, object, any, null.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union, get_args, get_origin

from smol_core.errors import DocstringParsingException, TypeHintParsingException

AUTHORIZED_TYPES = [
    "string",
    "boolean",
    "integer",
    "number",
    "image",
    "audio",
    "array",
    "object",
    "any",
    "null",
]

_SIMPLE: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    tuple: "array",
    set: "array",
    dict: "object",
    Any: "any",
    type(None): "null",
    bytes: "string",
}


def json_type_of(hint: Any) -> dict[str, Any]:
    """A JSON-schema fragment for one type hint. Raises TypeHintParsingException for what has none."""
    if hint is inspect.Parameter.empty:
        raise TypeHintParsingException("missing type hint")
    if hint in _SIMPLE:
        return {"type": _SIMPLE[hint]}
    origin = get_origin(hint)
    args = get_args(hint)
    if origin is Literal:
        # as in smolagents: `None` among the values makes the input nullable rather than widening its
        # type to "any", and values of several types give a list of types
        values = [a for a in args if a is not None]
        names = list(dict.fromkeys(_SIMPLE.get(type(a), "any") for a in values)) or ["null"]
        literal: dict[str, Any] = {"type": names[0] if len(names) == 1 else names, "enum": values}
        if len(values) < len(args):
            literal["nullable"] = True
        return literal
    if origin in (Union, types.UnionType):
        members = [json_type_of(a) for a in args]
        names = [m["type"] for m in members if m["type"] != "null"]
        schema: dict[str, Any] = {"type": names[0] if len(set(names)) == 1 else names}
        if len(names) < len(members):
            schema["nullable"] = True
        return schema
    if origin in (list, tuple, set, frozenset) or origin is typing.Sequence:
        schema = {"type": "array"}
        if args and args[0] is not Ellipsis:
            schema["items"] = json_type_of(args[0])
        return schema
    if origin is dict:
        return {"type": "object"}
    if origin is typing.Annotated:
        return json_type_of(args[0])
    name = getattr(hint, "__name__", "")
    if name == "Image" or name.endswith("ImageFile"):
        return {"type": "image"}
    if name in {"AgentAudio", "Tensor", "ndarray"}:
        return {"type": "audio"} if name == "AgentAudio" else {"type": "array"}
    if isinstance(hint, type):
        return {"type": "object"}
    raise TypeHintParsingException(f"cannot describe type {hint!r} in a tool schema")


_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Returns|Return|Yields|Raises|Examples?|Notes?)\s*:\s*$"
)
_ARG = re.compile(r"^\s*(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")


def parse_google_docstring(doc: str) -> tuple[str, dict[str, str], str | None]:
    """Split a Google-style docstring into (description, {arg: description}, returns description)."""
    lines = inspect.cleandoc(doc).splitlines()
    description: list[str] = []
    args: dict[str, str] = {}
    returns: list[str] = []
    section = None
    current: str | None = None
    arg_indent: int | None = None
    for line in lines:
        heading = _SECTION.match(line)
        if heading:
            section = heading.group(1).lower()
            current, arg_indent = None, None
            continue
        if section is None:
            description.append(line)
        elif section in {"args", "arguments", "parameters"}:
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            match = _ARG.match(line)
            if match and (arg_indent is None or indent <= arg_indent):
                arg_indent = indent
                current = match.group(1).lstrip("*")
                args[current] = match.group(3).strip()
            elif current is not None:
                args[current] = (args[current] + " " + line.strip()).strip()
        elif section in {"returns", "return"} and line.strip():
            returns.append(line.strip())
    return "\n".join(description).strip(), args, (" ".join(returns) or None)


def function_schema(
    func: Callable[..., Any], name: str | None = None, skip_self: bool = False
) -> dict[str, Any]:
    """name, description, inputs and output_type of a typed, documented function (the `@tool` contract).

    `skip_self` reads a method (a `Tool` subclass's `forward`) without its first parameter; `name`
    is the tool's name for error messages when it is not the function's.
    """
    name = name or func.__name__
    doc = inspect.getdoc(func)
    if not doc:
        raise DocstringParsingException(
            f"Tool {name!r} has no docstring: write one, with an `Args:` section describing every argument."
        )
    description, arg_docs, _ = parse_google_docstring(doc)
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception as error:
        raise TypeHintParsingException(f"Tool {name!r}: cannot read type hints ({error})") from error
    parameters = list(inspect.signature(func).parameters.values())[1 if skip_self else 0 :]
    inputs: dict[str, dict[str, Any]] = {}
    for param in parameters:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.name not in hints:
            raise TypeHintParsingException(f"Tool {name!r}: argument {param.name!r} has no type hint.")
        if param.name not in arg_docs:
            raise DocstringParsingException(
                f"Tool {name!r}: the docstring has no description for the argument {param.name!r}: add it "
                "to the `Args:` section."
            )
        try:
            entry = json_type_of(hints[param.name])
        except TypeHintParsingException as error:
            raise TypeHintParsingException(f"Tool {name!r}, argument {param.name!r}: {error}") from error
        entry["description"] = arg_docs[param.name]
        if param.default is not inspect.Parameter.empty:
            entry["nullable"] = True
            if param.default is None or isinstance(param.default, str | int | float | bool):
                entry["default"] = param.default  # shown in prompts: `unit: str = 'celsius'`
        inputs[param.name] = entry
    output_hint = hints.get("return", Any)
    output = json_type_of(output_hint)
    output_type = output["type"] if isinstance(output["type"], str) else "any"
    return {"name": name, "description": description, "inputs": inputs, "output_type": output_type}
