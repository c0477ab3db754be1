"""Tracing hooks of the agent loop: a neutral interface that telemetry plugins implement.

Why here and why neutral: the core emits spans (an agent's run, its steps, model calls, code
execution, tool calls, final-answer checks) and events (a model call retried) at the points only it
knows, but it must not depend on OpenTelemetry, nor pay for tracing when none is on. So the loop
calls the functions of this module, which hand the work to the *active instrumentors*: objects a
plugin provides (smol-telemetry-otel's maps everything to the OpenTelemetry GenAI conventions).
With no instrumentor active, every call returns a shared do-nothing span after one tuple check.

Instrumentors become active by `add_instrumentor` (what `smol_telemetry_otel.instrument()` calls),
or at the first agent run through the plugins' `smol_instrumentors` hook, asked once per process
(`discover`): a plugin's factory returns an instrumentor when the environment asks for one
(`OTEL_EXPORTER_OTLP_ENDPOINT`, ...) and None otherwise.

Rules the loop follows, so that one span is never current in a thread it was not made current in:
a span is made current only around code that does not yield (`with span(...)`); a generator's
work is traced with `traced_iter`, which makes its span current around each step of the iteration;
work handed to another thread takes its parent explicitly (`capture()` in the caller, `parent=` in
the worker thread).

Attribute keys are neutral (the instrumentor maps them): `agent.name`, `agent.description`,
`agent.class`, `step.number`, `model.id`, `model.class`, `usage.input_tokens`,
`usage.output_tokens`, `tool.name`, `tool.call_id`, `tool.description`, `check.name`. Content keys
hold live objects and are recorded only if the user opted in: `task`, `output`, `input.messages`,
`output.message`, `code`, `code.logs`, `tool.arguments`, `tool.result`. An error's message is
content too (a tool's error quotes its arguments, a parsing error the model's output): an
instrumentor records the error's type, and its message only on opt-in; so is the `retry.reason` of
a retry event.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Coroutine, Iterator, Mapping
from contextlib import AbstractContextManager, ExitStack
from types import TracebackType
from typing import Any, Literal, Protocol, TypeVar

__all__ = [
    "NO_SPAN",
    "TRACING_ENV_PREFIXES",
    "Instrumentor",
    "Span",
    "SpanHandle",
    "SpanKind",
    "active",
    "add_instrumentor",
    "apply_child_environment",
    "capture",
    "child_environment",
    "discover",
    "event",
    "extract",
    "flush",
    "inject",
    "instrumentors",
    "model_attributes",
    "record_reply",
    "remove_instrumentor",
    "reset_discovery",
    "span",
    "traced_call",
    "traced_coroutine",
    "traced_iter",
]

logger = logging.getLogger("smol_core.instrumentation")

SpanKind = Literal["agent", "step", "planning", "model", "code", "tool", "check"]
Captured = dict[int, Any]
"""A trace context taken in one place to be a parent in another: one entry per instrumentor."""
T = TypeVar("T")


class SpanHandle(Protocol):
    """One instrumentor's span, started and not yet ended."""

    def set(self, key: str, value: Any) -> None:
        """Record an attribute (a neutral key; see the module's docstring)."""

    def event(self, name: str, attributes: Mapping[str, Any]) -> None:
        """Record a point in time within the span (a retry, a message received)."""

    def error(self, error: BaseException) -> None:
        """Mark the span failed with `error` (status ERROR, its type; its message is content)."""

    def activate(self) -> AbstractContextManager[Any]:
        """Make the span current in this thread for the `with` block: children made there nest under it."""
        ...

    def end(self) -> None:
        """End the span (once; later calls do nothing)."""


class Instrumentor(Protocol):
    """What a telemetry plugin implements. Must never raise into the agent loop.

    Optional, looked up by name: `child_environment() -> dict[str, str]`, the variables with which
    a process this one starts (a team's agent) traces as this one does (see `child_environment`)."""

    def start_span(self, kind: SpanKind, name: str, attributes: Mapping[str, Any], parent: Any) -> SpanHandle:
        """Start a span, child of `parent` (this instrumentor's captured context) or of the current span."""
        ...

    def add_event(self, name: str, attributes: Mapping[str, Any]) -> None:
        """Record an event on the current span, if any."""

    def capture(self) -> Any:
        """The current context, to be a parent elsewhere (another thread, a later time)."""

    def inject(self, context: Any) -> dict[str, str]:
        """W3C trace context (`traceparent`, `tracestate`) of `context` (or the current one if None)."""
        ...

    def extract(self, carrier: Mapping[str, str]) -> Any:
        """A parent context from W3C trace context that came from elsewhere (already validated)."""

    def flush(self, timeout_seconds: float) -> None:
        """Export what is buffered (a process about to end calls this)."""


class _NoSpan:
    """The span when nothing traces: every method does nothing, at the least cost."""

    __slots__ = ()

    def set(self, key: str, value: Any) -> None:
        pass

    def event(self, name: str, attributes: Mapping[str, Any] | None = None) -> None:
        pass

    def error(self, error: BaseException) -> None:
        pass

    def activate(self) -> AbstractContextManager[Any]:
        return self

    def end(self) -> None:
        pass

    def __enter__(self) -> _NoSpan:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


