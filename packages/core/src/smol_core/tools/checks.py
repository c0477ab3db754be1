"""Checks of a tool: its definition (when it is made) and the arguments code gives it.

Why a module of its own: `Tool` (tool.py) runs these checks, plugins that wrap other tool systems
(MCP, LangChain) run `validate_tool_definition` on what they build, and smolagents' users call
`validate_tool_arguments` from their own loops. The wordings and exception types are smolagents',
so code that catches them keeps working.
"""

from __future__ import annotations

import inspect
import keyword
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from smol_core.errors import SmolError
from smol_core.tools.schema import AUTHORIZED_TYPES, json_type_of

if TYPE_CHECKING:
    from smol_core.tools.tool import Tool


def input_type_names(entry: dict[str, Any]) -> list[str]:
    """The JSON type names an input takes: its `type`, a string or a list of them."""
    kind = entry.get("type", "any")
    return list(kind) if isinstance(kind, list) else [kind]


_REQUIRED_ATTRIBUTES: dict[str, type] = {"description": str, "name": str, "inputs": dict, "output_type": str}


def validate_tool_definition(tool: Tool | type[Tool]) -> None:
    """Raise a clear error if a tool's name, inputs, output type or `forward` cannot work together.

    Run on every instance when its `__init__` returns (see `Tool.__init_subclass__`), so what
    `__init__` sets (a name, a description built from arguments) is what gets checked.
    """
    for attribute, expected in _REQUIRED_ATTRIBUTES.items():
        value = getattr(tool, attribute, None)
        if value is None:
            raise TypeError(f"You must set an attribute {attribute}.")
        if not isinstance(value, expected):
            raise TypeError(
                f"Attribute {attribute} should have type {expected.__name__}, got {type(value)} instead."
            )
    output_schema = getattr(tool, "output_schema", None)
    if output_schema is not None and not isinstance(output_schema, dict):
        raise TypeError(f"Attribute output_schema should have type dict, got {type(output_schema)} instead.")
    name = tool.name
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(
            f"Invalid Tool name {name!r}: `name` must be a valid Python identifier and not a reserved keyword."
        )
    inputs = tool.inputs
    for arg, entry in inputs.items():
        if not isinstance(entry, dict) or "type" not in entry or "description" not in entry:
            raise ValueError(f"Tool {name!r}: input {arg!r} needs both a 'type' and a 'description'.")
        # TypeError for a type that is not a string (or list of strings), ValueError for an unknown
        # name: the exception types smolagents raises, so code that catches them keeps working
        kinds = entry["type"]
        if not isinstance(kinds, str | list):
            raise TypeError(
                f"Tool {name!r}: input {arg!r} has type {kinds!r}: it must be a string or list of strings."
            )
        if isinstance(kinds, list) and not all(isinstance(kind, str) for kind in kinds):
            raise TypeError(
                f"Tool {name!r}: input {arg!r} has type {kinds!r}: when type is a list, all elements must "
                "be strings."
            )
        for kind in input_type_names(entry):
            if kind not in AUTHORIZED_TYPES:
                raise ValueError(
                    f"Tool {name!r}: input {arg!r} has type {kind!r}; it must be one of {AUTHORIZED_TYPES}."
                )
    if tool.output_type not in AUTHORIZED_TYPES:
        raise ValueError(
            f"Tool {name!r}: output_type {tool.output_type!r} must be one of {AUTHORIZED_TYPES}."
        )
    forward = getattr(tool, "forward", None)
    if forward is None or getattr(tool, "skip_forward_signature_validation", False):
        return
    key = _forward_key(forward, inputs)
    if key is not None and key in _AGREEING_FORWARDS:
        return
    _check_forward_agrees(name, inputs, forward)
    if key is not None:
        if len(_AGREEING_FORWARDS) >= _MAX_AGREEING_FORWARDS:
            _AGREEING_FORWARDS.clear()
        _AGREEING_FORWARDS.add(key)


_AGREEING_FORWARDS: set[tuple[Any, ...]] = set()
"""`forward` functions known to agree with given inputs: every instance of a tool class (each agent
of a team makes its own message tools) skips `inspect.signature` and `get_type_hints` after the first."""
_MAX_AGREEING_FORWARDS = 1024


