"""What a Jinja prompt template may see: plain values, never live objects.

Prompt templates come from files (a saved agent's `prompts.yaml`, a Hub repo, `from_dict`). Jinja's
sandbox refuses underscore attributes, but it lets a template call any ordinary method of an object
it is given: handed the live tools and managed agents, a template from a file called
`tool.forward(...)`, `agent.run(...)` and read `agent.model.api_key`. So before a template renders,
every variable goes through `plain_value`: strings, numbers and containers are copied, a tool
becomes a `ToolView` and a managed agent an `AgentView` (frozen, with precomputed strings: the
attributes smolagents' templates use), and anything else an `OpaqueValue` that only prints as the
object did. A template can read those, iterate them and call the two prompt methods, which return
text computed before rendering began; nothing it calls reaches the host's objects.
"""

from __future__ import annotations

import contextlib
import functools
import re
import string
import sys
from collections.abc import Iterator, Mapping
from types import FrameType
from typing import Any, NoReturn

# How much of a nested value a template gets as structure; past these it gets the value's text.
MAX_DEPTH = 12
MAX_ITEMS = 10_000

# The inputs smolagents gives a managed agent (`MultiStepAgent._setup_managed_agents`), which
# its tool-calling template prints with `{{ agent.inputs }}`; smol's agents do not carry them.
SMOLAGENTS_MANAGED_AGENT_INPUTS: dict[str, dict[str, Any]] = {
    "task": {"type": "string", "description": "Long detailed description of the task."},
    "additional_args": {
        "type": "object",
        "description": "Dictionary of extra inputs to pass to the managed agent, e.g. images, "
        "dataframes, or any other contextual data it may need.",
        "nullable": True,
    },
}

_SCALARS = (bool, int, float, type(None))


