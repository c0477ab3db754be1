"""Ctrl-C stops the action itself, and a worker's death is reported with what is known, not guessed."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from smol_core.executors.base import InterpreterError
from smol_core.executors.host.process import describe_signal_death
from smol_core.executors.local import LocalPythonExecutor
from smol_core.testing.processes import cpu_seconds


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except OSError:
        return False


def test_ctrl_c_during_an_action_kills_the_worker_and_the_next_call_works():
    with LocalPythonExecutor(timeout_seconds=60) as executor:
        executor("x = 1")
        pid = executor._proc.pid
        main = threading.main_thread().ident
        assert main is not None
        idle = cpu_seconds(pid)
        stop = threading.Event()

        def interrupt_once_the_loop_runs() -> None:
            # the worker burning CPU means the host is in its wait on the action (not still sending it)
            deadline = time.monotonic() + 50
            while not stop.is_set() and time.monotonic() < deadline:
                if cpu_seconds(pid) - idle >= 0.2:
                    # a real SIGINT, as a terminal's Ctrl-C sends: it interrupts the host's wait
                    signal.pthread_kill(main, signal.SIGINT)
                    return
                time.sleep(0.02)

        interrupter = threading.Thread(target=interrupt_once_the_loop_runs, daemon=True)
        interrupter.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                executor("while True:\n    pass")
        finally:
            stop.set()
            interrupter.join()
        assert not _alive(pid)
        assert executor("2 + 3").output == 5


def test_a_worker_killed_from_outside_is_reported_as_such():
    with LocalPythonExecutor() as executor:
        executor("x = 1")
        pid = executor._proc.pid
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(InterpreterError) as caught:
            executor("x")
        message = str(caught.value)
        assert "killed by SIGKILL" in message
        assert "likely out of memory" not in message
        assert executor("1 + 1").output == 2


def test_signal_deaths_say_what_is_known():
    assert describe_signal_death(9, True, 0) == "killed by SIGKILL (stopped by smol)"
    assert "out-of-memory killer (this machine" in describe_signal_death(9, False, -1)
    assert "the kernel's out-of-memory killer, or another process" in describe_signal_death(9, False, None)
    assert "CPU-time limit" in describe_signal_death(signal.SIGXCPU, False, 0)
    assert describe_signal_death(signal.SIGSEGV, False, 0) == "killed by SIGSEGV"
