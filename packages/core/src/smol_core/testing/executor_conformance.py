"""`ExecutorConformance`: the behaviour every smol code executor owes its agents, as a pytest class.

Why a shared suite: an agent must not behave differently because its code runs in a container, a
cloud sandbox or WebAssembly. Subclass it in your executor's tests and say how to build one:

    from smol_core.testing.executor_conformance import ExecutorConformance

    class TestMyExecutorConformance(ExecutorConformance):
        def make_executor(self, additional_authorized_imports, **options):
            return MyExecutor(additional_authorized_imports, **options)

        def kill_worker(self, executor):          # optional: enables the crash test
            ...

`make_executor` must accept `timeout_seconds` and `max_print_outputs_length`. Set `escapes_dir` to a
folder of escape files (the format of smol's tests/security/escapes: `# AUTHORIZED_IMPORTS: [...]`
header, prints "ESCAPED" on success) to run a whole corpus; a built-in sample always runs. Needs pytest.
"""

from __future__ import annotations

import ast
import asyncio
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from smol_core.executors.base import (
    CodeOutput,
    ExecutionTimeoutError,
    InterpreterError,
    PythonExecutor,
)

CANARY = "smol-conformance-canary-7c41"

ESCAPE_SAMPLE: dict[str, tuple[list[str], str]] = {
    "import_os": ([], "import os\nprint('ESCAPED', os.getcwd())"),
    "dunder_import": ([], "m = __import__('os')\nprint('ESCAPED', m.getcwd())"),
    "exec_string": ([], "exec(\"import os; print('ESCAPED', os.getcwd())\")"),
    "open_host_file": ([], "print('ESCAPED', open('/etc/hostname').read())"),
    "sys_modules": (["sys"], "import sys\nprint('ESCAPED', sys.modules['os'].getcwd())"),
    "getattr_dunder_string": ([], "c = getattr((), '__class__')\nprint('ESCAPED', c)"),
    "map_getattr_CVE-2025-5120": (
        ["warnings"],
        "import warnings\ns = list(map(getattr, [warnings], ['sys']))[0]\nprint('ESCAPED', s.modules['os'].getcwd())",
    ),
    "subclasses_popen_CVE-2025-9959": (
        [],
        "for cls in ().__class__.__base__.__subclasses__():\n"
        "    if 'Popen' in repr(cls):\n"
        "        break\n"
        "print('ESCAPED', cls(['true']).wait())",
    ),
    "builtin_importer": (
        [],
        "for cls in {}.__class__.__base__.__subclasses__():\n"
        "    if cls.__name__ == 'BuiltinImporter':\n"
        "        break\n"
        "print('ESCAPED', cls().load_module('os').getcwd())",
    ),
    "traceback_frame_globals": (
        [],
        "try:\n    1 / 0\nexcept Exception as e:\n"
        "    b = e.__traceback__.tb_frame.f_back.f_globals['__builtins__']\n    print('ESCAPED', b)",
    ),
}
"""A sample of smol's shared escape corpus (tests/security/escapes): each must be blocked."""


class _HostObject:
    """Something that cannot cross the boundary as data: a host-side final answer must stay this object."""

    def __repr__(self) -> str:
        return "<host object>"


