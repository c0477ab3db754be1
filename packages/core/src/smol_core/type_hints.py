"""A function's JSON schema for chat templates, and the packages a piece of code imports.

Why: smolagents' `_function_type_hints_utils` (taken from `transformers`) gives
`get_json_schema(func)`, the `{"type": "function", "function": {...}}` description that chat templates'
`tools=` and users' own tool registries take, and `get_imports(code)`, which fills a saved tool's
`requirements.txt`. smol's tools describe themselves in their own vocabulary (`smol_core.tools.schema`);
this module gives the JSON-schema form, with smolagents' rules: type hints decide types (a tuple gives
`prefixItems`, a dict's values `additionalProperties`, a union a sorted list of types or `anyOf`), a
default makes an argument nullable and optional, a Google docstring gives the descriptions, and
`(choices: [...])` at the end of an argument's description gives an `enum`.
"""

from __future__ import annotations

import inspect
import json
import re
import types
from collections.abc import Callable
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from smol_core.errors import DocstringParsingException, TypeHintParsingException

__all__ = [
    "DocstringParsingException",
    "TypeHintParsingException",
    "get_imports",
    "get_json_schema",
    "get_package_name",
]

IMPORT_TO_PACKAGE_MAPPING = {"wikipediaapi": "wikipedia-api"}
"""Import names whose distribution is named otherwise (for requirements files)."""


def get_package_name(import_name: str) -> str:
    """The distribution that provides `import_name` (`wikipediaapi` -> `wikipedia-api`)."""
    return IMPORT_TO_PACKAGE_MAPPING.get(import_name, import_name)


def get_imports(code: str) -> list[str]:
    """The top-level packages `code` imports, as distribution names; relative imports, imports in a
    `try:` block (optional dependencies) and flash-attention's conditional imports are left out."""
    code = re.sub(r"\s*try\s*:.*?except.*?:", "", code, flags=re.DOTALL)
    code = re.sub(
        r"if is_flash_attn[a-zA-Z0-9_]+available\(\):\s*(from flash_attn\s*.*\s*)+",
        "",
        code,
        flags=re.MULTILINE,
    )
    imports = re.findall(r"^\s*import\s+(\S+?)(?:\s+as\s+\S+)?\s*$", code, flags=re.MULTILINE)
    imports += re.findall(r"^\s*from\s+(\S+)\s+import", code, flags=re.MULTILINE)
    top_level = {name.split(".")[0] for name in imports if not name.startswith(".")}
    return [get_package_name(name) for name in top_level]


def get_json_schema(func: Callable[..., Any]) -> dict[str, Any]:
    """`{"type": "function", "function": {"name", "description", "parameters", "return"?}}` for `func`.

    Raises `DocstringParsingException` when `func` has no docstring or an argument has no
    description in its `Args:` section, `TypeHintParsingException` when an argument has no type hint
    or one that has no JSON form.
    """
    name = getattr(func, "__name__", repr(func))
    doc = inspect.getdoc(func)
    if not doc:
        raise DocstringParsingException(
            f"Cannot generate JSON schema for {name} because it has no docstring!"
        )
    description, argument_docs, return_doc = parse_google_docstring(doc.strip())
    parameters = _parameters_schema(func)
    returned = parameters["properties"].pop("return", None)
    if returned is not None and return_doc is not None:
        returned["description"] = return_doc
    for argument, schema in parameters["properties"].items():
        if argument not in argument_docs:
            raise DocstringParsingException(
                f"Cannot generate JSON schema for {name} because the docstring has no description for the "
                f"argument '{argument}'"
            )
        text = argument_docs[argument]
        choices = re.search(r"\(choices:\s*(.*?)\)\s*$", text, flags=re.IGNORECASE)
        if choices:
            try:
                values = json.loads(choices.group(1))
            except json.JSONDecodeError as error:
                raise DocstringParsingException(
                    f"{name}: the choices of argument '{argument}' are not a JSON list: {choices.group(1)}"
                ) from error
            schema["enum"] = [v.strip() if isinstance(v, str) else v for v in values]
            text = text[: choices.start()].strip()
        schema["description"] = text
    function: dict[str, Any] = {"name": name, "description": description, "parameters": parameters}
    if returned is not None:
        function["return"] = returned
    return {"type": "function", "function": function}


