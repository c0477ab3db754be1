"""One agent and one upload folder per browser session of the chat page.

Why: the page serves whoever opens it. With one agent for everyone, the next visitor read the last
one's conversation and, even with `reset_agent_memory=True` (which clears the memory, not the
sandbox), the variables their code had left in the sandbox; their uploads sat in one shared folder.
Now each session gets a copy of the configured agent (`agent.fresh_copy()`, or a new agent from the
function the page was given), with its own memory and sandbox, and a folder of its own for uploads,
named by the server (never by the browser). When the session ends (the tab is closed or reloaded),
its agent is cleaned up and its folder deleted. At most `limit` sessions live at once, so opening
tabs cannot make the host start sandboxes without end; a session idle for `idle_seconds` (no task,
no upload: a client that never said goodbye, such as a script calling the API without the page's
heartbeat) is ended when a new session needs room, so such clients cannot fill the page for good.
A session whose task is still running is never ended for idleness.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_SESSION_LIMIT = 32
DEFAULT_IDLE_SECONDS = 3600.0


class TooManySessions(RuntimeError):
    """Every session slot is taken; the message says so in words for the user."""


@dataclass
class Session:
    """What one browser session owns: its agent, its upload folder, and the lock of its runs."""

    agent: Any
    folder: Path | None
    run_lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = field(default_factory=time.monotonic)
    pending: Any = None  # the call its last run paused for (approvals.PendingCall), or None
    runs: list[str] = field(default_factory=list)
    """The durable runs its tasks started, oldest first (`run_retention.py` keeps the newest few)."""

    def idle_for(self, now: float) -> float:
        """Seconds since the session was last used; 0 while its task runs."""
        return 0.0 if self.run_lock.locked() else now - self.last_used

    def close(self, on_close: Callable[[Session], None] | None = None) -> None:
        """Release the agent (its sandbox) and delete the uploads, after `on_close(self)` (the page
        forgets the session's runs). Safe to call twice."""
        if on_close is not None:
            with contextlib.suppress(Exception):
                on_close(self)
        with contextlib.suppress(Exception):
            self.agent.cleanup()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


class Sessions:
    """The live sessions of one page, by Gradio's session id.

    make_agent: returns a new agent for a session. upload_root: the folder under which each session
    gets its own (None: no uploads). limit: how many sessions may live at once. idle_seconds: how
    long an unused session keeps its place when a new one needs it. on_close: called with each
    session that ends, before its agent is cleaned up.
    """

    def __init__(
        self,
        make_agent: Callable[[], Any],
        upload_root: Path | None,
        limit: int,
        idle_seconds: float = DEFAULT_IDLE_SECONDS,
        on_close: Callable[[Session], None] | None = None,
    ) -> None:
        self.make_agent = make_agent
        self.on_close = on_close
        self.upload_root = upload_root
        self.limit = limit
        self.idle_seconds = idle_seconds
        self._live: dict[str, Session] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Session:
        """The session `key`, made on its first use. Raises `TooManySessions` when the page is full."""
        expired: list[Session] = []
        try:
            with self._lock:
                now = time.monotonic()
                session = self._live.get(key)
                if session is not None:
                    session.last_used = now
                    return session
                if len(self._live) >= self.limit:
                    for stale in [k for k, s in self._live.items() if s.idle_for(now) > self.idle_seconds]:
                        expired.append(self._live.pop(stale))
                if len(self._live) >= self.limit:
                    raise TooManySessions(
                        f"This page already serves {self.limit} sessions, its limit: try again when one ends."
                    )
                return self._open(key)
        finally:
            for session in expired:
                session.close(self.on_close)

    def _open(self, key: str) -> Session:
        """A new session under `key` (the caller holds the lock and has checked the limit)."""
        folder = None
        if self.upload_root is not None:
            folder = self.upload_root / f"session-{secrets.token_hex(8)}"
            folder.mkdir(parents=True)
        try:
            session = Session(self.make_agent(), folder)
        except BaseException:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
            raise
        self._live[key] = session
        return session

    def close(self, key: str) -> None:
        """End the session `key` (its tab was closed): clean up its agent, delete its uploads."""
        with self._lock:
            session = self._live.pop(key, None)
        if session is not None:
            session.close(self.on_close)

    def close_all(self) -> None:
        """End every session (the server stops)."""
        with self._lock:
            sessions, self._live = list(self._live.values()), {}
        for session in sessions:
            session.close(self.on_close)

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, key: object) -> bool:
        return key in self._live

    def __getitem__(self, key: str) -> Session:
        return self._live[key]

    def pending_runs(self) -> set[str]:
        """The runs whose call a live session's approval panel shows (kept by the page's retention)."""
        with self._lock:
            return {s.pending.run_id for s in self._live.values() if s.pending is not None}

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._live)
