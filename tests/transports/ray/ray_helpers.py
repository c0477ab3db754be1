"""Module-level process bodies for the Ray tests (they must import under `spawn`)."""

from __future__ import annotations

import time


def receive_then_hang(transport, agent_id: int, got) -> None:
    """Read this agent's inbox, say what arrived, and never acknowledge it: then wait to be killed."""
    messages = transport.receive(agent_id, timeout=60)
    got.put([m.id for m in messages])
    while True:
        time.sleep(1)
