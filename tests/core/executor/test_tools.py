"""Tools are host callables: calls cross the process boundary and back; final_answer ends the action."""

from __future__ import annotations

import asyncio
import time

import pytest

from smol_core.executors.base import InterpreterError


def test_sync_tool_round_trip(executor):
    seen = []

    def search(query: str, limit: int = 3) -> list[str]:
        seen.append((query, limit))
        return [f"{query}-{i}" for i in range(limit)]

    executor.send_tools({"search": search})
    out = executor("r = search('cats', limit=2)\nprint(len(r))\nr")
    assert out.output == ["cats-0", "cats-1"] and out.logs == "2\n"
    assert seen == [("cats", 2)]


def test_tool_receives_non_json_values(executor):
    got = {}

    def keep(value):
        got["v"] = value
        return value

    executor.send_tools({"keep": keep})
    out = executor("keep((1, {2}, b'x', 1j))")
    assert got["v"] == (1, {2}, b"x", 1j) and out.output == (1, {2}, b"x", 1j)


def test_tool_returning_host_object_crosses_by_pickle(executor):
    class Box:
        def __init__(self, v):
            self.v = v

    import collections

    executor.send_tools({"make": lambda: collections.OrderedDict(a=1)})
    assert executor("dict(make())").output == {"a": 1}


def test_tool_error_is_catchable_and_reported(executor):
    def broken():
        raise RuntimeError("backend down")

    executor.send_tools({"broken": broken})
    out = executor("try:\n    broken()\nexcept Exception as e:\n    msg = str(e)\nmsg")
    assert "backend down" in out.output and "broken" in out.output
    with pytest.raises(InterpreterError, match="backend down"):
        executor("broken()")


def test_final_answer_default(executor):
    out = executor("print('before')\nfinal_answer({'x': 1})\nprint('after')")
    assert out.is_final_answer and out.output == {"x": 1} and out.logs == "before\n"


def test_final_answer_host_callable_value_is_kept(executor):
    class Answer:
        pass

    marker = Answer()
    received = []

    def final_answer(answer):
        received.append(answer)
        return marker

    executor.send_tools({"final_answer": final_answer})
    out = executor("final_answer([1, 2])")
    assert out.is_final_answer and out.output is marker and received == [[1, 2]]


def test_final_answer_inside_function_and_swallowing_except(executor):
    out = executor(
        "def f():\n    final_answer(3)\ntry:\n    f()\nexcept BaseException:\n    pass\n'not this'"
    )
    assert out.is_final_answer and out.output == 3


def test_async_tools_run_concurrently_under_gather(executor):
    started = []
    all_started = asyncio.Event()

    async def fetch(i: int) -> int:
        started.append(i)
        if len(started) == 5:
            all_started.set()
        # none returns before all five have started: calls run one by one would wait here in vain
        await asyncio.wait_for(all_started.wait(), 60)
        return i * i

    executor.send_tools({"fetch": fetch})
    out = executor("import asyncio\nawait asyncio.gather(*(fetch(i) for i in range(5)))")
    assert out.output == [0, 1, 4, 9, 16]
    assert sorted(started) == [0, 1, 2, 3, 4]


def test_async_tool_error_and_mixed_sync(executor):
    async def fail():
        await asyncio.sleep(0)
        raise ValueError("nope")

    executor.send_tools({"fail": fail, "add": lambda a, b: a + b})
    out = executor(
        "import asyncio\n"
        "async def main():\n"
        "    try:\n"
        "        await fail()\n"
        "    except Exception as e:\n"
        "        return (add(1, 2), str(e))\n"
        "await main()"
    )
    assert out.output[0] == 3 and "nope" in out.output[1]


def test_tool_proxy_is_narrow(executor):
    executor.send_tools({"t": lambda: 1})
    for attack in ("t.__globals__", "t.__closure__", "t.__code__", "t.__wrapped__"):
        with pytest.raises(InterpreterError, match="not allowed"):
            executor(attack)


def test_tools_and_variables_survive_worker_restart(make_executor):
    ex = make_executor(timeout_seconds=1)
    ex.send_tools({"inc": lambda x: x + 1})
    ex.send_variables({"base": 41})
    ex("mine = 1")
    with pytest.raises(InterpreterError):
        ex("while True:\n    pass")
    assert ex("inc(base)").output == 42
    with pytest.raises(InterpreterError, match="NameError"):
        ex("mine")


def test_time_in_host_tools_does_not_count(make_executor):
    ex = make_executor(timeout_seconds=1)
    ex.send_tools({"slow": lambda: time.sleep(1.5) or "ok"})
    assert ex("slow()").output == "ok"


def test_tool_name_must_be_identifier(executor):
    with pytest.raises(ValueError):
        executor.send_tools({"not valid": lambda: 1})
