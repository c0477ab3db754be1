"""An agent's message log is bounded in bytes, not only in records: a peer sending large messages as
fast as they are read cannot grow the receiving agent's process through it."""

from __future__ import annotations

from smol_core.teams import tools
from smol_core.teams.message import Message
from smol_core.teams.tools import MessageLog


def test_the_log_keeps_bodies_up_to_its_byte_bound_and_then_only_the_record(monkeypatch):
    monkeypatch.setattr(tools, "MAX_LOGGED_BYTES", 10_000)
    log = MessageLog()
    for n in range(20):
        log.record("received", Message(sender=2, recipient=1, body="x" * 1000 + str(n)))
    kept = [r for r in log.records if r["message"] != tools.OMITTED]
    assert len(log.records) == 20  # who, when and the id of every message are still there
    assert 0 < len(kept) <= 10
    assert log.logged_bytes <= 10_000
    assert all(r["sender"] == 2 for r in log.records)
