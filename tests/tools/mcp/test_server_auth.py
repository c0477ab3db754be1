"""smol's MCP server over HTTP treats clients as strangers: a bearer token, Host/Origin checks on every
interface, no network bind without a chosen token, and one agent per client session.

Servers run for real on 127.0.0.1 (uvicorn in a thread, or `smol mcp serve` in a subprocess) and are
driven by the real mcp SDK client, smol's `MCPClient`, or raw HTTP where a header must be forged.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_servers import AUTH, SMOL_TOOLS, TOKEN, free_port, serve_app_in_thread, wait_for_port
from smol_tool_mcp import MCPClient, build_http_app, build_server
from smol_tool_mcp.agent_server import build_agent_server
from smol_tool_mcp.agent_sessions import AgentSessions
from smol_tool_mcp.connection import MCPConnectionError
from smol_tool_mcp.http_security import allowed_hosts_for, resolve_token

from smol_core import LogLevel, ToolCallingAgent
from smol_core.errors import SmolError
from smol_core.testing import FunctionModel

SMOL = [sys.executable, "-m", "smol_core.cli.smol"]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def tools_url() -> Iterator[str]:
    from smol_tools import greet, multiply

    port = free_port()
    app = build_http_app(build_server([greet, multiply]), host="127.0.0.1", port=port, token=TOKEN)
    with serve_app_in_thread(app, port) as url:
        yield url


def _post(url: str, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **headers}, timeout=10)


async def _sdk_session(url: str, headers: dict[str, str], calls: list[tuple[str, dict[str, Any]]]) -> Any:
    async with create_mcp_http_client(headers=headers) as http_client:
        async with Client(
            streamable_http_client(url, http_client=http_client), read_timeout_seconds=20
        ) as client:
            listing = await client.list_tools()
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
            return sorted(tool.name for tool in listing.tools), results


# --- the token ------------------------------------------------------------------------------------


def test_a_request_without_a_token_is_refused(tools_url: str) -> None:
    response = _post(tools_url, {})
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert httpx.get(tools_url, timeout=10).status_code == 401
    assert httpx.delete(tools_url, timeout=10).status_code == 401
    assert httpx.get(tools_url.replace("/mcp", "/anything"), timeout=10).status_code == 401


@pytest.mark.parametrize(
    "authorization",
    [f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", "Bearer", f"Basic {TOKEN}", TOKEN, f"Bearer {TOKEN[::-1]}"],
)
def test_a_wrong_token_is_refused(tools_url: str, authorization: str) -> None:
    assert _post(tools_url, {"Authorization": authorization}).status_code == 401


def test_the_right_token_lists_and_calls_tools_through_the_sdk_client(tools_url: str) -> None:
    names, results = asyncio.run(_sdk_session(tools_url, AUTH, [("multiply", {"a": 6, "b": 7})]))
    assert names == ["greet", "multiply"]
    assert results[0].structured_content == {"result": 42}
    assert _post(tools_url, {"Authorization": f"bearer {TOKEN}"}).status_code == 200  # scheme is case-blind


def test_smol_mcp_client_passes_the_token_in_headers(tools_url: str) -> None:
    with MCPClient({"url": tools_url, "headers": AUTH}) as tools:
        assert {tool.name: tool for tool in tools}["greet"](name="Ada") == "Hello, Ada."
    with pytest.raises(MCPConnectionError, match=r"answered HTTP 401 .*SMOL_MCP_TOKEN"):
        MCPClient({"url": tools_url}, connect_timeout=10)
    with pytest.raises(MCPConnectionError, match=r"answered HTTP 401 .*SMOL_MCP_TOKEN"):
        MCPClient(
            {"url": tools_url, "headers": {"Authorization": "Bearer wrong-token-wrong-token"}},
            connect_timeout=10,
        )
    with pytest.raises(MCPConnectionError, match=r"answered HTTP 401 .*SMOL_MCP_TOKEN"):
        MCPClient(tools_url, connect_timeout=10)  # a bare URL, as smolagents' users pass it


def test_mcp_url_on_the_command_line_sends_smol_mcp_token(
    tools_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from smol_tool_mcp.cli import mcp_tools, server_parameters_from_text

    monkeypatch.delenv("SMOL_MCP_TOKEN", raising=False)
    assert "headers" not in server_parameters_from_text(tools_url)
    monkeypatch.setenv("SMOL_MCP_TOKEN", TOKEN)
    assert server_parameters_from_text(tools_url)["headers"] == AUTH
    tools = {tool.name: tool for tool in mcp_tools(tools_url)}
    assert tools["multiply"](a=3, b=4) == 12


# --- Host and Origin ------------------------------------------------------------------------------


def test_a_foreign_host_header_is_refused(tools_url: str) -> None:
    port = tools_url.split(":")[2].split("/")[0]
    assert _post(tools_url, {**AUTH, "Host": "evil.example"}).status_code == 421
    assert _post(tools_url, {**AUTH, "Host": f"evil.example:{port}"}).status_code == 421
    assert _post(tools_url, {**AUTH, "Host": "127.0.0.1:1"}).status_code == 421  # another port
    assert _post(tools_url, {**AUTH, "Host": f"localhost:{port}"}).status_code == 200


def test_a_foreign_origin_is_refused(tools_url: str) -> None:
    port = tools_url.split(":")[2].split("/")[0]
    assert _post(tools_url, {**AUTH, "Origin": "https://evil.example"}).status_code == 403
    assert _post(tools_url, {**AUTH, "Origin": "http://127.0.0.1:1"}).status_code == 403
    assert _post(tools_url, {**AUTH, "Origin": f"http://127.0.0.1:{port}"}).status_code == 200


def test_host_checks_stay_on_for_a_server_configured_for_every_interface() -> None:
    """An app built for 0.0.0.0 (served here on 127.0.0.1) still refuses unknown Host and Origin."""
    port = free_port()
    app = build_http_app(
        build_server([]),
        host="0.0.0.0",
        port=port,
        token=TOKEN,
        allowed_hosts=["proxy.example"],
        allowed_origins=["https://app.example"],
    )
    with serve_app_in_thread(app, port) as url:
        assert _post(url, {**AUTH, "Host": "evil.example"}).status_code == 421
        assert _post(url, {**AUTH, "Origin": "https://evil.example"}).status_code == 403
        assert _post(url, AUTH).status_code == 200  # Host: 127.0.0.1:<port>
        assert _post(url, {**AUTH, "Host": "proxy.example"}).status_code == 200  # user-extended
        assert _post(url, {**AUTH, "Origin": "https://app.example"}).status_code == 200


def test_allowed_hosts_follow_the_bind_address() -> None:
    assert allowed_hosts_for("192.168.1.5", 8000) == ["192.168.1.5:8000"]
    assert allowed_hosts_for("127.0.0.1", 8000) == ["127.0.0.1:8000", "localhost:8000", "[::1]:8000"]
    assert allowed_hosts_for("::1", 9000, ["x.example:9000"]) == [
        "127.0.0.1:9000",
        "localhost:9000",
        "[::1]:9000",
        "x.example:9000",
    ]
    every = allowed_hosts_for("0.0.0.0", 8000)
    assert {"127.0.0.1:8000", "localhost:8000"} <= set(every)
    assert all(entry.endswith(":8000") for entry in every)


# --- the bind rule --------------------------------------------------------------------------------


def test_a_network_bind_needs_a_chosen_token(monkeypatch: pytest.MonkeyPatch) -> None:
    from smol_tool_mcp import serve_tools

    monkeypatch.delenv("SMOL_MCP_TOKEN", raising=False)
    for host in ("0.0.0.0", "::", "192.168.1.5", "example.com"):
        with pytest.raises(SmolError, match=f"binding {host} exposes the agent to the network; pass --token"):
            resolve_token(None, host)
    with pytest.raises(SmolError, match="binding 0.0.0.0 exposes"):
        serve_tools([], transport="http", host="0.0.0.0", port=free_port())
    generated, was_generated = resolve_token(None, "127.0.0.1")
    assert was_generated and len(generated) >= 40 and generated != resolve_token(None, "localhost")[0]
    assert resolve_token(TOKEN, "0.0.0.0") == (TOKEN, False)
    monkeypatch.setenv("SMOL_MCP_TOKEN", TOKEN)
    assert resolve_token(None, "0.0.0.0") == (TOKEN, False)
    with pytest.raises(SmolError, match="at least 16 characters"):
        resolve_token("short", "127.0.0.1")


def test_smol_mcp_serve_refuses_a_network_bind_without_a_token(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from smol_core.cli.smol import main

    monkeypatch.delenv("SMOL_MCP_TOKEN", raising=False)
    argv = ["mcp", "serve", "--tools", str(SMOL_TOOLS), "--transport", "http", "--host", "0.0.0.0"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "binding 0.0.0.0 exposes the agent to the network; pass --token" in err
    assert "bind 127.0.0.1" in err


def test_smol_mcp_serve_prints_a_generated_token_that_works() -> None:
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key != "SMOL_MCP_TOKEN"}
    command = [*SMOL, "mcp", "serve", "--tools", str(SMOL_TOOLS), "--transport", "http", "--port", str(port)]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True)
    try:
        wait_for_port(port, process)  # type: ignore[arg-type]
        assert process.stderr is not None
        lines = [process.stderr.readline() for _ in range(3)]
        assert lines[0].strip() == f"smol mcp: serving on http://127.0.0.1:{port}/mcp"
        token = lines[1].rsplit(" ", 1)[1].strip()
        assert f"SMOL_MCP_TOKEN={token}" in lines[2]
        url = f"http://127.0.0.1:{port}/mcp"
        assert _post(url, {}).status_code == 401
        with MCPClient({"url": url, "headers": {"Authorization": f"Bearer {token}"}}) as tools:
            assert {tool.name: tool for tool in tools}["multiply"](a=2, b=21) == 42
    finally:
        process.terminate()
        process.wait(10)


# --- one agent per session ------------------------------------------------------------------------


def _text(messages: list[Any]) -> str:
    return " ".join(json.dumps(getattr(m, "content", ""), default=str) for m in messages)


def _memory_model(messages: list[Any], **call: Any) -> dict[str, Any]:
    """Answers 'recall' with whether this agent's memory holds the word a 'remember' task gave it."""
    task = _text(messages[-1:])
    if "remember" in task:
        answer = "noted"
    else:
        answer = "seen tortoise" if "remember the word tortoise" in _text(messages[:-1]) else "nothing seen"
    return {"name": "final_answer", "arguments": {"answer": answer}}


