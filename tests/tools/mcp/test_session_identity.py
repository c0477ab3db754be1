"""A served agent's sessions belong to the clients the server issued them to.

Attacks from a token holder (every client of `smol mcp serve` shares the token): reading another
client's agent memory by sending its session id on the stateless (2026-07-28) protocol, or pushing
other clients' sessions out with made-up ids. The server issues every session id itself; a
stateless call gets a fresh agent whatever id it claims; nothing a client does evicts another's live
session; a full server refuses new sessions with a clear error.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_servers import AUTH, TOKEN, free_port, serve_app_in_thread
from smol_tool_mcp import build_http_app
from smol_tool_mcp.agent_server import build_agent_server
from smol_tool_mcp.agent_sessions import AgentSessions
from test_server_auth import _agent

REMEMBER = {"task": "remember the word tortoise"}
RECALL = {"task": "recall", "keep_memory": True}


def _serve(max_sessions: int = 4) -> tuple[AgentSessions, Any, int]:
    sessions = AgentSessions(_agent, max_sessions=max_sessions)
    port = free_port()
    app = build_http_app(
        build_agent_server(sessions),
        host="127.0.0.1",
        port=port,
        token=TOKEN,
        max_sessions=max_sessions,
        agent_sessions=sessions,
    )
    return sessions, app, port


async def _call(client: Any, arguments: dict[str, Any]) -> str:
    result = await client.call_tool("run", arguments)
    return ("error: " if result.is_error else "") + result.content[0].text


async def _stateless(url: str, runs: list[dict[str, Any]], session_id: str) -> list[str]:
    """A stateless (2026-07-28) client that sends `Mcp-Session-Id: session_id` with every request."""
    async with create_mcp_http_client(headers={**AUTH, "Mcp-Session-Id": session_id}) as http_client:
        async with Client(
            streamable_http_client(url, http_client=http_client), read_timeout_seconds=20
        ) as client:
            return [await _call(client, arguments) for arguments in runs]


def test_a_stateless_call_with_another_clients_session_id_sees_nothing_of_its_memory() -> None:
    sessions, app, port = _serve()

    async def scenario(url: str) -> tuple[list[str], list[str]]:
        async with create_mcp_http_client(headers=AUTH) as http_victim:
            transport = streamable_http_client(url, http_client=http_victim)
            async with Client(transport, mode="legacy") as victim:
                answers = [await _call(victim, REMEMBER)]
                (victim_id,) = [key for key in sessions.keys()]
                stolen = await _stateless(url, [RECALL, {"task": "recall"}], victim_id)
                answers.append(await _call(victim, RECALL))
                return answers, stolen

    with serve_app_in_thread(app, port) as url:
        victim, stolen = asyncio.run(scenario(url))
    assert victim == ["noted", "seen tortoise"]
    assert stolen[0].startswith("error: keep_memory needs an MCP session")
    assert stolen[1] == "nothing seen"


def test_made_up_session_ids_neither_create_sessions_nor_evict_a_live_one() -> None:
    sessions, app, port = _serve(max_sessions=2)

    async def scenario(url: str) -> tuple[list[str], list[list[str]]]:
        async with create_mcp_http_client(headers=AUTH) as http_victim:
            transport = streamable_http_client(url, http_client=http_victim)
            async with Client(transport, mode="legacy") as victim:
                answers = [await _call(victim, REMEMBER)]
                flood = [await _stateless(url, [{"task": "recall"}], f"made-up-{n}") for n in range(6)]
                answers.append(await _call(victim, RECALL))
                return answers, flood

    with serve_app_in_thread(app, port) as url:
        victim, flood = asyncio.run(scenario(url))
    assert victim == ["noted", "seen tortoise"]
    assert all(answers == ["nothing seen"] for answers in flood)
    assert not any(key.startswith("made-up") for key in sessions.keys())


def test_a_full_server_refuses_a_new_session_and_keeps_the_live_ones() -> None:
    sessions, app, port = _serve(max_sessions=1)

    async def scenario(url: str) -> tuple[list[str], str]:
        async with create_mcp_http_client(headers=AUTH) as http_victim:
            transport = streamable_http_client(url, http_client=http_victim)
            async with Client(transport, mode="legacy") as victim:
                answers = [await _call(victim, REMEMBER)]
                refused = ""
                try:
                    async with create_mcp_http_client(headers=AUTH) as http_other:
                        other_transport = streamable_http_client(url, http_client=http_other)
                        async with Client(other_transport, mode="legacy") as other:
                            refused = "opened: " + await _call(other, {"task": "recall"})
                except Exception as error:  # the SDK client raises on the refusal (in a group)
                    while isinstance(error, BaseExceptionGroup) and error.exceptions:
                        error = error.exceptions[0]
                    refused = f"{type(error).__name__}: {error}"
                answers.append(await _call(victim, RECALL))
                return answers, refused

    with serve_app_in_thread(app, port) as url:
        victim, refused = asyncio.run(scenario(url))
    assert victim == ["noted", "seen tortoise"]
    assert "maximum of 1 sessions" in refused, refused


def test_session_ids_are_the_servers_own() -> None:
    sessions, app, port = _serve()

    async def scenario(url: str) -> str:
        async with create_mcp_http_client(headers={**AUTH}) as http_client:
            async with Client(streamable_http_client(url, http_client=http_client), mode="legacy") as client:
                await _call(client, {"task": "recall"})
                (key,) = list(sessions.keys())
                return key

    with serve_app_in_thread(app, port) as url:
        key = asyncio.run(scenario(url))
    assert len(key) >= 32  # issued by the server: 128 random bits, never a client's choice
