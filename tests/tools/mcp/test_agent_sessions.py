"""`AgentSessions` (one agent per MCP session: cap, idle expiry, cleanup) and `clone_agent`."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from smol_tool_mcp import clone_agent
from smol_tool_mcp.agent_sessions import (
    SINGLE_CLIENT,
    AgentSessions,
    SessionGoneError,
    SessionLimitError,
    session_key,
)

from smol_core import CodeAgent, LogLevel, ToolCallingAgent, tool
from smol_core.errors import SmolError
from smol_core.testing import ScriptedModel


class FakeAgent:
    def __init__(self, number: int) -> None:
        self.number = number
        self.cleaned = False

    def cleanup(self) -> None:
        self.cleaned = True


class Factory:
    def __init__(self) -> None:
        self.built: list[FakeAgent] = []

    def __call__(self) -> FakeAgent:
        agent = FakeAgent(len(self.built))
        self.built.append(agent)
        return agent


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _use(sessions: AgentSessions, key: str | None) -> FakeAgent:
    """A run in session `key`, which the server issued (opened) first if it is new."""
    if key is not None and key not in sessions and key != SINGLE_CLIENT:
        if not sessions.has_room():
            raise SessionLimitError(sessions.full_message())
        sessions.open(key)
    with sessions.agent(key) as agent:
        return agent


def test_each_session_keeps_its_own_agent() -> None:
    factory = Factory()
    sessions = AgentSessions(factory)
    a, b = _use(sessions, "a"), _use(sessions, "b")
    assert a is not b
    assert _use(sessions, "a") is a and _use(sessions, "b") is b
    assert len(factory.built) == 2


def test_a_request_outside_any_session_gets_a_throwaway_agent() -> None:
    factory = Factory()
    sessions = AgentSessions(factory)
    first, second = _use(sessions, None), _use(sessions, None)
    assert first is not second and first.cleaned and second.cleaned
    assert len(sessions) == 0


def test_ending_a_session_releases_its_agent() -> None:
    sessions = AgentSessions(Factory())
    agent = _use(sessions, "a")
    sessions.end("a")
    assert agent.cleaned and "a" not in sessions
    assert _use(sessions, "a") is not agent  # a new session under the same id starts fresh
    sessions.end("never-opened")  # ending an unknown session is harmless


def test_a_full_table_refuses_a_new_session_and_never_evicts_a_live_one() -> None:
    clock = Clock()
    sessions = AgentSessions(Factory(), max_sessions=2, clock=clock)
    a, b = _use(sessions, "a"), _use(sessions, "b")
    clock.now += 100
    assert not sessions.has_room()
    with pytest.raises(SessionLimitError, match="maximum of 2 sessions"):
        _use(sessions, "c")
    assert not a.cleaned and not b.cleaned
    assert _use(sessions, "a") is a and _use(sessions, "b") is b
    sessions.end("a")  # a slot frees when a session ends
    assert _use(sessions, "c").number == 2


def test_a_key_the_server_never_issued_gets_no_agent() -> None:
    sessions = AgentSessions(Factory())
    with pytest.raises(SessionGoneError, match="open a new session"), sessions.agent("made-up"):
        pass
    assert len(sessions) == 0
    with sessions.agent(SINGLE_CLIENT) as agent:  # stdio's one client needs no issuing
        assert agent.number == 0


def test_an_idle_session_that_expired_says_its_memory_is_gone() -> None:
    clock = Clock()
    sessions = AgentSessions(Factory(), idle_timeout=60, clock=clock)
    _use(sessions, "a")
    clock.now += 61
    assert sessions.has_room()
    with pytest.raises(SessionGoneError, match="idle longer than 1 minutes"), sessions.agent("a"):
        pass


def test_activity_keeps_a_session_from_expiring() -> None:
    clock = Clock()
    sessions = AgentSessions(Factory(), idle_timeout=60, clock=clock)
    agent = _use(sessions, "a")
    clock.now += 50
    sessions.touch("a")
    clock.now += 50
    assert _use(sessions, "a") is agent


def test_idle_sessions_expire() -> None:
    clock = Clock()
    sessions = AgentSessions(Factory(), idle_timeout=60, clock=clock)
    old = _use(sessions, "old")
    clock.now += 61
    _use(sessions, "new")
    assert old.cleaned and "old" not in sessions and "new" in sessions


def test_runs_of_one_session_wait_for_each_other() -> None:
    sessions = AgentSessions(Factory())
    sessions.open("a")
    inside = threading.Event()
    release = threading.Event()
    order: list[str] = []

    def first() -> None:
        with sessions.agent("a"):
            inside.set()
            release.wait(10)
            order.append("first")

    thread = threading.Thread(target=first)
    thread.start()
    inside.wait(10)
    second = threading.Thread(target=lambda: (_use(sessions, "a"), order.append("second")))
    second.start()
    other = _use(sessions, "b")  # another session is not held up
    order.append("other")
    release.set()
    thread.join(10)
    second.join(10)
    assert other.number == 1
    assert order == ["other", "first", "second"]


def test_a_factory_failure_leaves_no_half_session() -> None:
    def broken() -> Any:
        raise RuntimeError("no model")

    sessions = AgentSessions(broken)
    sessions.open("a")
    with pytest.raises(RuntimeError, match="no model"):
        _use(sessions, "a")
    assert len(sessions) == 1  # the slot stays the session's; its next run builds the agent again
    with pytest.raises(RuntimeError, match="no model"):
        _use(sessions, "a")


def test_session_key_reads_the_mcp_session_header() -> None:
    class Request:
        def __init__(self, headers: dict[str, str]) -> None:
            self.headers = headers

    class Ctx:
        def __init__(self, request: Any) -> None:
            self.request = request

    class StatelessCtx(Ctx):
        protocol_version = "2026-07-28"

    class HandshakeCtx(Ctx):
        protocol_version = "2025-06-18"

    assert session_key(Ctx(None)) == SINGLE_CLIENT
    assert session_key(HandshakeCtx(Request({"mcp-session-id": "abc"}))) == "abc"
    assert session_key(HandshakeCtx(Request({}))) is None
    # on the stateless protocol an id is only the client's claim: no session
    assert session_key(StatelessCtx(Request({"mcp-session-id": "abc"}))) is None


@tool
def double(x: int) -> int:
    """Doubles a number.

    Args:
        x: The number.
    """
    return 2 * x


def test_clone_agent_builds_a_fresh_agent_with_the_same_setup() -> None:
    worker = ToolCallingAgent(
        tools=[double],
        model=ScriptedModel([]),
        name="worker",
        description="Doubles.",
        verbosity_level=LogLevel.OFF,
    )
    agent = CodeAgent(
        tools=[double],
        model=ScriptedModel([]),
        managed_agents=[worker],
        additional_authorized_imports=["math"],
        instructions="Be brief.",
        max_steps=7,
        verbosity_level=LogLevel.OFF,
    )
    agent.memory.steps.append("a step of an earlier run")  # type: ignore[arg-type]
    copy = clone_agent(agent)
    assert type(copy) is CodeAgent and copy is not agent
    assert copy.model is agent.model and copy.tools["double"] is double
    assert copy.additional_authorized_imports == ["math"]
    assert copy.instructions == "Be brief." and copy.max_steps == 7
    assert copy.memory is not agent.memory and copy.memory.steps == []
    assert copy.managed_agents["worker"] is not worker
    assert copy.managed_agents["worker"].tools["double"] is double


def test_clone_agent_refuses_an_agent_given_an_executor_object() -> None:
    from smol_core import LocalPythonExecutor

    executor = LocalPythonExecutor([])
    try:
        agent = CodeAgent(tools=[], model=ScriptedModel([]), executor=executor, verbosity_level=LogLevel.OFF)
        with pytest.raises(SmolError, match="pass agent_factory="):
            clone_agent(agent)
    finally:
        executor.close()


def test_an_agent_that_has_run_is_cloned_without_its_memory_or_sandbox() -> None:
    agent = CodeAgent(
        tools=[],
        model=ScriptedModel(["<code>\nx = 4\nfinal_answer(x)\n</code>"]),
        verbosity_level=LogLevel.OFF,
    )
    with agent:
        assert agent.run("four") == 4
        copy = clone_agent(agent)
        with copy:
            assert copy.memory.steps == [] and copy._executor is None and copy.return_full_result is False


def test_serve_agent_refuses_an_agent_it_cannot_clone_before_serving() -> None:
    from smol_tool_mcp import serve_agent

    from smol_core import LocalPythonExecutor

    executor = LocalPythonExecutor([])
    try:
        agent = CodeAgent(tools=[], model=ScriptedModel([]), executor=executor, verbosity_level=LogLevel.OFF)
        with pytest.raises(SmolError, match="pass agent_factory="):
            serve_agent(agent, transport="http", port=1)
    finally:
        executor.close()
    with pytest.raises(ValueError, match="needs an agent or an agent_factory"):
        serve_agent(transport="http", port=1)


def test_calls_outside_any_session_are_bounded_too() -> None:
    sessions = AgentSessions(Factory(), max_sessions=1)
    with sessions.agent(None):
        with pytest.raises(SessionLimitError, match="calls without a session"), sessions.agent(None):
            pass
    with sessions.agent(None) as agent:  # once the first call is over, the next one runs
        assert agent.number == 1