def _forward_key(forward: Any, inputs: dict[str, Any]) -> tuple[Any, ...] | None:
    """What the forward check depends on: the function, whether it is bound (binding drops the first
    parameter), and each input's name and nullability. None where that cannot be a key."""
    function = getattr(forward, "__func__", forward)
    try:
        nullable = tuple((arg, bool(entry.get("nullable"))) for arg, entry in inputs.items())
        key = (function, function is not forward, nullable)
        hash(key)
    except Exception:
        return None
    return key


def _check_forward_agrees(name: str, inputs: dict[str, Any], forward: Any) -> None:
    """`forward`'s arguments, and which are optional, are those `inputs` declares."""
    params = list(inspect.signature(forward).parameters.values())
    if params and params[0].name == "self":
        params = params[1:]
    if any(p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params):
        return
    declared, actual = set(inputs), {p.name for p in params}
    if declared != actual:
        raise ValueError(
            f"Tool {name!r}: forward() takes {sorted(actual)} but `inputs` declares {sorted(declared)}; "
            "make them the same."
        )
    _check_nullable_agree(name, inputs, forward, params)


def _check_nullable_agree(
    name: str, inputs: dict[str, Any], forward: Callable[..., Any], params: list[inspect.Parameter]
) -> None:
    """An input the model may leave out (`"nullable": True`) must be optional in `forward` (a default,
    or None in its type), and the other way round: otherwise the model is told an argument is required
    that is not, or leaves out one that `forward` cannot do without."""
    try:
        hints = typing.get_type_hints(forward)
    except Exception:
        hints = {}
    for param in params:
        in_signature = param.default is not inspect.Parameter.empty or _hint_allows_none(
            hints.get(param.name)
        )
        in_inputs = bool(inputs[param.name].get("nullable"))
        if in_inputs and not in_signature:
            raise ValueError(
                f"Tool {name!r}: Nullable argument {param.name!r} in inputs should be optional in forward() "
                "too: give it a default value (or None in its type hint), or remove 'nullable' from inputs."
            )
        if in_signature and not in_inputs:
            raise ValueError(
                f"Tool {name!r}: Nullable argument {param.name!r} in forward() (it has a default value or "
                "accepts None) should have key 'nullable' set to True in inputs."
            )


def _hint_allows_none(hint: Any) -> bool:
    if hint is None:
        return False
    try:
        return bool(json_type_of(hint).get("nullable"))
    except SmolError:
        return False


def _json_type_of_value(value: Any) -> str:
    """The JSON-schema type name of a value's Python type ("any" where there is none)."""
    try:
        kind = json_type_of(type(value))["type"]
    except SmolError:
        return "any"
    return kind if isinstance(kind, str) else "any"


def validate_tool_arguments(tool: Tool, arguments: Any) -> None:
    """Check arguments against `tool.inputs` before calling it, as smolagents' function of this name.

    For code that drives tools itself (a custom agent loop): `arguments` is a dict of name -> value,
    or the single value of a one-input tool. An unknown or missing argument raises ValueError
    ("Argument x is required"), a value of the wrong type TypeError ("Argument x has type 'null' but
    should be 'string'"); an int is accepted for a number, anything for "any", None where nullable.
    """
    if isinstance(arguments, dict):
        for key, value in arguments.items():
            if key not in tool.inputs:
                raise ValueError(f"Argument {key} is not in the tool's input schema")
            entry = tool.inputs[key]
            allowed = input_type_names(entry)
            actual = _json_type_of_value(value)
            if (
                actual in allowed
                or "any" in allowed
                or (actual == "null" and entry.get("nullable", False))
                or (actual == "integer" and "number" in allowed)
            ):
                continue
            raise TypeError(f"Argument {key} has type '{actual}' but should be '{entry['type']}'")
        for key, entry in tool.inputs.items():
            if key not in arguments and not entry.get("nullable", False):
                raise ValueError(f"Argument {key} is required")
        return
    if not tool.inputs:
        raise ValueError(f"Tool {tool.name!r} takes no arguments, got {arguments!r:.80}")
    expected = next(iter(tool.inputs.values()))["type"]
    actual = _json_type_of_value(arguments)
    if expected != "any" and actual != expected and not (actual == "integer" and expected == "number"):
        raise TypeError(f"Argument has type '{type(arguments).__name__}' but should be '{expected}'")
