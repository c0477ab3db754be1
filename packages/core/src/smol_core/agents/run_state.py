"""A run's state, apart from the agent: what one `run()` changes as it goes, and an agent's runs.

Why: an agent is configuration (model, tools, prompts) that users build once and call many times,
and a managed agent may be called by two of its manager's tool calls at once (ToolCallingAgent runs
them in threads): two such calls must not write into one memory. So each `run()` has a `RunState`,
and the agent's `task`, `memory`, `step_number`, `state` are views (`RunAttribute`) of the run
executing in the current context, or of the last run started when none is (so smolagents'
`agent.memory` after a run, and `reset=False`, work as they do there). `AgentRuns` is what the agent
keeps of its runs: the last one started, and how many are going.

How the current run is found: a context variable maps each agent to the run executing in this
context. The run's generator sets it each time it is resumed and restores it when it yields
(`bound_to`), so a run consumed later, or from another thread (a streaming UI), still sees its
own state, and a managed agent's run nested in its manager's sees its own.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, TypeVar, overload

from smol_core.effects import RunDoor, RunSpending
from smol_core.memory import AgentMemory

T = TypeVar("T")

_CURRENT: contextvars.ContextVar[Mapping[int, RunState]] = contextvars.ContextVar(
    "smol_current_runs", default=MappingProxyType({})
)


def _no_span() -> Any:
    from smol_core import instrumentation

    return instrumentation.NO_SPAN


@dataclass
class RunState:
    """What one run owns: its task, memory, step counter, variables and interruption flag."""

    memory: AgentMemory
    task: str | None = None
    step_number: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    interrupt_switch: bool = False
    run_span: Any = field(default_factory=_no_span)
    ended: bool = False
    executor: Any = None
    """A code executor of this run's own: only when another run of the same agent was still using
    the agent's (two code runs in one worker would share variables)."""
    door: RunDoor = field(default_factory=RunDoor)
    """What the run's effects go through (`effects.py`): empty until the run opens it."""
    spending: RunSpending = field(default_factory=RunSpending)
    """What the run's own model calls cost, counted at its door."""


class AgentRuns:
    """An agent's runs: the last one started (what the agent's run attributes show between runs,
    and what `reset=False` continues) and how many are going (a run that starts beside another
    gets a memory of its own)."""

    def __init__(self) -> None:
        self.last = RunState(memory=AgentMemory(""))  # until the agent can build its system prompt
        self.active = 0
        self._lock = threading.Lock()

    def entering(self) -> bool:
        """Counts a run in: whether another run of the agent was going (checked and counted at once,
        so that of two runs starting together one sees the other)."""
        with self._lock:
            self.active += 1
            return self.active > 1

    def ending(self, run: RunState) -> bool:
        """`run` is over: True the first time only (its end hook runs then)."""
        with self._lock:
            if run.ended:
                return False
            run.ended = True
            self.active -= 1
            return True


def current_run(agent: Any) -> RunState | None:
    """The run of `agent` executing in this context, if any."""
    return _CURRENT.get().get(id(agent))


class _Binding:
    """Makes `run` the current run of `agent` in this context until `close()`."""

    def __init__(self, agent: Any, run: RunState) -> None:
        runs = dict(_CURRENT.get())
        runs[id(agent)] = run
        self.token = _CURRENT.set(MappingProxyType(runs))

    def close(self) -> None:
        _CURRENT.reset(self.token)


def bound_to(agent: Any, run: RunState, events: Generator[T]) -> Generator[T]:
    """`events`, with `run` the current run of `agent` while each step of it executes."""
    while True:
        binding = _Binding(agent, run)
        try:
            event = next(events)
        except StopIteration:
            return
        finally:
            binding.close()
        yield event


class RunAttribute(Generic[T]):
    """An agent attribute that is really the current run's (see the module docstring)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, agent: None, owner: type | None = None) -> RunAttribute[T]: ...

    @overload
    def __get__(self, agent: object, owner: type | None = None) -> T: ...

    def __get__(self, agent: object | None, owner: type | None = None) -> RunAttribute[T] | T:
        if agent is None:
            return self
        value: T = getattr(agent._run(), self.name)  # type: ignore[attr-defined]
        return value

    def __set__(self, agent: object, value: T) -> None:
        setattr(agent._run(), self.name, value)  # type: ignore[attr-defined]
