"""One agent per MCP client session, so that clients of a served agent are strangers to each other.

An agent carries state between runs: its memory (the tasks it was given, what it saw) and, for a
`CodeAgent`, the executor's variables. A server that handed every client the same agent would let
one client read what another told it, or find variables another left behind. So `serve_agent`
builds an agent per session (from a factory), keyed by the MCP session id the server issued
(`open`, called when the server's answer hands a client a new id; a client never picks its key),
and drops it (releasing its executor) when the session ends or has been idle as long as the SDK
keeps a session. A full table refuses new sessions (`has_room`); it never evicts a live one, so
no client can push another's memory out.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from smol_core.plugin_api import SmolError

AgentFactory = Callable[[], Any]

# The key of the one client a stdio server (or an in-memory test server) talks to.
SINGLE_CLIENT = "stdio"
DEFAULT_MAX_SESSIONS = 32
DEFAULT_IDLE_TIMEOUT = 1800.0  # the SDK's own idle timeout for a streamable-HTTP session


class SessionLimitError(SmolError):
    """Every session slot is taken by a live session: try again later (none is ever evicted)."""


def is_stateless(protocol_version: str | None) -> bool:
    """Whether a request speaks the stateless protocol (2026-07-28 and later): no session exists
    there, so an `Mcp-Session-Id` it carries is only the client's claim, never checked by the SDK."""
    if protocol_version is None:
        return False
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    return protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS


def session_key(ctx: Any) -> str | None:
    """The MCP session a request belongs to, or None for a request that belongs to none.

    Over stdio (no HTTP request) the one client is `SINGLE_CLIENT`. Over HTTP it is the
    `Mcp-Session-Id` the server issued, and only on the handshake protocols, where the SDK has
    routed the request to that session's transport (an unknown id is answered 404 before a handler
    runs). A stateless request gets None whatever id it claims: a token holder who knew or guessed
    another client's id must not reach that client's agent.
    """
    request = getattr(ctx, "request", None)
    if request is None:
        return SINGLE_CLIENT
    if is_stateless(getattr(ctx, "protocol_version", None)):
        return None
    headers = getattr(request, "headers", None)
    value = headers.get("mcp-session-id") if headers is not None else None
    return str(value) if value else None


class SessionGoneError(SmolError):
    """The session's agent is no longer kept (the session ended or sat idle too long)."""


def clone_agent(agent: Any) -> Any:
    """A fresh agent built like `agent` for one MCP client: `agent.fresh_copy()` (the same model,
    tools, prompts and security settings; an empty memory, managed agents copied, a sandbox of its
    own), answering with the answer alone.

    An agent given an executor object cannot be copied (one sandbox would serve two clients), so it
    is refused: pass `agent_factory=` instead.
    """
    try:
        twin = agent.fresh_copy()
    except ValueError as refused:
        raise SmolError(
            f"Cannot give each MCP client its own copy of the agent {getattr(agent, 'name', None)!r}: "
            f"{refused} Or pass agent_factory=<a function that builds a new agent> to serve_agent."
        ) from None
    twin.return_full_result = False
    return twin


def release(agent: Any) -> None:
    """Free what an agent holds (its executor); never raises, it runs during cleanup."""
    with contextlib.suppress(Exception):
        agent.cleanup()


@dataclass
class _Session:
    agent: Any
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = 0.0
    running: int = 0


