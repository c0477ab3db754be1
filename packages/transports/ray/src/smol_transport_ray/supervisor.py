"""`AgentSupervisor`: a Ray actor that runs agents of a team as processes on its node, several per actor.

Why a process under an actor, not the agent inside the actor: an agent sets its own signal handlers
(SIGTERM: stop and report), dies with its parent, and takes a sandbox worker that dies with it; in a
Ray worker none of that would hold, and a killed agent would take the Ray worker with it. So the
actor starts the agent, forked from its warm template (`forks`, `agent_template`; a fresh
interpreter, `python -m smol_transport_ray.child`, where there is none), serves its transport calls
over a private socket (`relay`: the agent's process never imports Ray), sends what the agent writes
on stderr to the host's terminal through the mailbox, relays the host's stop requests as signals,
and returns the report the agent wrote. Each agent's sandbox worker forks from the worker template
the supervisor shares with its agents. When the actor is killed, its template reads its end of
their socket as closed and exits, and the kernel sends each agent SIGTERM (the agent asked for it:
its parent died); the agent's sandbox worker follows it.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from multiprocessing.connection import Listener
from typing import Any

from smol_core.plugin_api import TEMPLATE
from smol_transport_ray.forks import AgentTemplate, ForkedAgent
from smol_transport_ray.relay import RelayTransport, serve

READ_CHUNK = 65_536


class AgentSupervisor:
    """Agents' processes on this node, each started by its own `run` call, for any of the host's
    teams; made with `ray.remote(AgentSupervisor)` with many calls at once (`max_concurrency`: each
    `run` holds one while its agent runs, and a stop request must still get in).

    Why several agents per actor: a Ray worker process costs about a hundred MB and a second or two
    to start, far more than the agent it would watch; one per agent capped a team at a few dozen
    agents per machine. The agents stay processes of their own (one dying takes no other with it).
    An agent is known by its team's name and its id: two teams' agent 1 are two agents."""

    def __init__(self) -> None:
        self.children: dict[tuple[str, int], Child] = {}
        self.stopped: set[tuple[str, int]] = set()
        self.changed = threading.Condition()
        self.template = AgentTemplate()
        self.worker_template: str | bool | None = False
        """The sandbox worker template's socket, shared with the agents (False: not asked yet)."""
        self._sharing = threading.Lock()

    def warm(self, modules: list[str]) -> None:
        """Start the templates now (the agent template importing `modules` too), so that the first
        agent forks at once; asked as the supervisor is made."""
        self._worker_template()
        self.template.start(modules)

    def run(
        self,
        target: Callable[..., None],
        args: tuple[Any, ...],
        transport: Any,
        name: str,
        max_report_bytes: int,
    ) -> tuple[int | None, str | None]:
        """Run `target(*args, relay, done, report_path)`, `args` being `(agent_id, task, settings)`,
        in a process of its own until it ends: (its exit code, its report)."""
        key = (str(transport.name), int(args[0]))
        folder = tempfile.mkdtemp(prefix="smol-agent-")  # private (0700): the socket and the report
        authkey = os.urandom(32)
        address = os.path.join(folder, "relay")
        listener = Listener(address, family="AF_UNIX", authkey=authkey)
        relay = RelayTransport(
            address, authkey, key[1], list(transport.agent_ids()), transport.max_message_bytes
        )
        report_path = os.path.join(folder, "report.json")
        closing = threading.Event()
        threading.Thread(target=_accept, args=(listener, closing, transport, key[1]), daemon=True).start()
        try:
            # pickled before the process starts: what cannot be pickled fails here, with no one waiting
            work = pickle.dumps((target, (*args, relay), report_path, self._worker_template()))
            child = self._start(key, work, modules_of(target, args))
            if child is None:
                return None, None
            console = threading.Thread(target=_pump, args=(child.stderr_fd, transport), daemon=True)
            console.start()
            exitcode = child.wait()
            console.join()
            # what the agent's last sends left in this process's outbox goes before its end is told
            with contextlib.suppress(Exception):
                transport.flush()
            return exitcode, _read(report_path, max_report_bytes)
        finally:
            closing.set()
            listener.close()
            shutil.rmtree(folder, ignore_errors=True)

    def _start(self, key: tuple[str, int], work: bytes, modules: list[str]) -> Child | None:
        """The agent's process, forked from the template (or a fresh interpreter where there is
        none); None if the agent was stopped before it started."""
        with self.changed:
            if key in self.stopped:
                return None
        try:
            child: Child | None = self.template.start_agent(work, modules)
        except OSError:  # the template died as it forked: the agent ends unstarted, said killed
            return None
        if child is None:
            child = FreshAgent(work)
        with self.changed:
            self.children[key] = child
            self.changed.notify_all()
            if key in self.stopped:  # stopped while it started
                child.kill()
        return child

    def _worker_template(self) -> str | None:
        """The sandbox worker template this supervisor shares with its agents (started once): each
        agent's sandbox worker is a fork of it, not a new interpreter. None where it cannot be."""
        with self._sharing:
            if self.worker_template is False:
                self.worker_template = TEMPLATE.share()
            return self.worker_template if isinstance(self.worker_template, str) else None

    def template_pid(self) -> int | None:
        """The pid of the warm template this supervisor forks its agents from (None: none runs)."""
        return self.template.pid

    def agents(self, team: str | None = None) -> list[int]:
        """The ids of the agents of `team` (None: of every team it serves) whose processes this
        supervisor has started, running or ended, until the team's launcher closes."""
        with self.changed:
            return sorted({agent for name, agent in self.children if team in (None, name)})

    def running(self) -> list[tuple[str, int]]:
        """The agents whose processes still run: (team, agent id)."""
        with self.changed:
            return sorted(key for key, child in self.children.items() if child.poll() is None)

    def node(self) -> str:
        """The id of the Ray node this supervisor (and so its agents) runs on."""
        import ray

        return str(ray.get_runtime_context().get_node_id())

    def pid(self, agent_id: int, team: str | None = None) -> int | None:
        """Agent `agent_id`'s process id on this node (of `team`; None: of the team that started it
        last), once it has started (None: it never did)."""

        def found() -> tuple[str, int] | None:
            keys = [key for key in [*self.children, *self.stopped] if key[1] == agent_id]
            return next((key for key in reversed(keys) if team in (None, key[0])), None)

        with self.changed:
            key = self.changed.wait_for(found, 60.0)
            child = self.children.get(key) if key is not None else None
        return None if child is None else child.pid

    def terminate(self, team: str, agent_id: int) -> None:
        """SIGTERM: the agent stops where it is and writes its report."""
        self._stop((team, agent_id), kill=False)

    def kill(self, team: str, agent_id: int) -> None:
        self._stop((team, agent_id), kill=True)

    def forget(self, team: str) -> None:
        """The team has ended (its launcher closed): drop what this supervisor knew of its agents."""
        with self.changed:
            for key in [key for key in self.children if key[0] == team]:
                del self.children[key]
            self.stopped = {key for key in self.stopped if key[0] != team}

    def _stop(self, key: tuple[str, int], kill: bool) -> None:
        with self.changed:
            self.stopped.add(key)  # not started yet: it never will be
            child = self.children.get(key)
        if child is not None and child.poll() is None:
            child.kill() if kill else child.terminate()


