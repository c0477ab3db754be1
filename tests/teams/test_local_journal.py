"""The local transport's journaled inboxes (a durable team's): an agent started again after its
process died is handed what the dead one had taken from its inbox and not yet recorded anywhere,
and nothing it had handed over before."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

from smol_core.teams.local import LocalTransport
from smol_core.teams.message import Message
from smol_core.teams.tools import ReceiveMessagesTool, SendMessageTool


def _process_view(transport: LocalTransport) -> LocalTransport:
    """The transport as an agent's process receives it: its state as it pickles (no ids seen), and
    inboxes of its own (each pickles as its path); the shared quota counters are the team's."""
    view = LocalTransport.__new__(LocalTransport)
    view.__dict__.update(transport.__getstate__())
    view.queues = {
        agent_id: pickle.loads(pickle.dumps(inbox)) for agent_id, inbox in transport.queues.items()
    }
    return view


def test_what_a_dead_reader_took_after_its_last_checkpoint_comes_again_and_nothing_else(
    tmp_path: Path,
) -> None:
    team = LocalTransport(num_agents=2, folder=str(tmp_path), journal=True)
    sender = SendMessageTool(_process_view(team), 0)
    for body in ("one", "two"):
        sender.forward(1, body)

    first = ReceiveMessagesTool(_process_view(team), 1)
    assert [m["message"] for m in first.forward(timeout=5)] == ["one", "two"]
    saved = first.durable_state()  # the step that read them is checkpointed with this
    sender.forward(1, "three")
    assert [m["message"] for m in first.forward(timeout=5)] == ["three"]
    # ...and the process dies before the step that took "three" is saved anywhere

    again = ReceiveMessagesTool(_process_view(team), 1)
    again.restore_durable_state(saved)
    assert [m["message"] for m in again.forward(timeout=5)] == ["three"]
    assert again.forward() == []
    journal = Path(team.queues[1].path + ".taken")
    assert journal.stat().st_size == 0  # everything handed over is acknowledged: forgotten
    team.close()


def test_without_a_journal_no_file_is_written(tmp_path: Path) -> None:
    team = LocalTransport(num_agents=2, folder=str(tmp_path))
    view = _process_view(team)
    view.send(Message(sender=0, recipient=1, body="x"))
    assert [m.body for m in view.receive(1, timeout=5)] == ["x"]
    assert not os.path.exists(team.queues[1].path + ".taken")
    team.close()
