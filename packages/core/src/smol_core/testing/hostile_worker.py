"""`HostileWorkerConformance`: a worker that writes anything to its channel must hurt no more than a hang.

Why a kit every executor runs: the host side (executors/host/driver.py) is shared, but each executor reads
its worker through its own link (a pipe, a container's attached stream, an E2B command stream, a
Node process), and a link that trusts what it reads undoes the host's checks. Subclass it in your
executor's tests and build an executor whose workers are the hostile stand-in (hostile_standin.py)
started through your executor's own transport:

    from smol_core.testing import HostileWorkerConformance, standin_argv

    class TestMyExecutorHostile(HostileWorkerConformance):
        def make_hostile_executor(self, timeout_seconds: float) -> WorkerExecutor:
            return MyExecutorRunningTheStandIn(timeout_seconds=timeout_seconds)  # e.g. standin_argv()

Override the class-scoped fixture `hostile_environment` to set up what building the executor needs
(a server, environment variables). Each case runs on one shared executor and asserts: the call raises `InterpreterError` (a
`ProtocolViolationError` for a broken rule, an `ExecutionTimeoutError` for a frame that never ends),
nothing else; the host is fine; and the next call on the same executor works normally. A host that lets
anything else out (a ValueError from `int()`, a KeyError, a RecursionError, a hang) fails the kit.
Needs pytest.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from smol_core.executors.base import (
    ExecutionTimeoutError,
    InterpreterError,
    ProtocolViolationError,
)
from smol_core.executors.host.driver import WorkerExecutor
from smol_core.executors.host.frames import ProtocolLimits
from smol_core.testing.hostile_standin import TIMEOUTS, VIOLATIONS

STANDIN_SOURCE = Path(__file__).with_name("hostile_standin.py").read_text("utf-8")
"""The stand-in's source, to run as `python3 -I -c STANDIN_SOURCE` (or as a Pyodide boot script)."""

SECRET = "smol-hostile-kit-secret-5b2e"

KIT_LIMITS = ProtocolLimits(max_frames_per_action=2000, max_log_chars_per_action=200_000)
"""The defaults, but for two per-action counts made small so that their cases run fast."""


def standin_argv(python: str = sys.executable, skip_first_frame: bool = False) -> list[str]:
    """The command line of a stand-in worker; `skip_first_frame` when the link sends a bundle first."""
    return [python, "-I", "-c", STANDIN_SOURCE, *(["--skip-frame"] if skip_first_frame else [])]


class _SecretHolder:
    """A host object a tool returns: its state must not reach the worker (no pickle of tool results)."""

    def __init__(self) -> None:
        self.api_key = SECRET

    def __repr__(self) -> str:
        return "<secret holder>"


class HostileWorkerConformance:
    """Subclass, implement `make_hostile_executor`, and pytest collects the whole kit."""

    timeout_seconds: float = 4.0
    """The executor's action time-out: the dribbling and hanging cases take this long."""

    def make_hostile_executor(self, timeout_seconds: float) -> WorkerExecutor:
        """An executor whose workers (the first and every replacement) are the hostile stand-in."""
        raise NotImplementedError("subclasses of HostileWorkerConformance implement make_hostile_executor")

    @pytest.fixture(scope="class")
    @classmethod
    def hostile_environment(cls) -> Iterator[None]:
        """Override to prepare what `make_hostile_executor` needs for the class (a server, variables)."""
        yield

    @pytest.fixture(scope="class")
    @classmethod
    def hostile(cls, hostile_environment: None) -> Iterator[WorkerExecutor]:
        """One executor for all cases: each must leave it working, which is the point."""
        executor = cls().make_hostile_executor(cls.timeout_seconds)
        executor.protocol_limits = KIT_LIMITS
        yield executor
        executor.close()

    # --- helpers ---------------------------------------------------------------------------
    @staticmethod
    def assert_works(executor: WorkerExecutor) -> None:
        """The executor answers an ordinary action, on whatever worker it now has."""
        assert executor("1 + 1").output == 2

    @staticmethod
    def assert_violation(error: BaseException) -> None:
        assert isinstance(error, ProtocolViolationError), f"{type(error).__name__}: {error}"
        assert "broke the protocol" in str(error)
        assert "variables, functions" in str(error)  # the model is told its state is lost

    # --- the kit ---------------------------------------------------------------------------
    def test_the_stand_in_works_normally(self, hostile: WorkerExecutor) -> None:
        self.assert_works(hostile)
        hostile.send_variables({"v": 5})
        hostile.send_tools({"noop": lambda: None})
        hostile.reset()
        assert hostile("[1, 'a', None]").output == [1, "a", None]

    @pytest.mark.parametrize("case", sorted(VIOLATIONS))
    def test_violation_kills_and_replaces_the_worker(self, hostile: WorkerExecutor, case: str) -> None:
        before = hostile._proc.pid if hostile._proc is not None else None
        with pytest.raises(InterpreterError) as caught:
            hostile(f"hostile:{case}")
        self.assert_violation(caught.value)
        assert hostile._proc is None or hostile._proc.pid != before  # killed, not reused
        self.assert_works(hostile)

    @pytest.mark.parametrize("case", sorted(TIMEOUTS))
    def test_a_frame_that_never_ends_is_a_time_out(self, hostile: WorkerExecutor, case: str) -> None:
        with pytest.raises(InterpreterError) as caught:
            hostile(f"hostile:{case}")
        assert isinstance(caught.value, ExecutionTimeoutError), (
            f"{type(caught.value).__name__}: {caught.value}"
        )
        self.assert_works(hostile)

    def test_a_frame_between_actions_fails_the_next_call(self, hostile: WorkerExecutor) -> None:
        """Written while no exchange is open (a forged answer to the next action): never taken as one."""
        assert hostile("hostile:late_frame").output == 1
        time.sleep(0.6)
        with pytest.raises(InterpreterError) as caught:
            hostile("2 + 2")
        self.assert_violation(caught.value)
        self.assert_works(hostile)

    def test_tool_results_cross_as_data_never_pickled(self, hostile: WorkerExecutor) -> None:
        hostile.send_tools({"secret_holder": _SecretHolder})
        seen = hostile("hostile:read_tool_result").output  # the raw tool_result frame the worker got
        assert isinstance(seen, str) and "tool_result" in seen
        assert SECRET not in seen and "pickle" not in seen
        assert "<secret holder>" in seen  # its repr crossed, as an UnserializableValue
        self.assert_works(hostile)

    def test_a_worker_that_exits_is_a_crash(self, hostile: WorkerExecutor) -> None:
        with pytest.raises(InterpreterError, match="died"):
            hostile("hostile:exit")
        self.assert_works(hostile)
