"""`Tool`: a named, described, typed function an agent can call.

Definitions are checked when a tool is made (a bad name, an unknown input type or a `forward`
whose signature does not match `inputs` fails when the agent is built, not halfway through a run)
and calls are checked when made (a missing or wrongly typed argument names the argument and the
type expected), so the model gets an error it can act on.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import textwrap
import typing
from collections.abc import Callable
from typing import Any, ClassVar

from smol_core.agent_types import handle_agent_input_types, handle_agent_output_types
from smol_core.errors import AgentToolCallError, SmolError
from smol_core.tools.checks import (
    input_type_names,
    validate_tool_arguments as validate_tool_arguments,  # smolagents.tools' name, re-exported
    validate_tool_definition as validate_tool_definition,  # plugin_api's path to it
)
from smol_core.tools.schema import function_schema, json_type_of
from smol_core.tools.serialization import LOADED_TOOL_MODULE, run_tool_code, save_tool, tool_to_dict

_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "array": (list, tuple),
    "object": (dict,),
}


def _complete_from_forward(cls: type[Tool]) -> None:
    """Fill `inputs` and `output_type` that a subclass leaves out, from its `forward` (as `@tool` does).

    Guides for smolagents show subclasses that set only `name`, `description` and `forward`:
    rather than an AttributeError later, the missing parts are read from `forward`'s signature,
    type hints and docstring, or a clear error says what to declare.
    """
    forward = cls.__dict__.get("forward")
    has_inputs, has_output = hasattr(cls, "inputs"), hasattr(cls, "output_type")
    if forward is None or has_inputs or not isinstance(getattr(cls, "name", None), str):
        return  # a class that declares its inputs declares its output_type too (checked when made)
    params = list(inspect.signature(forward).parameters.values())[1:]
    if not params:
        cls.inputs = {}
        if not has_output:
            cls.output_type = _output_type_of(forward)
        return
    try:
        schema = function_schema(forward, name=cls.name, skip_self=True)
    except SmolError as error:
        raise type(error)(
            f"{error} (Tool {cls.name!r} declares no `inputs`: declare them as a class attribute, or "
            "give forward() type hints and an `Args:` docstring to read them from.)"
        ) from None
    cls.inputs = schema["inputs"]
    if not has_output:
        cls.output_type = schema["output_type"]


def _output_type_of(forward: Callable[..., Any]) -> str:
    hint = inspect.signature(forward).return_annotation
    if hint is inspect.Signature.empty:
        return "any"
    try:
        hints = typing.get_type_hints(forward)
        kind = json_type_of(hints.get("return", Any))["type"]
    except Exception:
        return "any"
    return kind if isinstance(kind, str) else "any"


def _validated_after(init: Callable[..., None]) -> Callable[..., None]:
    """`init`, then the tool's definition checked once the outermost `__init__` has returned.

    Why after `__init__` rather than when the class is made: `__init__` may set or change the name,
    description or inputs (from its arguments), and a class with a placeholder name must still be
    definable (`validate_tool_attributes` reports on such classes). An `__init__` reached through
    `super().__init__()` does not check: its subclass has not finished setting attributes yet.
    """

    @functools.wraps(init)
    def checked_init(self: Tool, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        if type(self).__init__ is checked_init:
            self.validate_arguments()

    return checked_init


class Tool:
    """Base class of tools. Subclass it and set `name`, `description`, `inputs`, `output_type`, `forward`.

    The definition is checked when a tool is made (after its `__init__`): a bad name, an unknown
    input type, a `forward` whose arguments or optional arguments differ from `inputs` raise then.

    Example:
        class Weather(Tool):
            name = "weather"
            description = "Current weather of a city."
            inputs = {"city": {"type": "string", "description": "The city's name."}}
            output_type = "string"

            def forward(self, city: str) -> str:
                return "sunny"

    A call that runs past the agent's `tool_timeout_seconds` (5 minutes by default) is abandoned with
    an error the model sees; set `timeout_seconds` on the tool for a limit of its own, or
    `timeout_seconds = None` for none (the tool then runs on the agent's thread: see `smol_core.tools.time_limit`).
    """

    name: str
    description: str
    inputs: dict[str, dict[str, Any]]
    output_type: str
    output_schema: ClassVar[dict[str, Any] | None] = None
    skip_forward_signature_validation: ClassVar[bool] = False
    idempotent: bool = False
    """Safe to call again with the same arguments (a search, a read): in a durable run, a call of it
    that a crash interrupted is made again on resume; any other is reported to the model instead,
    as it may already have taken effect (`smol_core.durable.tool_ledger`)."""
    requires_approval: bool = False
    """A person approves each call first: a durable run pauses before the call (its checkpoint saved,
    its process free to exit) until `smol runs approve|deny` (`smol_core.durable.approvals`), then resumes."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _complete_from_forward(cls)
        if "__init__" in cls.__dict__:
            cls.__init__ = _validated_after(cls.__dict__["__init__"])  # type: ignore[method-assign]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.is_initialized = False
        if type(self) is not Tool and type(self).__init__ is Tool.__init__:
            self.validate_arguments()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"Tool {self.name!r} must implement forward().")

    def setup(self) -> None:
        """Expensive one-time work (loading a model, opening a client), done on first call."""
        self.is_initialized = True

    def validate_arguments(self) -> None:
        validate_tool_definition(self)

    def __call__(self, *args: Any, sanitize_inputs_outputs: bool = False, **kwargs: Any) -> Any:
        if not getattr(self, "is_initialized", False):
            self.setup()
        if len(args) == 1 and not kwargs and _is_arguments_dict(args[0], self.inputs):
            kwargs, args = dict(args[0]), ()
        if sanitize_inputs_outputs:
            # as in smolagents: agent types in become plain values, and the output comes back as the
            # agent type of `output_type` (AgentText, AgentImage, ...); arguments are also checked
            raw_args, kwargs = handle_agent_input_types(*args, **kwargs)
            kwargs = self.check_arguments(tuple(raw_args), kwargs)
            args = ()
        outputs = self.forward(*args, **kwargs)
        if sanitize_inputs_outputs and not inspect.isawaitable(outputs):
            outputs = handle_agent_output_types(outputs, self.output_type)
        return outputs

    def check_arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """Bind positional arguments to names and check each against `inputs`; errors name the argument."""
        names = list(self.inputs)
        if len(args) > len(names):
            raise AgentToolCallError(
                f"Tool {self.name!r} takes {len(names)} argument(s) ({', '.join(names)}), got {len(args)}."
            )
        bound = dict(zip(names, args))
        for key, value in kwargs.items():
            if key in bound:
                raise AgentToolCallError(f"Tool {self.name!r} got argument {key!r} twice.")
            bound[key] = value
        unknown = [k for k in bound if k not in self.inputs]
        if unknown:
            raise AgentToolCallError(
                f"Tool {self.name!r} has no argument {unknown[0]!r}; its arguments are: {', '.join(names) or 'none'}."
            )
        for arg, entry in self.inputs.items():
            if arg not in bound:
                if not entry.get("nullable"):
                    raise AgentToolCallError(
                        f"Tool {self.name!r} is missing argument {arg!r} ({entry.get('type')}: "
                        f"{entry.get('description', '')})."
                    )
                continue
            expected = [k for k in input_type_names(entry) if k in _PYTHON_TYPES]
            value = bound[arg]
            if value is None and (entry.get("nullable") or "null" in input_type_names(entry)):
                continue
            if expected and len(expected) == len(input_type_names(entry)):
                allowed = tuple(t for k in expected for t in _PYTHON_TYPES[k])
                wrong_bool = isinstance(value, bool) and bool not in allowed
                if not isinstance(value, allowed) or wrong_bool:
                    raise AgentToolCallError(
                        f"Tool {self.name!r}: argument {arg!r} should be {' or '.join(expected)}, "
                        f"got {type(value).__name__} {value!r:.80}."
                    )
        return bound

    # --- description for prompts and APIs -------------------------------------------------------

    def to_tool_calling_schema(self) -> dict[str, Any]:
        """The OpenAI-style function schema used for native tool calling.

        An optional argument keeps `"nullable": True` (as smolagents sends it) besides being left out
        of `required`; constrained decoders translate it (`models.schema_tool_calls.sanitize_schema`)."""
        properties: dict[str, Any] = {}
        required: list[str] = []
        for arg, entry in self.inputs.items():
            prop = dict(entry)
            kinds = input_type_names(entry)
            kinds = ["string" if k in ("image", "audio") else k for k in kinds if k != "any"]
            if not kinds:
                prop.pop("type", None)
            else:
                prop["type"] = kinds[0] if len(kinds) == 1 else kinds
            properties[arg] = prop
            if not entry.get("nullable"):
                required.append(arg)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {"type": "object", "properties": properties, "required": required},
            },
        }

    def to_code_prompt(self) -> str:
        """The tool as a Python function stub, in smolagents' words: what a code-writing model reads
        (prompts written for smolagents quote it; a small model reads `smol_core.prompting.tool_signatures`')."""
        signature = ", ".join(f"{name}: {entry['type']}" for name, entry in self.inputs.items())
        has_schema = getattr(self, "output_schema", None) is not None
        doc = self.description
        if has_schema:  # smaller models read fields straight off a structured result when told so
            doc += (
                "\n\nImportant: This tool returns structured output! Use the JSON schema below to directly "
                "access fields like result['field_name']. NO print() statements needed to inspect the output!"
            )
        if self.inputs:
            arguments = "\n".join(f"{name}: {entry['description']}" for name, entry in self.inputs.items())
            doc += f"\n\nArgs:\n{textwrap.indent(arguments, '    ')}"
        if has_schema:
            schema = textwrap.indent(json.dumps(self.output_schema, indent=4), "        ")
            doc += (
                "\n\nReturns:\n    dict (structured output): This tool ALWAYS returns a dictionary that "
                f"strictly adheres to the following JSON schema:\n{schema}"
            )
        returns = "dict" if has_schema else self.output_type
        docstring = f'"""{doc}\n"""'
        return f"def {self.name}({signature}) -> {returns}:\n{textwrap.indent(docstring, '    ')}"

    def to_tool_calling_prompt(self) -> str:
        """The tool in smolagents' words, for tool-calling prompts."""
        return (
            f"{self.name}: {self.description}\n    Takes inputs: {self.inputs}\n"
            f"    Returns an output of type: {self.output_type}"
        )

    # --- serialization -----------------------------------------------------------------------------

    @property
    def source_function(self) -> Callable[..., Any] | None:
        """The function whose source defines this tool (a `@tool`), or None: the class defines it."""
        return None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description with the tool's source code, for `save` and agent export."""
        return tool_to_dict(self)

    def save(
        self, output_dir: str | os.PathLike[str], tool_file_name: str = "tool", make_gradio_app: bool = True
    ) -> None:
        """Write the tool's source as `{tool_file_name}.py` in `output_dir`; with `make_gradio_app`,
        also an `app.py` serving it with Gradio and a `requirements.txt` (what a Space needs)."""
        save_tool(self, output_dir, tool_file_name=tool_file_name, make_gradio_app=make_gradio_app)

    @classmethod
    def from_code(cls, tool_code: str, **kwargs: Any) -> Tool:
        return tool_from_code(tool_code, **kwargs)

    @classmethod
    def from_dict(cls, tool_dict: dict[str, Any], **kwargs: Any) -> Tool:
        if "code" not in tool_dict:
            raise ValueError("Tool dictionary must contain 'code' key with the tool source code.")
        made = tool_from_code(tool_dict["code"], **kwargs)
        if "output_schema" in tool_dict:
            made.output_schema = tool_dict["output_schema"]  # type: ignore[misc]
        return made

    # --- other sources: delegated to the plugin that provides them ----------------------------------

    @classmethod
    def from_hub(
        cls, repo_id: str, token: str | None = None, trust_remote_code: bool = False, **kwargs: Any
    ) -> Tool:
        from smol_core.plugins.lazy import plugin_attribute

        loader: Callable[..., Tool] = plugin_attribute("smol_tool_hub", "tool_from_hub", "smol-tool-hub")
        return loader(repo_id, token=token, trust_remote_code=trust_remote_code, **kwargs)

    @classmethod
    def from_space(
        cls, space_id: str, name: str, description: str, api_name: str | None = None, token: str | None = None
    ) -> Tool:
        from smol_core.plugins.lazy import plugin_attribute

        loader: Callable[..., Tool] = plugin_attribute("smol_tool_hub", "tool_from_space", "smol-tool-hub")
        return loader(space_id, name=name, description=description, api_name=api_name, token=token)

    @classmethod
    def from_langchain(cls, langchain_tool: Any) -> Tool:
        from smol_core.plugins.lazy import plugin_attribute

        loader: Callable[..., Tool] = plugin_attribute(
            "smol_tool_langchain", "tool_from_langchain", "smol-tool-langchain"
        )
        return loader(langchain_tool)

    def push_to_hub(self, repo_id: str, **kwargs: Any) -> str:
        from smol_core.plugins.lazy import plugin_attribute

        pusher: Callable[..., str] = plugin_attribute("smol_tool_hub", "push_tool_to_hub", "smol-tool-hub")
        return pusher(self, repo_id, **kwargs)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {getattr(self, 'name', '?')!r}>"


def _is_arguments_dict(value: Any, inputs: dict[str, Any]) -> bool:
    """A lone dict argument is the call's arguments by name (`tool({"url": ...})`, as models and
    smolagents' users call tools) when its keys are all input names; otherwise it is one value."""
    if not isinstance(value, dict):
        return False
    if not value:
        return len(inputs) != 1  # `{}`: no arguments, unless the tool takes exactly one (the dict)
    return all(isinstance(key, str) and key in inputs for key in value)


def tool_from_code(tool_code: str, **init_kwargs: Any) -> Tool:
    """Run tool source and return the tool it defines (a `Tool` subclass, instantiated, or a `@tool`).

    This runs the code on this machine: callers load only code the user chose to trust."""
    found: list[Tool] = []
    for value in run_tool_code(tool_code).values():
        if isinstance(value, Tool):
            found.append(value)
        elif isinstance(value, type) and issubclass(value, Tool) and value.__module__ == LOADED_TOOL_MODULE:
            found.append(value(**init_kwargs))
    if not found:
        raise ValueError(
            "The code defines no tool: it needs a Tool subclass or a function decorated with @tool."
        )
    return found[-1]
