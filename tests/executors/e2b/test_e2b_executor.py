"""E2BExecutor through the real e2b-code-interpreter SDK, against a stand-in E2B that runs commands here."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from smol_core.executors.base import ExecutionTimeoutError, ExecutorUnavailableError, InterpreterError
from smol_core.executors.local import LocalPythonExecutor


def test_state_prints_tools_and_final_answer(e2b, standin):
    calls = []

    def search(query: str, limit: int = 2) -> list[str]:
        calls.append((query, limit))
        return [f"{query}-{i}" for i in range(limit)]

    e2b.send_tools({"search": search})
    e2b("import json\nx = 20")
    out = e2b("r = search('cats', limit=3)\nprint(len(r), x)\njson.dumps(r)")
    assert out.output == '["cats-0", "cats-1", "cats-2"]' and out.logs == "3 20\n"
    assert calls == [("cats", 3)]
    final = e2b("final_answer({'x': x, 'first': r[0]})")
    assert final.is_final_answer and final.output == {"x": 20, "first": "cats-0"}
    # one sandbox, made with the SDK's default template and nothing we added; commands ran through envd
    (sandbox,) = standin.sandboxes.values()
    assert sandbox["request"]["templateID"] == "code-interpreter-v1"
    assert not sandbox["request"].get("metadata")
    assert standin.stdin_requests >= 4


def test_async_tools_and_tool_errors(e2b):
    async def fetch(n: int) -> int:
        await asyncio.sleep(0.05)
        return n * 10

    def broken() -> None:
        raise RuntimeError("backend down")

    e2b.send_tools({"fetch": fetch, "broken": broken})
    # (that they run at once is the conformance kit's test, by behaviour, not by the clock)
    assert e2b("import asyncio\nawait asyncio.gather(fetch(1), fetch(2), fetch(3))").output == [10, 20, 30]
    with pytest.raises(InterpreterError, match="backend down"):
        e2b("broken()")


def test_variables_cross_once_and_values_round_trip(e2b):
    e2b.send_variables({"table": {"a": (1, 2)}, "blob": b"\x00\x01", "when": 1j})
    assert e2b("table['a'][1] + len(blob)").output == 4
    assert e2b("(table, blob, when)").output == ({"a": (1, 2)}, b"\x00\x01", 1j)


@pytest.mark.parametrize(
    "code",
    [
        "1 / 0",
        "def f(:\n    pass",
        "import subprocess",
        "open('/etc/passwd').read()",
        "().__class__.__bases__",
    ],
)
def test_errors_read_exactly_as_with_the_local_executor(e2b, code):
    local = LocalPythonExecutor(["json", "asyncio", "dataclasses"])
    try:
        with pytest.raises(InterpreterError) as expected:
            local(code)
    finally:
        local.close()
    with pytest.raises(InterpreterError) as got:
        e2b(code)
    assert str(got.value).replace("#2>", "#1>") == str(expected.value)


def test_timeout_kills_the_worker_command_and_keeps_the_sandbox(make_e2b, standin):
    ex = make_e2b(["os"], timeout_seconds=2)
    ex.send_tools({"twice": lambda v: 2 * v})
    ex.send_variables({"base": 20})
    pid = ex("import os\nos.getpid()").output
    started = time.monotonic()
    with pytest.raises(ExecutionTimeoutError, match="maximum execution time of 2 seconds"):
        ex("while True:\n    pass")
    assert time.monotonic() - started < 60  # stopped, where it would never end (a bound on a hang)
    assert standin.kills == 1
    deadline = time.monotonic() + 30  # gone at once; the bound is on a hang
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{pid}"), "the worker outlived its killed command"
    assert ex("twice(base) + 2").output == 42  # a fresh worker, tools and variables replayed
    assert len(standin.sandboxes) == 1 and standin.live_sandboxes()


def test_secrets_stay_on_the_host(make_e2b, standin):
    ex = make_e2b(["os"])
    env = ex("import os\ndict(os.environ)").output
    assert standin.api_key not in str(env) and "E2B_API_KEY" not in env
    assert all(standin.api_key not in command for command in standin.commands)
    assert "E2B_API_KEY" not in str(standin.sandboxes)


def test_close_kills_the_sandbox(make_e2b, standin):
    ex = make_e2b([])
    assert ex("1 + 1").output == 2
    ex.close()
    assert standin.live_sandboxes() == []
    with pytest.raises(InterpreterError, match="closed"):
        ex("1")


def test_a_sandbox_that_went_away_is_replaced(make_e2b, standin):
    from e2b_code_interpreter import Sandbox

    ex = make_e2b([])
    ex("a = 1")
    Sandbox.kill(ex.sandbox.sandbox_id)  # E2B ended it (timeout, dashboard...)
    with pytest.raises(InterpreterError, match="died|restarted|ended"):
        ex("a")
    assert ex("2 + 3").output == 5
    assert len(standin.sandboxes) == 2


def test_missing_api_key_is_a_clear_error(standin, monkeypatch):
    from smol_executor_e2b import E2BExecutor

    monkeypatch.delenv("E2B_API_KEY")
    with pytest.raises(ExecutorUnavailableError, match="E2B_API_KEY"):
        E2BExecutor([])
    assert standin.sandboxes == {}


def test_wrong_api_key_is_a_clear_error(standin):
    from smol_executor_e2b import E2BExecutor

    with pytest.raises(ExecutorUnavailableError, match="refused the API key"):
        E2BExecutor([], api_key="e2b_wrong")


def test_unreachable_service_is_a_clear_error(monkeypatch):
    import socket

    from smol_executor_e2b import E2BExecutor

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("E2B_API_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("E2B_SANDBOX_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("E2B_CONNECTION_RETRIES", "0")
    with pytest.raises(ExecutorUnavailableError, match="could not be reached"):
        E2BExecutor([], api_key="e2b_any", request_timeout=5)


def test_refused_sandbox_is_a_clear_error(standin):
    from smol_executor_e2b import E2BExecutor

    standin.refuse_creates = True
    with pytest.raises(ExecutorUnavailableError, match="rate limited|429"):
        E2BExecutor([], retries=0)


def test_a_chatty_login_shell_does_not_disturb_the_protocol(monkeypatch):
    from e2b_standin import StandInE2B
    from smol_executor_e2b import E2BExecutor

    with StandInE2B(login_banner="Welcome! Last login: today") as server:
        monkeypatch.setenv("E2B_API_URL", server.url)
        monkeypatch.setenv("E2B_SANDBOX_URL", server.url)
        ex = E2BExecutor([], api_key=server.api_key)
        try:
            assert ex("6 * 7").output == 42
        finally:
            ex.close()


def test_actions_keep_the_sandbox_alive(make_e2b, standin):
    ex = make_e2b([], sandbox_timeout=2)
    ex("1")
    assert "timeouts" not in next(iter(standin.sandboxes.values()))
    time.sleep(1.1)
    ex("2")
    assert next(iter(standin.sandboxes.values()))["timeouts"] == [2]
