"""Redis restarted under a running team: clear errors while it is down, and the team goes on after.

Each test runs its own redis-server (the session's is shared by the other tests), stops it, and
starts it again on the same port and folder.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from smol_transport_redis.transport import RedisTransport

from smol_core import Message
from smol_core.teams.errors import MessagingError


class Server:
    """A redis-server that can be stopped and started again with the same port and data folder."""

    def __init__(self, folder: Path, persistent: bool) -> None:
        self.binary = shutil.which("redis-server") or pytest.skip("redis-server is not installed")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self.folder, self.persistent = folder, persistent
        self.process: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        persistence = (
            ["--appendonly", "yes", "--appendfsync", "always"] if self.persistent else ["--appendonly", "no"]
        )
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                *persistence,
                "--dir",
                str(self.folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(200):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()  # a clean shutdown: the append-only file is complete
            self.process.wait(timeout=20)
            self.process = None


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Server]:
    made = Server(tmp_path, persistent=request.param)
    made.start()
    yield made
    made.stop()


def messages(n: int) -> list[Message]:
    return [Message(sender=0, recipient=1, body={"n": i}) for i in range(n)]


@pytest.mark.parametrize("server", [True], indirect=True)
def test_with_persistence_nothing_is_lost_and_errors_while_down_are_clear(server: Server) -> None:
    transport = RedisTransport(server.url, num_agents=2)
    for message in messages(5):
        transport.send(message)
    server.stop()
    started = time.monotonic()
    with pytest.raises(MessagingError, match=r"Redis at 127\.0\.0\.1:\d+ is not reachable .* while sending"):
        transport.send(Message(sender=0, recipient=1, body="while down"))
    with pytest.raises(MessagingError, match="while receiving"):
        transport.receive(1, timeout=0)
    assert time.monotonic() - started < 30  # an error, not a hang
    server.start()
    got = transport.receive(1, timeout=5)
    assert [m.body for m in got] == [{"n": i} for i in range(5)]
    transport.ack(1, [m.id for m in got])
    transport.send(Message(sender=0, recipient=1, body="after"))
    assert [m.body for m in transport.receive(1, timeout=5)] == ["after"]
    transport.close()


@pytest.mark.parametrize("server", [False], indirect=True)
def test_without_persistence_the_inboxes_are_made_again_and_the_team_goes_on(server: Server) -> None:
    transport = RedisTransport(server.url, num_agents=2)
    transport.send(messages(1)[0])
    server.stop()
    server.start()
    assert transport.receive(1, timeout=0) == []  # what was unread went with the server
    transport.send(Message(sender=0, recipient=1, body="after"))
    assert [m.body for m in transport.receive(1, timeout=5)] == ["after"]
    transport.close()


def test_a_server_that_is_down_when_the_team_starts_is_one_clear_error(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    with pytest.raises(MessagingError, match="not reachable .* while making the team's inboxes") as caught:
        RedisTransport(f"redis://127.0.0.1:{port}/0", num_agents=2)
    assert "\n" not in str(caught.value)  # (a password in a URL is refused before: test_redis_access.py)
