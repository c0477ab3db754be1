"""`@tool`: turn a typed function with a Google-style docstring into a `Tool`."""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
import warnings
from collections.abc import Callable
from typing import Any, overload

from smol_core.errors import TypeHintParsingException
from smol_core.tools.schema import function_schema
from smol_core.tools.tool import Tool


class _GeneratedClassSource:
    """`__source__` of the class `@tool` makes for one function: the `SimpleTool` class source that
    `to_dict` and `save` write for it, so that `validate_tool_attributes(my_tool.__class__)` checks
    what will be saved (as smolagents' per-function `SimpleTool` class carries it)."""

    def __get__(self, instance: object, owner: type) -> str:
        made = owner.__dict__.get("_made_tool")
        if made is None:
            raise AttributeError("__source__")  # FunctionTool itself: inspect reads its real source
        from smol_core.tools.serialization import function_tool_class_lines

        try:
            return "class SimpleTool(Tool):\n" + "\n".join(function_tool_class_lines(made)) + "\n"
        except OSError as error:
            raise AttributeError("__source__") from error


class FunctionTool(Tool):
    """A `Tool` whose `forward` is a plain function: what `@tool` and plain callables become."""

    skip_forward_signature_validation = True
    __source__ = _GeneratedClassSource()

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
        # an instance attribute shadows the method below: `forward` reads as in smolagents
        vars(self)["forward"] = _forward_of(func)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    @property
    def source_function(self) -> Callable[..., Any]:
        return self.func

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.func)


def _forward_of(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func` as smolagents' `@tool` exposes it on `tool.forward`: its signature starts with `self`
    (code that inspects `forward` finds the parameters it does on a Tool subclass) and
    `forward.__source__` holds the method's source, `def forward(self, ...)`, that `to_dict` and
    `save` write into the tool's class."""

    @functools.wraps(func)
    def forward(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    try:  # types, not the strings a module with `from __future__ import annotations` holds
        signature = inspect.signature(func, eval_str=True)
    except Exception:
        signature = inspect.signature(func)
    self_parameter = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    with_self = signature.replace(parameters=[self_parameter, *signature.parameters.values()])
    forward.__signature__ = with_self  # type: ignore[attr-defined]
    source = _forward_source(func, with_self)
    if source is not None:
        forward.__source__ = source  # type: ignore[attr-defined]
    return forward


def _forward_source(func: Callable[..., Any], signature: inspect.Signature) -> str | None:
    """`def forward{signature}:` and the function's body; None when its source cannot be read (a
    function made by `exec`: such a tool works, but cannot be saved). Warns, as smolagents does, when
    the function has decorators other than `@tool`: they are not written with the saved tool."""
    try:
        source = textwrap.dedent(inspect.getsource(func))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    node = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), None)
    if node is None:
        return None
    tool_decorators = [d for d in node.decorator_list if _is_tool_decorator(d)]
    if len(tool_decorators) > 1:
        raise ValueError(
            f"Multiple @tool decorators found on function '{node.name}'. Only one @tool decorator is allowed."
        )
    if len(tool_decorators) < len(node.decorator_list):
        warnings.warn(
            f"Function '{node.name}' has decorators other than @tool. Only the function's own body is "
            "saved with the tool (Tool.save, to_dict, agent.save), so those decorators will not apply "
            "to a tool loaded back.",
            UserWarning,
            stacklevel=6,
        )
    lines = source.splitlines()
    body = "\n".join(lines[node.body[0].lineno - 1 :])
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    return f"{prefix} forward{signature}:\n{body}"


def _is_tool_decorator(node: ast.expr) -> bool:
    """`@tool`, `@tool(...)`, `@smol_core.tool` or `@smolagents.tool`."""
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Name) and target.id == "tool") or (
        isinstance(target, ast.Attribute) and target.attr == "tool"
    )


@overload
def tool(func: Callable[..., Any]) -> FunctionTool: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    func: Callable[..., Any] | None = None, *, name: str | None = None, description: str | None = None
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a tool of a function. Every argument needs a type hint and a line in the docstring's `Args:`,
    and the function a return type hint.

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
        signature = inspect.signature(f)
        no_return = signature.return_annotation is inspect.Signature.empty
        if no_return and signature.parameters:
            # as in smolagents: the model is told what a tool returns, so it must be declared (a tool
            # without arguments and without a return hint is an action: it returns null)
            raise TypeHintParsingException(
                f"Tool return type not found: make sure your function {f.__name__!r} has a return type "
                "hint (`-> str`, `-> dict`, `-> Any`...)."
            )
        schema = function_schema(f)
        if no_return:
            schema["output_type"] = "null"
        # a class per function, as smolagents makes: its `__source__` is the tool's saved class
        tool_class: type[FunctionTool] = type(
            "SimpleTool", (FunctionTool,), {"__module__": getattr(f, "__module__", __name__)}
        )
        made = tool_class(
            f,
            name=name or schema["name"],
            description=description or schema["description"],
            inputs=schema["inputs"],
            output_type=schema["output_type"],
        )
        setattr(tool_class, "_made_tool", made)  # noqa: B010 - read by _GeneratedClassSource
        return made

    return wrap(func) if func is not None else wrap


def as_tool(obj: Any) -> Tool:
    """Accept a `Tool` or a plain typed, documented function wherever a tool is expected."""
    if isinstance(obj, Tool):
        return obj
    if callable(obj):
        return tool(obj)
    raise TypeError(f"Expected a Tool or a typed function with a docstring, got {type(obj).__name__}.")
