"""The contract every code executor meets: local, Docker, E2B, WebAssembly.

An executor keeps state (variables, functions, imports) from one call to the next, runs one code
action per call, and returns a `CodeOutput`. Code that fails or is blocked raises `InterpreterError`
(a `ValueError`, as in smolagents) whose message is meant for the model to read; a time-out
raises `ExecutionTimeoutError`. Anything else that escapes an executor is a host-side failure.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from smol_core.errors import SmolError

BASE_BUILTIN_MODULES = [
    "collections",
    "datetime",
    "itertools",
    "math",
    "queue",
    "random",
    "re",
    "stat",
    "statistics",
    "time",
    "unicodedata",
]
"""Modules importable without asking, as in smolagents; `additional_authorized_imports` adds more."""

STATE_LOST = (
    "The sandbox worker was restarted: variables, functions, classes and imports defined by earlier "
    "code are lost (tools and variables passed by the agent are restored). Define again what you need."
)


@dataclass
class CodeOutput:
    """The result of one code action.

    output: the value of the last expression, or the final answer when `is_final_answer`.
    logs: what the code printed (cut to `max_print_outputs_length`).
    """

    output: Any
    logs: str
    is_final_answer: bool = False

    def __iter__(self) -> Iterator[Any]:
        """`output, logs, is_final_answer = executor(code)`, as smolagents' executor examples unpack it."""
        return iter((self.output, self.logs, self.is_final_answer))


class InterpreterError(ValueError):
    """The code failed or was blocked. The message is written for the model: what happened, what to do.

    `logs` holds what the code printed before it failed (executors set it; empty otherwise).
    """

    logs: str = ""


class ExecutionTimeoutError(InterpreterError):
    """The code ran past the executor's time limit and was stopped."""


class ProtocolViolationError(InterpreterError):
    """The sandbox worker broke the protocol (a malformed, oversized, forged or out-of-order frame).

    Treated like a worker that hung: it was killed and replaced, and the state its code built is lost;
    the message says so, and the agent goes on. The host reads a worker's frames as hostile input
    (`smol_core.executors.host.frames`), so this is the only way what a worker sends can fail a call.
    """


class ExecutorUnavailableError(SmolError, RuntimeError):
    """The executor's backend cannot be reached or started (engine down, image missing, no API key)."""


class PythonExecutor(ABC):
    """Base class of code executors. Subclasses implement `__call__`, `send_tools`, `send_variables`."""

    @abstractmethod
    def send_tools(self, tools: dict[str, Any]) -> None:
        """Make these callables (tools, managed agents, `final_answer`) callable by name from the code."""

    @abstractmethod
    def send_variables(self, variables: dict[str, Any]) -> None:
        """Place these values in the code's namespace (the agent's `additional_args`)."""

    @abstractmethod
    def __call__(self, code_action: str) -> CodeOutput:
        """Run one code action in the persistent state."""

    def reset(self) -> None:
        """Forget all state: variables, functions, imports."""

    def close(self) -> None:
        """Release processes, containers or connections. Idempotent."""

    def cleanup(self) -> None:
        """Alias of `close` kept for users of smolagents."""
        self.close()

    def __enter__(self) -> PythonExecutor:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
