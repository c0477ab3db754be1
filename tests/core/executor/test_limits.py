"""Resource limits: the parent kills the worker past the deadline, whatever the worker is doing."""

from __future__ import annotations

import os
import sys
import time

import pytest

from smol_core.executors.base import ExecutionTimeoutError, InterpreterError

C_LEVEL_HANGS = {
    "python_loop": "while True:\n    pass",
    "huge_power": "x = 2 ** 10 ** 10",
    "infinite_sum": "import itertools\nsum(itertools.count())",
    "catastrophic_regex": "import re\nre.match(r'(a+)+$', 'a' * 64 + 'b')",
    "sleep": "import time\ntime.sleep(10 ** 9)",
    "swallowing_except": "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass",
    "blocking_queue": "import queue\nqueue.Queue().get()",
    "huge_list_repeat": "x = [1] * 10 ** 8\nwhile True:\n    x.sort()",
}


@pytest.fixture
def fast(make_executor):
    return make_executor(timeout_seconds=1)


@pytest.mark.parametrize("code", C_LEVEL_HANGS.values(), ids=C_LEVEL_HANGS.keys())
def test_timeouts_stop_c_level_work(fast, code):
    fast.wait_until_ready()  # what is timed below is the action, not the worker's start
    started = time.monotonic()
    with pytest.raises(ExecutionTimeoutError, match="time limit") as info:
        fast(code)
    assert time.monotonic() - started < 60  # stopped, where it would never end (a bound on a hang)
    assert "lost" in str(info.value)
    assert fast("1 + 1").output == 2


def test_timeout_keeps_logs_printed_before(fast):
    with pytest.raises(ExecutionTimeoutError) as info:
        fast("print('started')\nwhile True:\n    pass")
    # logs sit in the worker's buffer: lost with it, and the error says the state is lost
    assert isinstance(info.value.logs, str)


def test_memory_bomb_is_a_memory_error(make_executor):
    ex = make_executor(memory_limit_mb=512)
    with pytest.raises(InterpreterError, match="MemoryError"):
        ex("x = 'a' * (10 ** 10)")
    with pytest.raises(InterpreterError, match="MemoryError"):
        ex("x = [0] * (10 ** 9)")
    assert ex("len('ok')").output == 2


def test_growing_memory_bomb_is_stopped(make_executor):
    ex = make_executor(memory_limit_mb=512, timeout_seconds=10)
    with pytest.raises(InterpreterError):
        ex("chunks = []\nwhile True:\n    chunks.append(bytearray(10 ** 7))")
    assert ex("1").output == 1


def test_recursion_bomb(executor):
    with pytest.raises(InterpreterError, match="RecursionError"):
        executor("def f(n):\n    return f(n + 1)\nf(0)")
    assert executor("2").output == 2


def test_nested_repr_recursion(executor):
    with pytest.raises(InterpreterError):
        executor("x = []\nfor _ in range(200000):\n    x = [x]\nrepr(x)")
    assert executor("3").output == 3


def test_huge_int_to_str_is_refused(executor):
    with pytest.raises(InterpreterError, match="ValueError"):
        executor("str(10 ** 100000)")


def test_print_flood_is_bounded(make_executor):
    ex = make_executor(max_print_outputs_length=1000)
    out = ex("for _ in range(200000):\n    print('x' * 100)")
    assert len(out.logs) < 2000


def test_crash_is_reported_and_next_call_works(executor):
    executor.send_tools({"noop": lambda: None})
    executor("state = 1")
    pid_before = executor._proc.pid
    os.kill(pid_before, 9)
    with pytest.raises(InterpreterError, match="died") as info:
        executor("1 + 1")
    assert "lost" in str(info.value)
    assert executor("noop() is None").output is True
    assert executor._proc.pid != pid_before