class ExecutorConformance:
    """Behaviour shared by every executor. Subclass, implement `make_executor`, and pytest collects it."""

    escapes_dir: Path | None = None
    timeout_slack: float = 15.0
    """How long past its `timeout_seconds` an executor may take to give control back (container kills)."""

    # --- what subclasses provide -----------------------------------------------------------
    def make_executor(self, additional_authorized_imports: list[str], **options: Any) -> PythonExecutor:
        raise NotImplementedError("subclasses of ExecutorConformance implement make_executor")

    def kill_worker(self, executor: PythonExecutor) -> None:
        """Kill the executor's worker from outside (as the OOM killer would). Optional."""
        pytest.skip("this executor's conformance class does not implement kill_worker")

    # --- fixtures --------------------------------------------------------------------------
    @pytest.fixture
    def new_executor(self) -> Iterator[Callable[..., PythonExecutor]]:
        made: list[PythonExecutor] = []

        def make(authorized: list[str] | None = None, **options: Any) -> PythonExecutor:
            options.setdefault("timeout_seconds", 30)
            executor = self.make_executor(list(authorized or []), **options)
            made.append(executor)
            return executor

        yield make
        for executor in made:
            executor.close()

    @pytest.fixture
    def executor(self, new_executor: Callable[..., PythonExecutor]) -> PythonExecutor:
        return new_executor(["json", "asyncio"])

    @pytest.fixture(scope="class")
    @classmethod
    def shared(cls) -> Iterator[Callable[[list[str]], PythonExecutor]]:
        """One executor per authorized-imports set for the stateless attack tests (each must leave it usable)."""
        cache: dict[tuple[str, ...], PythonExecutor] = {}

        def get(authorized: list[str]) -> PythonExecutor:
            key = tuple(sorted(authorized))
            if key not in cache:
                cache[key] = cls().make_executor(list(key), timeout_seconds=10)
            return cache[key]

        yield get
        for executor in cache.values():
            executor.close()

    # --- state -----------------------------------------------------------------------------
    def test_state_persists_between_calls(self, executor: PythonExecutor) -> None:
        executor("x = 41\ndef inc(v):\n    return v + 1\nimport json")
        assert executor("inc(x)").output == 42
        assert executor("json.dumps({'a': x})").output == '{"a": 41}'

    def test_last_expression_is_the_output(self, executor: PythonExecutor) -> None:
        out = executor("a = [1, 2, 3]\nsum(a)")
        assert isinstance(out, CodeOutput)
        assert (out.output, out.is_final_answer) == (6, False)

    def test_values_cross_as_data(self, executor: PythonExecutor) -> None:
        value = executor("{'t': (1, 2), 's': {3}, 'b': b'x', 'f': 1.5, 'n': None, 'l': [True]}").output
        assert value == {"t": (1, 2), "s": {3}, "b": b"x", "f": 1.5, "n": None, "l": [True]}
        assert len(executor("'y' * 1_000_000").output) == 1_000_000

    def test_reset_forgets_state(self, executor: PythonExecutor) -> None:
        executor("z = 1")
        executor.reset()
        with pytest.raises(InterpreterError, match="NameError"):
            executor("z")

    # --- prints ----------------------------------------------------------------------------
    def test_prints_are_logs(self, executor: PythonExecutor) -> None:
        out = executor("print('hello', 1)\nprint('world', end='!')\n3")
        assert out.logs == "hello 1\nworld!"
        assert out.output == 3

    def test_long_logs_are_cut(self, new_executor: Callable[..., PythonExecutor]) -> None:
        executor = new_executor(max_print_outputs_length=100)
        out = executor("for i in range(1000):\n    print('line', i)")
        assert len(out.logs) < 300
        assert "truncated" in out.logs

    # --- final answer ----------------------------------------------------------------------
    def test_final_answer_ends_the_action(self, executor: PythonExecutor) -> None:
        out = executor("print('before')\nfinal_answer({'answer': 42})\nprint('after')")
        assert out.is_final_answer
        assert out.output == {"answer": 42}
        assert out.logs == "before\n"

    def test_final_answer_inside_a_function_and_try(self, executor: PythonExecutor) -> None:
        code = "def f():\n    try:\n        final_answer('done')\n    except Exception:\n        pass\nf()"
        out = executor(code)
        assert (out.output, out.is_final_answer) == ("done", True)

    def test_host_final_answer_tool_keeps_host_objects(self, executor: PythonExecutor) -> None:
        marker = _HostObject()
        executor.send_tools({"final_answer": lambda answer: marker})
        out = executor("final_answer('anything')")
        assert out.is_final_answer
        assert out.output is marker

    # --- tools -----------------------------------------------------------------------------
    def test_tools_run_on_the_host(self, executor: PythonExecutor) -> None:
        calls: list[tuple[Any, ...]] = []

        def lookup(key: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
            calls.append((key, options, os.getpid()))
            return {"key": key, "pid": os.getpid(), "items": [1, (2, 3)]}

        executor.send_tools({"lookup": lookup})
        out = executor("r = lookup('a', options={'deep': [1, 2]})\nr")
        assert calls == [("a", {"deep": [1, 2]}, os.getpid())]
        assert out.output == {"key": "a", "pid": os.getpid(), "items": [1, (2, 3)]}

    def test_tool_errors_reach_the_code(self, executor: PythonExecutor) -> None:
        def broken() -> None:
            raise RuntimeError("the service is down")

        executor.send_tools({"broken": broken})
        out = executor("try:\n    broken()\nexcept Exception as e:\n    msg = str(e)\nmsg")
        assert "the service is down" in out.output
        with pytest.raises(InterpreterError, match="the service is down"):
            executor("broken()")

    def test_async_tools_run_concurrently(self, executor: PythonExecutor) -> None:
        started = 0
        all_started = asyncio.Event()

        async def wait(v: int) -> int:
            # No call returns before all five have started: run one after another, the first would
            # wait in vain (an error the code sees), so the answer proves they ran at once, at any speed.
            nonlocal started
            started += 1
            if started == 5:
                all_started.set()
            await asyncio.wait_for(all_started.wait(), 60)
            return v * 2

        executor.send_tools({"wait": wait})
        out = executor("import asyncio\nawait asyncio.gather(*(wait(i) for i in range(5)))")
        assert out.output == [0, 2, 4, 6, 8]
        assert started == 5

    def test_variables_cross_once(self, executor: PythonExecutor) -> None:
        executor.send_variables({"data": [1, 2], "config": {"k": "v"}})
        executor("data.append(3)")
        assert executor("(len(data), config['k'])").output == (3, "v")

    # --- errors ----------------------------------------------------------------------------
    def test_runtime_error_keeps_logs_and_state(self, executor: PythonExecutor) -> None:
        executor("kept = 'yes'")
        with pytest.raises(InterpreterError) as info:
            executor("print('partial')\n1 / 0")
        assert "ZeroDivisionError" in str(info.value)
        assert "partial" in info.value.logs
        assert executor("kept").output == "yes"

    def test_syntax_error_says_where(self, executor: PythonExecutor) -> None:
        with pytest.raises(InterpreterError, match="SyntaxError") as info:
            executor("x = (1,\nprint(x")
        assert "line" in str(info.value)
        assert executor("2 + 2").output == 4

    def test_name_error_is_an_interpreter_error(self, executor: PythonExecutor) -> None:
        with pytest.raises(InterpreterError, match="undefined_thing"):
            executor("undefined_thing + 1")

    # --- limits ----------------------------------------------------------------------------
    def test_timeout_stops_the_code_not_the_host(self, new_executor: Callable[..., PythonExecutor]) -> None:
        executor = new_executor(timeout_seconds=2)
        executor.send_tools({"double": lambda v: v * 2})
        executor.send_variables({"seed": 21})
        executor("0")  # the worker is up: what is timed below is the action alone
        started = time.monotonic()
        with pytest.raises(ExecutionTimeoutError) as info:
            executor("print('started')\nwhile True:\n    pass")
        assert time.monotonic() - started < 2 + self.timeout_slack
        assert "time limit" in str(info.value)
        assert executor("double(seed)").output == 42  # tools and variables restored

    def test_time_in_host_tools_does_not_count(self, new_executor: Callable[..., PythonExecutor]) -> None:
        executor = new_executor(timeout_seconds=1)

        def slow() -> str:
            time.sleep(1.5)
            return "ok"

        executor.send_tools({"slow": slow})
        assert executor("slow()").output == "ok"

    def test_dead_worker_is_an_error_then_a_fresh_start(self, executor: PythonExecutor) -> None:
        executor.send_tools({"one": lambda: 1})
        executor("lost = 1")
        self.kill_worker(executor)
        with pytest.raises(InterpreterError, match=r"died|not reachable|restarted"):
            executor("lost")
        assert executor("one() + 1").output == 2

    def test_close_is_idempotent(self, new_executor: Callable[..., PythonExecutor]) -> None:
        executor = new_executor()
        assert executor("1").output == 1
        executor.close()
        executor.close()
        with pytest.raises(InterpreterError):
            executor("1")

    # --- imports and security --------------------------------------------------------------
    @pytest.mark.parametrize("module", ["os", "subprocess", "socket", "ctypes", "pickle"])
    def test_dangerous_imports_are_blocked(
        self, shared: Callable[[list[str]], PythonExecutor], module: str
    ) -> None:
        with pytest.raises(InterpreterError, match=module):
            shared([])(f"import {module}")

    def test_authorized_imports_work(self, new_executor: Callable[..., PythonExecutor]) -> None:
        executor = new_executor(["json", "fractions"])
        assert executor("import json, fractions\nstr(fractions.Fraction(1, 3))").output == "1/3"
        with pytest.raises(InterpreterError, match="csv"):
            executor("import csv")

    def test_host_secrets_do_not_cross(self, new_executor: Callable[..., PythonExecutor]) -> None:
        os.environ["SMOL_CONFORMANCE_SECRET"] = CANARY
        try:
            executor = new_executor(["os"])
            try:
                out = executor("import os\nstr(os.environ) if hasattr(os, 'environ') else ''")
                seen = f"{out.output!r}{out.logs}"
            except InterpreterError as error:
                seen = f"{error}{error.logs}"
            assert CANARY not in seen
        finally:
            os.environ.pop("SMOL_CONFORMANCE_SECRET", None)

    @pytest.mark.parametrize("name", sorted(ESCAPE_SAMPLE))
    def test_escape_sample_is_blocked(self, shared: Callable[[list[str]], PythonExecutor], name: str) -> None:
        authorized, code = ESCAPE_SAMPLE[name]
        self._assert_blocked(shared(authorized), code)

    def test_escape_corpus_is_blocked(self, shared: Callable[[list[str]], PythonExecutor]) -> None:
        if self.escapes_dir is None:
            pytest.skip("no escapes_dir set")
        paths = sorted(self.escapes_dir.glob("*.py"))
        assert paths, f"no escape files in {self.escapes_dir}"
        failures = []
        for path in paths:
            text = path.read_text()
            authorized = ast.literal_eval(_header(text, "AUTHORIZED_IMPORTS"))
            try:
                self._assert_blocked(shared(authorized), text)
            except AssertionError as error:
                failures.append(f"{path.name}: {error}")
        assert not failures, "\n".join(failures)

    @staticmethod
    def _assert_blocked(executor: PythonExecutor, code: str) -> None:
        try:
            out = executor(code)
        except InterpreterError as error:
            assert "ESCAPED" not in (error.logs or ""), f"escaped before being stopped: {error.logs!r}"
        else:
            raise AssertionError(f"not blocked: output={out.output!r} logs={out.logs!r}")
        assert executor("6 * 7").output == 42, "the executor is unusable after the attack"


def _header(text: str, key: str) -> str:
    for line in text.splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"escape file without a `# {key}:` header")