def _agent() -> ToolCallingAgent:
    return ToolCallingAgent(
        tools=[], model=FunctionModel(_memory_model), name="memo", verbosity_level=LogLevel.OFF
    )


async def _runs(url: str, runs: list[dict[str, Any]], mode: str = "legacy") -> list[str]:
    """One client's runs: `mode="legacy"` opens an MCP session (initialize handshake, session id),
    the default "auto" speaks the stateless 2026-07-28 protocol to this server (no session)."""
    async with create_mcp_http_client(headers=AUTH) as http_client:
        transport = streamable_http_client(url, http_client=http_client)
        async with Client(transport, read_timeout_seconds=20, mode=mode) as client:  # type: ignore[arg-type]
            answers = []
            for arguments in runs:
                result = await client.call_tool("run", arguments)
                answers.append(("error: " if result.is_error else "") + result.content[0].text)
            return answers


def test_two_clients_never_see_each_others_agent_memory() -> None:
    sessions = AgentSessions(_agent, max_sessions=4)
    port = free_port()
    app = build_http_app(
        build_agent_server(sessions), host="127.0.0.1", port=port, token=TOKEN, agent_sessions=sessions
    )

    async def two_clients(url: str) -> tuple[list[str], list[str]]:
        async with create_mcp_http_client(headers=AUTH) as http_a:
            async with Client(streamable_http_client(url, http_client=http_a), mode="legacy") as client_a:

                async def a(arguments: dict[str, Any]) -> str:
                    return (await client_a.call_tool("run", arguments)).content[0].text

                first = [await a({"task": "remember the word tortoise"})]
                first.append(await a({"task": "recall", "keep_memory": True}))
                # client B, while A's session is still open
                second = await _runs(url, [{"task": "recall", "keep_memory": True}])
                first.append(await a({"task": "recall", "keep_memory": True}))
                first.append(await a({"task": "recall"}))  # a run without keep_memory starts afresh
                return first, second

    with serve_app_in_thread(app, port) as url:
        answers_a, answers_b = asyncio.run(two_clients(url))
        assert answers_a == ["noted", "seen tortoise", "seen tortoise", "nothing seen"]
        assert answers_b == ["nothing seen"]
        deadline = time.monotonic() + 10
        while len(sessions) and time.monotonic() < deadline:  # the clients' DELETEs end their sessions
            time.sleep(0.02)
        assert len(sessions) == 0