class _FrozenView:
    """Base of the views: no attribute can be set or deleted once built, and each prints as the
    object it stands for printed (`{{ tools }}` renders as before)."""

    __slots__ = ("_repr", "_str")

    _repr: str
    _str: str

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def _freeze(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __str__(self) -> str:
        return str(self._str)

    def __repr__(self) -> str:
        return str(self._repr)


class OpaqueValue(_FrozenView):
    """A value of any other type: it prints as the object did, and has nothing else to offer."""

    __slots__ = ()

    def __init__(self, value: Any) -> None:
        self._freeze(_str=_text(str, value), _repr=_text(repr, value))


class ToolView(_FrozenView):
    """A tool as a template sees it: name, description, inputs, output type, and its two prompt
    texts, computed when the view is made."""

    __slots__ = ("_code_prompt", "_tool_calling_prompt", "description", "inputs", "name", "output_type")

    name: str
    description: str
    inputs: dict[str, Any]
    output_type: str
    _code_prompt: str
    _tool_calling_prompt: str

    def __init__(self, tool: Any) -> None:
        self._freeze(
            name=_text(str, getattr(tool, "name", "")),
            description=_text(str, getattr(tool, "description", "")),
            inputs=plain_value(getattr(tool, "inputs", {})),
            output_type=_text(str, getattr(tool, "output_type", "any")),
            _code_prompt=_prompt(tool, "to_code_prompt"),
            _tool_calling_prompt=_prompt(tool, "to_tool_calling_prompt"),
            _str=_text(str, tool),
            _repr=_text(repr, tool),
        )

    def to_code_prompt(self) -> str:
        """The tool's Python signature and docstring, as `Tool.to_code_prompt()` gave it."""
        return _given(self._code_prompt)

    def to_tool_calling_prompt(self) -> str:
        """The tool's one-line description, as `Tool.to_tool_calling_prompt()` gave it."""
        return _given(self._tool_calling_prompt)


class AgentView(_FrozenView):
    """A managed agent as a template sees it: name, description, inputs and output type (those
    smolagents gives its managed agents, unless the agent has its own)."""

    __slots__ = ("description", "inputs", "name", "output_type")

    name: str
    description: str
    inputs: dict[str, Any]
    output_type: str

    def __init__(self, agent: Any) -> None:
        self._freeze(
            name=_text(str, getattr(agent, "name", "")),
            description=_text(str, getattr(agent, "description", "")),
            inputs=plain_value(getattr(agent, "inputs", SMOLAGENTS_MANAGED_AGENT_INPUTS)),
            output_type=_text(str, getattr(agent, "output_type", "string")),
            _str=_text(str, agent),
            _repr=_text(repr, agent),
        )


def plain_value(value: Any, depth: int = 0) -> Any:
    """`value` as data a template may hold: scalars and strings as they are (exact types), dicts,
    lists and tuples copied with plain contents, tools and agents as views, anything else opaque."""
    from smol_core.tools.tool import Tool

    if type(value) in _SCALARS:
        return value
    if isinstance(value, str):
        return str.__str__(value)  # an exact str: a subclass's methods stay out of reach
    if isinstance(value, _FrozenView):
        return value
    if isinstance(value, Tool):
        return ToolView(value)
    if _is_agent(value):
        return AgentView(value)
    if _has_text(value, "name") and _has_text(value, "description"):  # duck-typed tools and agents
        return ToolView(value) if callable(getattr(value, "to_code_prompt", None)) else AgentView(value)
    if depth < MAX_DEPTH:
        if isinstance(value, Mapping) and len(value) <= MAX_ITEMS:
            return {_plain_key(key): plain_value(item, depth + 1) for key, item in value.items()}
        if isinstance(value, list | tuple) and len(value) <= MAX_ITEMS:
            items = [plain_value(item, depth + 1) for item in value]
            return items if isinstance(value, list) else tuple(items)
    return OpaqueValue(value)


def plain_variables(variables: Mapping[str, Any]) -> dict[str, Any]:
    """Every variable of a template as a plain value (see `plain_value`)."""
    return {str(name): plain_value(value) for name, value in variables.items()}


def _is_agent(value: Any) -> bool:
    """An agent (a MultiStepAgent, or one of its kind), told by what it has rather than by its class:
    this module sits below agents.multi_step (which renders templates through it) and cannot import it."""
    kind = type(value)
    return callable(getattr(kind, "run", None)) and hasattr(kind, "step") and hasattr(kind, "memory")


def _has_text(value: Any, attribute: str) -> bool:
    try:
        return isinstance(getattr(value, attribute, None), str)
    except Exception:
        return False


def _plain_key(key: Any) -> Any:
    if type(key) in _SCALARS:
        return key
    return _text(str, key)


def _text(function: Any, value: Any) -> str:
    """`str(value)` or `repr(value)` as an exact str (a subclass's `__str__` may return one)."""
    return str.__str__(str(function(value)))


class _Failed(str):
    """A prompt text the tool could not produce: an error when a template asks for it, not before
    (a template that does not use it renders as it did)."""

    __slots__ = ()


def _prompt(tool: Any, method: str) -> str:
    produce = getattr(tool, method, None)
    if not callable(produce):
        return _Failed(f"{type(tool).__name__} has no {method}()")
    try:
        return _text(str, produce())
    except Exception as error:
        return _Failed(f"{method}() of {getattr(tool, 'name', '?')!s:.100} failed: {type(error).__name__}")


def _given(text: str) -> str:
    if isinstance(text, _Failed):
        raise ValueError(str(text))
    return str(text)


# --- rendering -------------------------------------------------------------------------------------

# Bounds on what one rendering may build: the text it produces, and any one string, list or number
# an expression makes (`{{ 'x' * 10**10 }}` would otherwise take the host's memory in one step).
MAX_OUTPUT_CHARS = 4_000_000
MAX_VALUE_SIZE = 1_000_000
MAX_INT_BITS = 65_536
MAX_TEMPLATE_STEPS = 2_000_000


def render_jinja(template: str, variables: Mapping[str, Any]) -> str:
    """Render `template` with Jinja2's immutable sandbox, over plain values (`plain_variables`), with
    bounded output; any failure is one `ValueError` that says what went wrong."""
    try:
        from jinja2 import StrictUndefined
    except ImportError as error:  # pragma: no cover - jinja2 is a dependency
        raise ImportError("This prompt template uses Jinja2 syntax: pip install jinja2") from error
    try:
        environment = _bounded_sandbox()(undefined=StrictUndefined)
        compiled = environment.from_string(template)
        plain = plain_variables(variables)
        size = 0
        parts: list[str] = []
        with _step_budget(MAX_TEMPLATE_STEPS):
            for part in compiled.generate(**plain):
                size += len(part)
                if size > MAX_OUTPUT_CHARS:
                    raise OverflowError(f"the text passes {MAX_OUTPUT_CHARS} characters")
                parts.append(part)
        return "".join(parts)
    except Exception as error:
        message = " ".join(f"{type(error).__name__}: {error}".split())[:500]
        raise ValueError(f"Could not render the prompt template: {message}") from None


@contextlib.contextmanager
def _step_budget(limit: int) -> Iterator[None]:
    """At most `limit` lines of the template's compiled code run (loops that print nothing, nested
    over `range`, would otherwise keep the host busy for hours): counted by a trace function on the
    template's own frames only, for this thread, and the previous trace function put back after."""
    steps = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal steps
        if event == "line":
            steps += 1
            if steps > limit:
                raise OverflowError(f"the template runs more than {limit} steps")
        return local

    def on_call(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == "<template>" else None

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        yield
    finally:
        sys.settrace(previous)


def _bounded_sandbox() -> type[Any]:
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class BoundedSandbox(ImmutableSandboxedEnvironment):
        """The immutable sandbox, with what builds a large value in one step refused: `*` and `**`
        with a large result, `%`, `str.format` and the filters and methods that take a width or a
        count (`center`, `indent`, `batch`...) with a large one, and `lipsum` (paragraphs on demand)."""

        intercepted_binops = frozenset({"*", "**", "%"})

        def __init__(self, **options: Any) -> None:
            super().__init__(**options)
            self.globals.pop("lipsum", None)
            for name in _SIZED_FILTERS:
                if name in self.filters:
                    self.filters[name] = _bounded_filter(self.filters[name])

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            both_ints = isinstance(left, int) and isinstance(right, int)
            if operator == "%":
                if isinstance(left, str):
                    _check_printf(left, right)
                return left % right
            if operator == "**":
                if both_ints and right > 0 and abs(left).bit_length() * right > MAX_INT_BITS:
                    raise OverflowError("a power that large is refused in a prompt template")
                return left**right
            if both_ints and abs(left).bit_length() + abs(right).bit_length() > MAX_INT_BITS:
                raise OverflowError("a number that large is refused in a prompt template")
            for sequence, count in ((left, right), (right, left)):
                repeated = isinstance(sequence, str | list | tuple) and isinstance(count, int)
                if repeated and len(sequence) * max(count, 0) > MAX_VALUE_SIZE:
                    raise OverflowError("a repetition that large is refused in a prompt template")
            return left * right

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(getattr(__obj, "__self__", None), str) and getattr(__obj, "__name__", "") in (
                _SIZED_STR_METHODS
            ):
                _check_sizes(args, kwargs)
            return super().call(__context, __obj, *args, **kwargs)

        def wrap_str_format(self, value: Any) -> Any:
            text = getattr(value, "__self__", None)
            if isinstance(text, str) and getattr(value, "__name__", "") in ("format", "format_map"):
                _check_format(text)
            return super().wrap_str_format(value)

    return BoundedSandbox


# Filters and str methods whose numeric arguments size what they build (a width, a count of parts).
_SIZED_FILTERS = ("center", "indent", "wordwrap", "slice", "batch", "format")
_SIZED_STR_METHODS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs"})
MAX_WIDTH = 10_000
_PRINTF_SPEC = re.compile(r"%[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?")
_FORMAT_NUMBER = re.compile(r"\d+")


def _check_sizes(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_WIDTH:
            raise OverflowError(f"a width or count over {MAX_WIDTH} is refused in a prompt template")


def _bounded_filter(function: Any) -> Any:
    """`function` (a filter), refusing large numeric arguments; `format` also checks its text."""

    @functools.wraps(function)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        if function.__name__ == "do_format":  # `text|format(values...)`: the text's widths decide
            if args and isinstance(args[0], str):
                _check_printf(args[0], args[1:])
        else:
            _check_sizes(args, kwargs)
        return function(*args, **kwargs)

    return bounded


def _check_printf(text: str, values: Any) -> None:
    """`text % values` would not build a large string from a width or a precision."""
    for match in _PRINTF_SPEC.finditer(text):
        for number in match.groups():
            if number == "*":
                _check_sizes(tuple(values) if isinstance(values, tuple | list) else (values,), {})
            elif number is not None and int(number) > MAX_WIDTH:
                raise OverflowError(f"a width over {MAX_WIDTH} is refused in a prompt template")


def _check_format(text: str) -> None:
    """`text.format(...)` would not build a large string from a width, nor take one from an argument."""
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return  # the real call reports it
    for _literal, _field, spec, _conversion in fields:
        if not spec:
            continue
        if "{" in spec:
            raise OverflowError("a nested format spec is refused in a prompt template")
        if any(int(n) > MAX_WIDTH for n in _FORMAT_NUMBER.findall(spec)):
            raise OverflowError(f"a width over {MAX_WIDTH} is refused in a prompt template")