_DESCRIPTION = re.compile(r"^(.*?)(?=\n\s*(Args:|Returns:|Raises:)|\Z)", re.DOTALL)
_ARGS = re.compile(r"\n\s*Args:\n\s*(.*?)[\n\s]*(Returns:|Raises:|\Z)", re.DOTALL)
_ARG_SPLIT = re.compile(
    r"(?:^|\n)\s*(\w+)\s*(?:\([^)]*?\))?:\s*(.*?)\s*(?=\n\s*\w+\s*(?:\([^)]*?\))?:|\Z)",
    re.DOTALL,
)
_RETURNS = re.compile(r"\n\s*Returns:\n\s*(?:[^)]*?:\s*)?(.*?)[\n\s]*(Raises:|\Z)", re.DOTALL)


def parse_google_docstring(docstring: str) -> tuple[str | None, dict[str, str], str | None]:
    """(description, {argument: description}, return description) of a Google-style docstring; a
    type in parentheses after an argument's name, or before the return description, is dropped."""
    description = _DESCRIPTION.search(docstring)
    arguments = _ARGS.search(docstring)
    returns = _RETURNS.search(docstring)
    argument_docs: dict[str, str] = {}
    if arguments is not None:
        block = "\n".join(line for line in arguments.group(1).strip().split("\n") if line.strip())
        for argument, text in _ARG_SPLIT.findall(block):
            argument_docs[argument] = re.sub(r"\s*\n+\s*", " ", text.strip())
    return (
        description.group(1).strip() if description else None,
        argument_docs,
        returns.group(1).strip() if returns else None,
    )


def _parameters_schema(func: Callable[..., Any]) -> dict[str, Any]:
    try:
        hints = get_type_hints(func)
    except Exception as error:
        raise TypeHintParsingException(f"Cannot read the type hints of {func.__name__}: {error}") from error
    properties: dict[str, Any] = {name: json_schema_of(hint) for name, hint in hints.items()}
    required = []
    for name, parameter in inspect.signature(func).parameters.items():
        if parameter.annotation is inspect.Parameter.empty:
            raise TypeHintParsingException(
                f"Argument {name} is missing a type hint in function {func.__name__}"
            )
        properties.setdefault(name, {})
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
        else:
            properties[name]["nullable"] = True
    returned = properties.get("return")
    if returned is not None and "type" in returned and not isinstance(returned["type"], str):
        returned["type"] = "any"  # a union return type reads as any
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


_BASE_TYPES: dict[Any, str] = {
    int: "integer",
    float: "number",
    str: "string",
    bool: "boolean",
    list: "array",
    dict: "object",
    Any: "any",
    type(None): "null",
}


def json_schema_of(hint: Any) -> dict[str, Any]:
    """The JSON schema of one type hint, as smolagents writes it."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is None:
        return _base_schema(hint)
    if origin is Union or origin is types.UnionType:
        return _union_schema(args)
    if origin is list:
        return {"type": "array", "items": json_schema_of(args[0])} if args else {"type": "array"}
    if origin is tuple:
        if not args:
            return {"type": "array"}
        if len(args) == 1 or ... in args:
            raise TypeHintParsingException(
                f"The type hint {str(hint).replace('typing.', '')} is a variable-length or one-element tuple: "
                "use a list[...] type instead, or pass the element itself."
            )
        return {"type": "array", "prefixItems": [json_schema_of(arg) for arg in args]}
    if origin is dict:
        schema: dict[str, Any] = {"type": "object"}
        if len(args) == 2:
            schema["additionalProperties"] = json_schema_of(args[1])
        return schema
    if origin is Literal:
        literal = _union_schema(tuple({type(arg) for arg in args}))
        literal["enum"] = [arg for arg in args if arg is not None]
        return literal
    raise TypeHintParsingException(
        f"Couldn't parse this type hint, likely due to a custom class or object: {hint}"
    )


def _base_schema(hint: Any) -> dict[str, Any]:
    if hint in _BASE_TYPES:
        return {"type": _BASE_TYPES[hint]}
    name = getattr(hint, "__name__", "")
    module = getattr(hint, "__module__", "")
    if name == "Image" and module.startswith("PIL"):
        return {"type": "image"}
    if name == "Tensor" and module.startswith("torch"):
        return {"type": "audio"}
    if isinstance(hint, type):
        return {"type": "object"}
    raise TypeHintParsingException(
        f"Couldn't parse this type hint, likely due to a custom class or object: {hint}"
    )


def _union_schema(args: tuple[Any, ...]) -> dict[str, Any]:
    members = [json_schema_of(arg) for arg in args if arg is not type(None)]
    schema: dict[str, Any]
    if len(members) == 1:
        schema = members[0]
    elif all(isinstance(member.get("type"), str) for member in members):
        schema = {"type": sorted(member["type"] for member in members)}
    else:
        schema = {"anyOf": members}
    if type(None) in args:
        schema["nullable"] = True
    return schema