def _accept(listener: Listener, closing: threading.Event, transport: Any, agent_id: int) -> None:
    """Serve each connection the agent's process opens (one per thread of it) until the end."""
    while not closing.is_set():
        try:
            connection = listener.accept()
        except Exception:  # closed (the agent has ended), or a caller without the key was refused
            continue
        threading.Thread(target=serve, args=(connection, transport, agent_id), daemon=True).start()


def modules_of(target: Callable[..., None], args: tuple[Any, ...]) -> list[str]:
    """The modules an agent imports as it unpickles its work: the team's agent body and its model's
    class (`args` are `(agent_id, task, settings)`), imported once in the template instead."""
    body = getattr(target, "func", target)  # a durable team's body is a partial
    model = getattr(args[2], "model", None)
    names = [getattr(body, "__module__", None), None if model is None else type(model).__module__]
    return [name for name in names if isinstance(name, str) and name != "__main__"]


class FreshAgent:
    """An agent started as a fresh interpreter (`python -m smol_transport_ray.child`), where no
    template can fork it: the same face as a `ForkedAgent`."""

    def __init__(self, work: bytes) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "smol_transport_ray.child"], stdin=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.pid = self.process.pid
        assert self.process.stdin is not None and self.process.stderr is not None
        self.stderr_fd = os.dup(self.process.stderr.fileno())  # the reader's, to close: as a fork's
        self.process.stderr.close()
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.write(work)
            self.process.stdin.close()

    def wait(self) -> int:
        return self.process.wait()

    def poll(self) -> int | None:
        return self.process.poll()

    def terminate(self) -> None:
        self.process.terminate()

    def kill(self) -> None:
        self.process.kill()


Child = ForkedAgent | FreshAgent


def _pump(fd: int, transport: Any) -> None:
    """What the agent writes on stderr (`fd`, closed here at its end), to the host's terminal
    through the mailbox, as it comes."""
    actor = transport.actor
    decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a character may span two reads
    with open(fd, "rb", buffering=0, closefd=True) as stream:
        while True:
            chunk = stream.read(READ_CHUNK)
            text = decoder.decode(chunk, final=not chunk)
            if text:
                actor.console_put.remote(text)
            if not chunk:
                break
    with contextlib.suppress(Exception):  # answered: every write before it has arrived
        transport.call("console_put", "relay the console", "")


def _read(path: str, max_bytes: int) -> str | None:
    """The report as written, or None: missing, unreadable, or over the bound (the host refuses it)."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError:
        return None
    if len(raw) > max_bytes:
        return None
    return raw.decode("utf-8", "replace")
