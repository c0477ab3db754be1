"""`@tool`: turn a typed function with a Google-style docstring into a `Tool`."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, overload

from smol_core.tools.schema import function_schema
from smol_core.tools.tool import Tool, validate_tool_definition


class FunctionTool(Tool):
    """A `Tool` whose `forward` is a plain function: what `@tool` and plain callables become."""

    skip_forward_signature_validation = True

    def __init__(
        self,
        func: Callable[..., Any],
        name: str,
        description: str,
        inputs: dict[str, dict[str, Any]],
        output_type: str,
    ) -> None:
        super().__init__()
        self.func = func
        self.name = name
        self.description = description
        self.inputs = inputs
        self.output_type = output_type
        self.is_initialized = True
        functools.update_wrapper(self, func)
        validate_tool_definition(self)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    @property
    def source_function(self) -> Callable[..., Any]:
        return self.func

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.func)


@overload
def tool(func: Callable[..., Any]) -> FunctionTool: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    func: Callable[..., Any] | None = None, *, name: str | None = None, description: str | None = None
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a tool of a function. Every argument needs a type hint and a line in the docstring's `Args:`.

    Example:
        @tool
        def get_weather(city: str) -> str:
            \"\"\"Current weather of a city.

            Args:
                city: The city's name.
            \"\"\"
            return "sunny"
    """

    def wrap(f: Callable[..., Any]) -> FunctionTool:
        schema = function_schema(f)
        return FunctionTool(
            f,
            name=name or schema["name"],
            description=description or schema["description"],
            inputs=schema["inputs"],
            output_type=schema["output_type"],
        )

    return wrap(func) if func is not None else wrap


def as_tool(obj: Any) -> Tool:
    """Accept a `Tool` or a plain typed, documented function wherever a tool is expected."""
    if isinstance(obj, Tool):
        return obj
    if callable(obj):
        return tool(obj)
    raise TypeError(f"Expected a Tool or a typed function with a docstring, got {type(obj).__name__}.")