NO_SPAN = _NoSpan()


class Span:
    """The spans of every active instrumentor for one operation. As a context manager: current for
    the block, failed if an exception leaves it, ended after."""

    __slots__ = ("_failed", "_handles", "_stack")

    def __init__(self, handles: list[SpanHandle]) -> None:
        self._handles = handles
        self._stack: AbstractContextManager[Any] | None = None
        self._failed: BaseException | None = None

    def set(self, key: str, value: Any) -> None:
        for handle in self._handles:
            _safely(handle.set, key, value)

    def event(self, name: str, attributes: Mapping[str, Any] | None = None) -> None:
        for handle in self._handles:
            _safely(handle.event, name, attributes or {})

    def error(self, error: BaseException) -> None:
        if error is self._failed:  # seen on its way out of a step, then caught by the loop
            return
        self._failed = error
        for handle in self._handles:
            _safely(handle.error, error)

    def activate(self) -> AbstractContextManager[Any]:
        if len(self._handles) == 1:  # the usual case: no stack to build
            manager = _safely(self._handles[0].activate)
            return manager if manager is not None else NO_SPAN
        stack = ExitStack()
        for handle in self._handles:
            manager = _safely(handle.activate)
            if manager is not None:
                _safely(stack.enter_context, manager)
        return stack

    def end(self) -> None:
        for handle in self._handles:
            _safely(handle.end)

    def __enter__(self) -> Span:
        self._stack = self.activate()
        _safely(self._stack.__enter__)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if error is not None:
            self.error(error)
        if self._stack is not None:
            _safely(self._stack.__exit__, None, None, None)
            self._stack = None
        self.end()


_instrumentors: tuple[Instrumentor, ...] = ()
_discovered = False
_lock = threading.Lock()


def _safely(function: Callable[..., T], *args: Any) -> T | None:
    """Tracing must never break a run: an instrumentor's failure is logged and ignored."""
    try:
        return function(*args)
    except Exception as error:
        logger.warning(
            "an instrumentor failed in %s: %s: %s",
            getattr(function, "__name__", function),
            type(error).__name__,
            error,
        )
        return None


def active() -> bool:
    """Whether any instrumentor is active (the loop's fast path asks this)."""
    return bool(_instrumentors)


def instrumentors() -> tuple[Instrumentor, ...]:
    return _instrumentors


def add_instrumentor(instrumentor: Instrumentor) -> None:
    """Activate `instrumentor` for every agent of this process (again: no effect)."""
    global _instrumentors
    with _lock:
        if instrumentor not in _instrumentors:
            _instrumentors = (*_instrumentors, instrumentor)


def remove_instrumentor(instrumentor: Instrumentor) -> None:
    global _instrumentors
    with _lock:
        _instrumentors = tuple(i for i in _instrumentors if i is not instrumentor)


TRACING_ENV_PREFIXES = ("OTEL_", "SMOL_TRACE")
"""Discovery asks the plugins only when a variable of the environment starts with one of these
(`OTEL_EXPORTER_OTLP_ENDPOINT`, `SMOL_TRACE_FILE`...): listing the hook loads every installed
plugin, a cost a run that traces nothing should not pay."""


def discover() -> None:
    """Ask the plugins' `smol_instrumentors` hook once per process (at the first agent run), if the
    environment mentions tracing at all (TRACING_ENV_PREFIXES).

    A plugin's failure is logged, never raised: a run without traces beats no run."""
    global _discovered
    if _discovered:
        return
    with _lock:
        first, _discovered = not _discovered, True
    if not first:  # another thread got here first
        return
    import os

    if not any(key.startswith(TRACING_ENV_PREFIXES) for key in os.environ):
        return
    try:
        from smol_core.plugins.registry import get_registry

        specs = get_registry().specs("instrumentors")
    except Exception as error:
        logger.warning("could not list instrumentor plugins: %s", error)
        return
    for spec in specs:
        made = _safely(spec.factory)  # type: ignore[union-attr]
        if made is not None:
            add_instrumentor(made)


def reset_discovery() -> None:
    """Forget that discovery ran (tests, and processes that change their environment on purpose)."""
    global _discovered
    _discovered = False


def span(
    kind: SpanKind, name: str, attributes: Mapping[str, Any] | None = None, parent: Captured | None = None
) -> Span | _NoSpan:
    """Start a span of every active instrumentor. Use it as `with span(...) as s:` (current for the
    block, ended after) or keep it and hand it to `traced_iter`."""
    if not _instrumentors:
        return NO_SPAN
    handles: list[SpanHandle] = []
    for instrumentor in _instrumentors:
        own_parent = parent.get(id(instrumentor)) if parent else None
        handle = _safely(instrumentor.start_span, kind, name, attributes or {}, own_parent)
        if handle is not None:
            handles.append(handle)
    return Span(handles)


def event(name: str, attributes: Mapping[str, Any] | None = None) -> None:
    """Record an event on the current span of every active instrumentor."""
    for instrumentor in _instrumentors:
        _safely(instrumentor.add_event, name, attributes or {})