def test_a_death_seen_only_as_the_next_action_goes_out_says_the_worker_died(executor, monkeypatch):
    """A SIGKILLed worker's pipe closes a moment before its exit can be reaped: the check before
    the send may still see it running (fresh-clone CI, once). The error then still says it died, and how."""
    executor("state = 1")
    proc = executor._proc
    os.kill(proc.pid, 9)
    deadline = time.monotonic() + 10
    while proc.alive() and time.monotonic() < deadline:
        time.sleep(0.005)
    answers = iter([True])  # the check before the send: not reaped yet
    real_alive = type(proc).alive
    monkeypatch.setattr(proc, "alive", lambda: next(answers, None) or real_alive(proc))
    with pytest.raises(InterpreterError, match=r"died \(killed by SIGKILL") as info:
        executor("1 + 1")
    assert "lost" in str(info.value)
    assert executor("2 + 2").output == 4


def test_a_worker_killed_while_it_starts_is_replaced_with_its_tools_and_values(executor):
    """Nothing ran in it yet, so nothing is lost: the next action just works."""
    executor.send_tools({"noop": lambda: None})
    executor.send_variables({"base": 41})
    proc = executor._proc
    os.kill(proc.pid, 9)
    deadline = time.monotonic() + 10
    while proc.alive() and time.monotonic() < deadline:  # dead before the call: the race CI lost
        time.sleep(0.005)
    assert executor("noop() is None and base + 1").output == 42


def test_a_ready_worker_killed_before_any_code_is_replaced_without_an_error(executor):
    """Ready but unused (a ready spare is one): it held only what the executor sends again."""
    executor.send_tools({"noop": lambda: None})
    executor.send_variables({"base": 41})
    executor.wait_until_ready()
    proc = executor._proc
    os.kill(proc.pid, 9)
    proc.popen.wait(timeout=10)
    assert executor("noop() is None and base + 1").output == 42
    assert executor._proc.pid != proc.pid


def test_a_worker_that_cannot_start_makes_the_executor_unavailable(make_executor, monkeypatch):
    from smol_core.executors import local as local_executor
    from smol_core.executors.base import ExecutorUnavailableError
    from smol_core.executors.host.process import WorkerProcess

    monkeypatch.setattr(local_executor.READY_SPARES, "enabled", False)
    monkeypatch.setattr(
        local_executor.POOL, "take", lambda: WorkerProcess([sys.executable, "-c", "raise SystemExit(3)"])
    )
    with pytest.raises(ExecutorUnavailableError, match="failed to start"):
        make_executor()("1")


def test_kill_during_run_is_reported(make_executor):
    import threading

    ex = make_executor(timeout_seconds=120)
    ex("0")
    pid = ex._proc.pid
    threading.Timer(0.3, os.kill, (pid, 9)).start()
    with pytest.raises(InterpreterError, match="died"):
        ex("import time\ntime.sleep(60)")  # far longer than the timer's delay, however late it fires
    assert ex("5").output == 5


def test_no_timeout_when_none(make_executor):
    ex = make_executor(timeout_seconds=None)
    assert ex("import time\ntime.sleep(0.2)\n'done'").output == "done"


FILL_TO_THE_LAST_BYTES = """
chunks = []
for size in (10 ** 7, 10 ** 6, 10 ** 5, 10 ** 4, 10 ** 3, 100):
    try:
        while True:
            chunks.append(bytearray(size))
    except MemoryError:
        pass
raise MemoryError("full")
"""


def test_a_sandbox_filled_to_its_last_bytes_reports_it_and_keeps_its_variables(make_executor):
    """Code that fills the memory limit and keeps what it filled: the worker must still report the
    error and serve the next action. It used to die (exit code 1, nothing said) when formatting
    the error or sending the reply needed memory that was no longer there."""
    ex = make_executor(memory_limit_mb=512, timeout_seconds=60)
    ex("1")
    worker = ex._proc.pid
    with pytest.raises(InterpreterError, match="MemoryError"):
        ex(FILL_TO_THE_LAST_BYTES)
    ex("del chunks")
    assert ex("1").output == 1
    assert ex._proc.pid == worker, "the worker was restarted: its variables would be lost"
