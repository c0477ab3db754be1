"""The WebAssembly executor behaves like the local one: state, prints, tools, errors, limits."""

from __future__ import annotations

import asyncio
import time

import pytest

from smol_core.executors.base import ExecutionTimeoutError, InterpreterError
from smol_core.executors.local import LocalPythonExecutor


def test_state_prints_and_last_value_persist(wasm):
    wasm("import json\nx = 20\ndef double(v):\n    return 2 * v")
    out = wasm("print('hi', x)\njson.dumps({'y': double(x) + 2})")
    assert out.output == '{"y": 42}'
    assert out.logs == "hi 20\n"
    assert not out.is_final_answer


def test_final_answer_ends_the_action(wasm):
    out = wasm("print('before')\nfinal_answer({'answer': [1, 2]})\nprint('never')")
    assert out.is_final_answer and out.output == {"answer": [1, 2]} and out.logs == "before\n"


def test_runs_on_webassembly(make_wasm):
    ex = make_wasm(["sys"])
    assert ex("import sys\nsys.platform").output == "emscripten"


def test_tools_cross_to_the_host(wasm):
    calls = []

    def search(query: str, limit: int = 2) -> list[str]:
        calls.append((query, limit))
        return [f"{query}-{i}" for i in range(limit)]

    def broken() -> None:
        raise RuntimeError("backend down")

    wasm.send_tools({"search": search, "broken": broken})
    out = wasm("r = search('cats', limit=3)\nprint(len(r))\nr")
    assert out.output == ["cats-0", "cats-1", "cats-2"] and out.logs == "3\n"
    assert calls == [("cats", 3)]
    caught = wasm("try:\n    broken()\nexcept Exception as e:\n    m = str(e)\nm")
    assert "backend down" in caught.output
    with pytest.raises(InterpreterError, match="backend down"):
        wasm("broken()")


def test_async_tools_are_awaited(wasm):
    async def fetch(n: int) -> int:
        await asyncio.sleep(0.01)
        return n * 10

    wasm.send_tools({"fetch": fetch})
    out = wasm(
        "import asyncio\nasync def main():\n    return await asyncio.gather(fetch(1), fetch(2))\n"
        "r = await main()\nr"
    )
    assert out.output == [10, 20]


def test_host_final_answer_tool_keeps_its_value(wasm):
    class Report:
        pass

    report = Report()
    wasm.send_tools({"final_answer": lambda answer: report})
    try:
        out = wasm("final_answer('x')")
        assert out.is_final_answer and out.output is report
    finally:
        wasm.send_tools({"final_answer": lambda answer: answer})


def test_send_variables_cross_once(wasm):
    wasm.send_variables({"table": {"a": (1, 2)}, "blob": b"\x00\x01"})
    assert wasm("table['a'][1] + len(blob)").output == 4


@pytest.mark.parametrize(
    "code",
    [
        "1 / 0",
        "def f(:\n    pass",
        "import subprocess",
        "().__class__.__bases__[0].__subclasses__()",
        "open('/etc/passwd').read()",
        "x = undefined_name + 1",
        "class Box:\n    pass\nBox().__class__.__subclasses__",
        "import json\njson.loads('{')",
    ],
)
def test_errors_read_as_with_the_local_executor(wasm, code):
    local = LocalPythonExecutor(["json", "dataclasses", "functools", "asyncio", "typing"])
    try:
        with pytest.raises(InterpreterError) as expected:
            local(code)
    finally:
        local.close()
    with pytest.raises(InterpreterError) as got:
        wasm(code)
    # the same message, bar the action counter and Python 3.14's caret layout (Pyodide runs 3.14)
    assert last_line(got.value) == last_line(expected.value)


def last_line(error: Exception) -> str:
    return str(error).strip().splitlines()[-1]


def test_star_never_grants_the_javascript_bridge(make_wasm):
    ex = make_wasm(["*"])
    assert ex("import textwrap\ntextwrap.dedent('  a')").output == "a"
    for module in ("js", "pyodide", "pyodide.ffi", "_pyodide_core", "pyodide_js"):
        with pytest.raises(InterpreterError, match="not allowed"):
            ex(f"import {module}")


def test_host_files_are_not_reachable(make_wasm, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    ex = make_wasm(["os"])
    out = ex(f"import os\nos.path.exists({str(secret)!r}), os.path.exists('/etc/hostname'), os.getcwd()")
    assert out.output[:2] == (False, False)
    assert out.output[2] == "/scratch"


def test_timeout_kills_the_worker_and_the_next_call_starts_fresh(make_wasm):
    ex = make_wasm([], timeout_seconds=2)
    ex.send_tools({"twice": lambda v: 2 * v})
    ex.send_variables({"base": 20})
    ex("kept = 1")
    pid = ex._proc.pid
    started = time.monotonic()
    with pytest.raises(ExecutionTimeoutError, match="maximum execution time of 2 seconds"):
        ex("print('working')\nwhile True:\n    pass")
    assert time.monotonic() - started < 60  # stopped, where it would never end (a bound on a hang)
    assert ex("twice(base) + 2").output == 42  # tools and variables replayed in a fresh worker
    assert ex._proc.pid != pid
    with pytest.raises(InterpreterError, match="kept"):
        ex("kept")


def test_reset_forgets_state(make_wasm):
    ex = make_wasm([])
    ex("a = 1")
    ex.reset()
    with pytest.raises(InterpreterError, match="NameError"):
        ex("a")


def test_protections_are_reported(make_wasm):
    ex = make_wasm([])
    ex("1")
    names = {name for name, active, _ in ex.protections if active}
    assert {"language guards", "audit hook", "webassembly", "node permission model"} <= names


STDLIB = (
    "statistics fractions decimal datetime textwrap collections itertools re json csv difflib string heapq "
    "bisect functools operator enum dataclasses typing uuid hashlib base64 zlib struct copy pprint calendar "
    "html xml.etree.ElementTree unicodedata numbers array graphlib"
).split()


def test_the_standard_library_imports_as_on_cpython(make_wasm):
    """Pyodide ships the stdlib in a zip; unpacked, its modules are installation files to the audit hook."""
    ex = make_wasm(["*", "uuid"])  # "*" does not give uuid (libuuid opens files in C): named, it imports
    failed = {}
    for module in STDLIB:
        try:
            ex(f"import {module}")
        except InterpreterError as error:
            failed[module] = str(error).splitlines()[-1]
    assert failed == {}
    assert ex("import statistics\nstatistics.median([3, 1, 2])").output == 2
