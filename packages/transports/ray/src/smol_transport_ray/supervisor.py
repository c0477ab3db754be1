"""`AgentSupervisor`: a Ray actor that runs agents of a team as processes on its node, several per actor.

Why a process under an actor, not the agent inside the actor: an agent sets its own signal handlers
(SIGTERM: stop and report), dies with its parent, and takes a sandbox worker that dies with it; in a
Ray worker none of that would hold, and a killed agent would take the Ray worker with it. So the
actor starts the agent (`python -m smol_transport_ray.child`), serves its transport calls over a
private socket (`relay`: the agent's process never imports Ray), sends what the agent writes on
stderr to the host's terminal through the mailbox, relays the host's stop requests as signals, and
returns the report the agent wrote. When the actor is killed, the kernel sends the agent SIGTERM
(the agent asked for it: its parent died), and the agent's sandbox worker follows it.
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

from smol_transport_ray.relay import RelayTransport, serve

READ_CHUNK = 65_536


class AgentSupervisor:
    """Several agents' processes on this node, each started by its own `run` call; made with
    `ray.remote(AgentSupervisor)` with many calls at once (`max_concurrency`: each `run` holds one
    while its agent runs, and a stop request must still get in).

    Why several agents per actor: a Ray worker process costs about a hundred MB and a second or two
    to start, far more than the agent it would watch; one per agent capped a team at a few dozen
    agents per machine. The agents stay processes of their own (one dying takes no other with it)."""

    def __init__(self) -> None:
        self.children: dict[int, subprocess.Popen[bytes]] = {}
        self.stopped: set[int] = set()
        self.changed = threading.Condition()

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
        agent_id = int(args[0])
        folder = tempfile.mkdtemp(prefix="smol-agent-")  # private (0700): the socket and the report
        authkey = os.urandom(32)
        address = os.path.join(folder, "relay")
        listener = Listener(address, family="AF_UNIX", authkey=authkey)
        relay = RelayTransport(
            address, authkey, agent_id, list(transport.agent_ids()), transport.max_message_bytes
        )
        report_path = os.path.join(folder, "report.json")
        closing = threading.Event()
        threading.Thread(target=_accept, args=(listener, closing, transport, agent_id), daemon=True).start()
        try:
            # pickled before the process starts: what cannot be pickled fails here, with no one waiting
            payload = pickle.dumps((target, (*args, relay), report_path))
            with self.changed:
                if agent_id in self.stopped:
                    return None, None
                child = self.children[agent_id] = subprocess.Popen(
                    [sys.executable, "-m", "smol_transport_ray.child"],
                    stdin=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
                self.changed.notify_all()
            console = threading.Thread(target=_pump, args=(child.stderr, transport), daemon=True)
            console.start()
            assert child.stdin is not None
            with contextlib.suppress(BrokenPipeError):
                child.stdin.write(payload)
                child.stdin.close()
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

    def agents(self) -> list[int]:
        """The ids of the agents whose processes this supervisor has started (running or ended)."""
        with self.changed:
            return sorted(self.children)

    def node(self) -> str:
        """The id of the Ray node this supervisor (and so its agents) runs on."""
        import ray

        return str(ray.get_runtime_context().get_node_id())

    def pid(self, agent_id: int) -> int | None:
        """Agent `agent_id`'s process id on this node, once it has started (None: it never did)."""
        with self.changed:
            self.changed.wait_for(lambda: agent_id in self.children or agent_id in self.stopped, 60.0)
            child = self.children.get(agent_id)
        return None if child is None else child.pid

    def terminate(self, agent_id: int) -> None:
        """SIGTERM: the agent stops where it is and writes its report."""
        self._stop(agent_id, kill=False)

    def kill(self, agent_id: int) -> None:
        self._stop(agent_id, kill=True)

    def _stop(self, agent_id: int, kill: bool) -> None:
        with self.changed:
            self.stopped.add(agent_id)  # not started yet: it never will be
            child = self.children.get(agent_id)
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


def _pump(stream: Any, transport: Any) -> None:
    """What the agent writes on stderr, to the host's terminal through the mailbox, as it comes."""
    actor = transport.actor
    decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a character may span two reads
    while True:
        chunk = os.read(stream.fileno(), READ_CHUNK)
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