def test_without_a_session_every_call_gets_a_new_agent() -> None:
    """The stateless protocol has no session to keep an agent in: nothing carries over between calls."""
    sessions = AgentSessions(_agent, max_sessions=4)
    port = free_port()
    app = build_http_app(build_agent_server(sessions), host="127.0.0.1", port=port, token=TOKEN)
    runs = [
        {"task": "remember the word tortoise"},
        {"task": "recall"},
        {"task": "recall", "keep_memory": True},
    ]
    with serve_app_in_thread(app, port) as url:
        answers = asyncio.run(_runs(url, runs, mode="auto"))
    assert answers[:2] == ["noted", "nothing seen"]
    assert answers[2].startswith("error: keep_memory needs an MCP session")
    assert len(sessions) == 0


def test_a_served_agent_folder_gives_each_client_its_own_variables(tmp_path: Any) -> None:
    """`smol mcp serve --agent-folder` over HTTP: a CodeAgent's executor variables stay per session."""
    from smol_core import CodeAgent
    from smol_core.testing import ScriptedModel

    counter = "Thought: count.\n<code>\ntry:\n    count += 1\nexcept NameError:\n    count = 1\nfinal_answer(count)\n</code>"
    agent = CodeAgent(tools=[], model=ScriptedModel([]), name="counter", description="Counts calls.")
    agent.save(str(tmp_path))
    agent_file = tmp_path / "agent.json"
    data = json.loads(agent_file.read_text())
    data["model"]["data"].update(replies=[counter], repeat_last=True)
    agent_file.write_text(json.dumps(data))
    port = free_port()
    command = [
        *SMOL,
        "mcp",
        "serve",
        "--agent-folder",
        str(tmp_path),
        "--transport",
        "http",
        "--port",
        str(port),
    ]
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "SMOL_MCP_TOKEN": TOKEN},
    )
    try:
        wait_for_port(port, process)
        url = f"http://127.0.0.1:{port}/mcp"
        assert asyncio.run(_runs(url, [{"task": "count"}] * 3)) == ["1", "2", "3"]
        assert asyncio.run(_runs(url, [{"task": "count"}] * 2)) == ["1", "2"]
    finally:
        process.terminate()
        process.wait(10)
