"""`ConsoleEcho`: the host's terminal shows what agents on the cluster write to theirs.

An agent's supervisor reads the agent's stderr (its steps and messages, each line prefixed with its
id) and puts it in the team's mailbox; the host takes it from there and prints it, so a team on a
cluster reads on the terminal like one of local processes.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING

from smol_core.plugin_api import MessagingError

if TYPE_CHECKING:
    from smol_transport_ray.transport import RayTransport


class ConsoleEcho:
    """Prints on the host's stderr what the agents on the cluster wrote to theirs (each line carries
    its agent's id already), every `interval` seconds and once more at the end."""

    def __init__(self, transport: RayTransport, interval: float = 0.2) -> None:
        self.transport = transport
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="smol-ray-console", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.drain()

    def drain(self) -> None:
        try:
            writes = self.transport.call("console_take", "read the agents' console")
        except MessagingError:  # the mailbox is gone: nothing more will come
            return
        if writes:
            sys.stderr.write("".join(str(text) for text in writes))
            sys.stderr.flush()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.drain()