def capture() -> Captured | None:
    """The current trace context, to pass as `parent=` in another thread; None when nothing traces."""
    if not _instrumentors:
        return None
    return {id(i): _safely(i.capture) for i in _instrumentors}


def inject() -> dict[str, str]:
    """The current W3C trace context as data (`traceparent`, maybe `tracestate`), for a message."""
    for instrumentor in _instrumentors:
        carrier = _safely(instrumentor.inject, None)
        if carrier:
            return carrier
    return {}


def extract(carrier: Mapping[str, str] | None) -> Captured | None:
    """A parent from a message's trace context (validated by the message's decoder)."""
    if not _instrumentors or not carrier:
        return None
    return {id(i): _safely(i.extract, carrier) for i in _instrumentors}


def child_environment() -> dict[str, str]:
    """The variables a team hands each agent process so that it traces as this process does, what
    every active instrumentor says through its optional `child_environment()` (an empty value:
    unset that variable there).

    Why: tracing switched on in code (`smol_telemetry_otel.instrument()`) lives in this process
    only, and an agent process inherits the environment, not the call; without these, a team traced
    by a call alone had untraced agents."""
    merged: dict[str, str] = {}
    for instrumentor in _instrumentors:
        method = getattr(instrumentor, "child_environment", None)
        if method is None:
            continue
        made = _safely(method)
        if isinstance(made, dict):
            merged.update({str(key): str(value) for key, value in made.items()})
    return merged


def apply_child_environment(environment: Mapping[str, str]) -> None:
    """In an agent process, before its first run: take the host's tracing variables
    (`child_environment`), so that discovery switches on what the host had switched on."""
    global _discovered
    import os

    for key, value in environment.items():
        if value:
            os.environ[key] = value
        else:
            os.environ.pop(key, None)
    if environment:
        with _lock:
            _discovered = False


def flush(timeout_seconds: float = 5.0) -> None:
    """Export buffered spans now: agent processes of a team call this before they exit (their
    interpreter runs no exit handlers)."""
    for instrumentor in _instrumentors:
        _safely(instrumentor.flush, timeout_seconds)


def traced_iter(scope: Span | _NoSpan, iterator: Iterator[T], end: bool = True) -> Iterator[T]:
    """`iterator`, with `scope` current around each of its steps, and ended when it is done (unless
    `end=False`: the caller ends it, after adding what it learns later).

    A generator that did `with span(...)` across a `yield` would leave its span current in the
    consumer's code (and detach it in whatever thread resumes it); this does not."""
    if scope is NO_SPAN:
        return iterator
    return _traced_iter(scope, iterator, end)  # type: ignore[arg-type]


def _traced_iter(scope: Span, iterator: Iterator[T], end: bool) -> Iterator[T]:
    try:
        while True:
            with scope.activate():
                try:
                    item = next(iterator)
                except StopIteration:
                    return
                except BaseException as error:
                    scope.error(error)
                    raise
            yield item
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()
        if end:
            scope.end()


def traced_call(
    parent: Captured | None, name: str, call_id: Any, function: Callable[..., T], args: Any, kwargs: Any
) -> T:
    """`function(*args, **kwargs)` as a tool call made by code in the sandbox: a child of `parent`
    (the code-execution span, captured by the thread that serves the worker)."""
    if not _instrumentors:
        return function(*args, **kwargs)
    with span(
        "tool",
        name,
        {"tool.name": name, "tool.call_id": str(call_id), "tool.arguments": (args, kwargs)},
        parent=parent,
    ) as scope:
        result = function(*args, **kwargs)
        scope.set("tool.result", result)
        return result


def traced_coroutine(
    parent: Captured | None, name: str, call_id: Any, coroutine: Coroutine[Any, Any, T]
) -> Coroutine[Any, Any, T]:
    """An async tool's coroutine, traced as `traced_call` does a plain call."""
    if not _instrumentors:
        return coroutine
    return _traced_coroutine(parent, name, call_id, coroutine)


async def _traced_coroutine(
    parent: Captured | None, name: str, call_id: Any, coroutine: Coroutine[Any, Any, T]
) -> T:
    with span("tool", name, {"tool.name": name, "tool.call_id": str(call_id)}, parent=parent) as scope:
        result = await coroutine
        scope.set("tool.result", result)
        return result


def model_attributes(model: Any, messages: Any, stream: bool) -> dict[str, Any]:
    """What a model-call span starts with (`Model.generate` and `generate_stream` call this)."""
    return {
        "model.id": getattr(model, "model_id", None) or type(model).__name__,
        "model.class": type(model).__name__,
        "model.provider": getattr(model, "provider_name", None) or type(model).__name__,
        "model.stream": stream,
        "input.messages": messages,
    }


def record_reply(scope: Span | _NoSpan, message: Any) -> None:
    """A model's reply on its span: token usage, and the reply itself (content, if opted in)."""
    usage = getattr(message, "token_usage", None)
    if usage is not None:
        scope.set("usage.input_tokens", usage.input_tokens)
        scope.set("usage.output_tokens", usage.output_tokens)
    scope.set("output.message", message)