class AgentSessions:
    """The agents of the open sessions. Thread-safe: runs happen on worker threads."""

    def __init__(
        self,
        factory: AgentFactory,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1.")
        self.factory = factory
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self._clock = clock
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()
        # calls outside any session (the stateless protocol) each build an agent: as many at once as
        # there are session slots, so a flood of them cannot exhaust the host either
        self._throwaway_slots = threading.BoundedSemaphore(max_sessions)

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self._sessions

    @contextlib.contextmanager
    def agent(self, key: str | None) -> Iterator[Any]:
        """The session's agent, held for one run (runs of one session wait for each other).

        `key=None` (a request outside any session) gets an agent of its own, dropped afterwards; at
        most `max_sessions` of those run at once (`SessionLimitError` past that).
        `SINGLE_CLIENT` (stdio) is admitted on first use; any other key must have been `open`ed:
        an id the server never issued, or one whose agent was dropped, is `SessionGoneError`.
        """
        if key is None:
            if not self._throwaway_slots.acquire(blocking=False):
                raise SessionLimitError(
                    f"This server is already running its maximum of {self.max_sessions} calls without a "
                    "session; try again when one finishes."
                )
            try:
                agent = self.factory()
                try:
                    yield agent
                finally:
                    release(agent)
            finally:
                self._throwaway_slots.release()
            return
        session = self._checkout(key)
        try:
            with session.lock:
                yield session.agent
        finally:
            with self._lock:
                session.running -= 1
                session.last_used = self._clock()

    def _checkout(self, key: str) -> _Session:
        stale: list[_Session] = []
        try:
            with self._lock:
                stale = self._expire()
                session = self._sessions.get(key)
                if session is None:
                    if key != SINGLE_CLIENT:
                        raise SessionGoneError(
                            "This MCP session has no agent on the server any more (it ended, or sat idle "
                            f"longer than {self._idle_text()}), so its memory is gone: open a new session."
                        )
                    if len(self._sessions) >= self.max_sessions:
                        raise self._full()
                    session = self._sessions[key] = _Session(agent=None)
                session.running += 1
                session.last_used = self._clock()
        finally:
            for old in stale:
                release(old.agent)
        if session.agent is None:
            with session.lock:  # build outside the registry lock: a factory may load a folder
                if session.agent is None:
                    try:
                        session.agent = self.factory()
                    except BaseException:
                        with self._lock:
                            session.running -= 1
                        raise
        return session

    def open(self, key: str) -> None:
        """The server issued `key` to a new client: keep a slot for its agent (built at its first run).

        The HTTP layer calls this when the server's answer carries a new `Mcp-Session-Id`, so keys are
        only ever ids the server made; it has already refused the session if `has_room()` was false.
        """
        stale: list[_Session] = []
        with self._lock:
            stale = self._expire()
            if key not in self._sessions:
                self._sessions[key] = _Session(agent=None, last_used=self._clock())
        for old in stale:
            release(old.agent)

    def touch(self, key: str) -> None:
        """A request of this session arrived: it is not idle."""
        with self._lock:
            session = self._sessions.get(key)
            if session is not None:
                session.last_used = self._clock()

    def has_room(self) -> bool:
        """Whether a new session may open (idle sessions past their time are dropped first)."""
        with self._lock:
            stale = self._expire()
            room = len(self._sessions) < self.max_sessions
        for old in stale:
            release(old.agent)
        return room

    def full_message(self) -> str:
        return str(self._full())

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._sessions)

    def _full(self) -> SessionLimitError:
        return SessionLimitError(
            f"This server already serves its maximum of {self.max_sessions} sessions; try again later "
            f"(a session ends when its client closes it, or after {self._idle_text()} idle)."
        )

    def _idle_text(self) -> str:
        if self.idle_timeout is None:
            return "no time limit"
        minutes = self.idle_timeout / 60
        return f"{minutes:g} minutes" if minutes >= 1 else f"{self.idle_timeout:g} seconds"

    def _expire(self) -> list[_Session]:
        """Drop the sessions idle past `idle_timeout` (the SDK has ended them); caller holds the lock."""
        if self.idle_timeout is None:
            return []
        deadline = self._clock() - self.idle_timeout
        old = [k for k, s in self._sessions.items() if not s.running and s.last_used < deadline]
        return [self._sessions.pop(k) for k in old]

    def end(self, key: str) -> None:
        """The client ended its session: drop its agent (after its run, if one is still going)."""
        with self._lock:
            session = self._sessions.pop(key, None)
        if session is not None:
            with session.lock:
                release(session.agent)

    def close(self) -> None:
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            release(session.agent)
