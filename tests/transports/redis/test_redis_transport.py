"""smol-transport-redis against a real redis-server: the conformance suite, at-least-once delivery
when an agent process is killed holding a message, and a team run over Redis."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from pathlib import Path

import pytest
from redis_helpers import receive_then_hang
from smol_transport_redis.transport import FIELD, RedisTransport

from smol_core import CodeAgent, ReceiveMessagesTool, run_agents
from smol_core.loading import load_transport
from smol_core.teams import Message
from smol_core.teams.message import encode
from smol_core.teams.transport import wire_text
from smol_core.testing import ScriptedModel
from smol_core.testing.transport_conformance import TransportConformance

sys.path.insert(0, str(Path(__file__).parents[2] / "teams"))
from team_helpers import descendants, five_plus_three, left_behind  # noqa: E402


class TestRedisTransport(TransportConformance):
    @pytest.fixture(autouse=True)
    def _url(self, redis_url):
        self.url = redis_url

    def make_transport(self, num_agents, max_message_bytes, **limits):
        return RedisTransport(self.url, num_agents=num_agents, max_message_bytes=max_message_bytes, **limits)

    def inject_raw(self, transport, agent_id, raw):
        transport.client.xadd(transport._inbox(agent_id), {FIELD: raw})

    def test_an_entry_with_other_fields_is_refused(self, transport):
        transport.client.xadd(transport._inbox(1), {b"x": b"1", FIELD: b"{}"})
        transport.send(Message(sender=0, recipient=1, body="ok"))
        assert [m.body for m in transport.receive(1, timeout=5)] == ["ok"]
        assert "not one message field" in transport.refused[0]


def test_the_plugin_is_found_by_name(redis_url):
    made = load_transport("redis", url=redis_url, num_agents=2)
    assert isinstance(made, RedisTransport)
    made.close()


def test_a_full_inbox_is_a_clear_error_and_each_sender_keeps_its_share(redis_url):
    transport = RedisTransport(redis_url, num_agents=2, max_inbox=4)
    for n in range(2):  # one sender's share: the inbox's bound divided among the team's agents
        transport.send(Message(sender=0, recipient=1, body=n))
    with pytest.raises(Exception, match="agent 1's inbox is full"):
        transport.send(Message(sender=0, recipient=1, body=2))
    for n in range(2):  # the other sender still has its own share
        transport.send(Message(sender=1, recipient=1, body=n))
    with pytest.raises(Exception, match="agent 1's inbox is full"):
        transport.send(Message(sender=1, recipient=1, body=2))


def test_a_process_without_the_team_keys_cannot_speak_as_an_agent(redis_url):
    """Anyone who reaches the server can write to a stream; nobody without the keys is believed."""
    team = RedisTransport(redis_url, num_agents=2)
    outsider = RedisTransport(redis_url, team=team.team)  # joined by name: holds no keys
    assert outsider.credentials is None
    outsider.send(Message(sender=0, recipient=1, body="I am agent 0"))
    team.client.xadd(team._inbox(1), {FIELD: encode(Message(sender=0, recipient=1, body="me too"))})
    assert team.receive(1, timeout=1.0) == []
    assert all("seal" in reason for reason in team.refused)


def _held_by_a_killed_reader(
    redis_url: str, body: str, claim_idle_seconds: float
) -> tuple[Message, RedisTransport]:
    """A message taken by agent 1's process, which is then SIGKILLed without acknowledging it; and
    the transport its replacement gets (started from the same pickled settings: a fresh one)."""
    transport = RedisTransport(redis_url, num_agents=2, claim_idle_seconds=claim_idle_seconds)
    sent = Message(sender=0, recipient=1, body=body)
    transport.send(sent)
    ctx = multiprocessing.get_context("spawn")
    got = ctx.Queue()
    holder = ctx.Process(target=receive_then_hang, args=(transport, 1, got))
    holder.start()
    try:
        assert got.get(timeout=60) == [sent.id]  # it has the message, and never acknowledges it
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.join()
    replacement = RedisTransport(
        redis_url,
        team=transport.team,
        num_agents=2,
        claim_idle_seconds=claim_idle_seconds,
        credentials=transport.credentials,
    )
    return sent, replacement


def test_a_message_held_by_a_killed_process_goes_to_its_replacement(redis_url):
    sent, replacement = _held_by_a_killed_reader(redis_url, "Compute 5 + 3", 0.5)
    model = ScriptedModel(["Thought: run it.\n<code>\nfinal_answer(5 + 3)\n</code>"])
    agent = CodeAgent(tools=[ReceiveMessagesTool(replacement, 1)], model=model, verbosity_level=-1)
    with agent:
        result = agent.run(task=None, return_full_result=True)
    assert result.output == 8
    assert [r["id"] for r in result.team_messages] == [sent.id]
    agent.tools["receive_messages"].acknowledge()
    # acknowledged: neither this reader nor a later one sees it again
    assert replacement.receive(1, timeout=1.0) == []
    later = RedisTransport(
        redis_url,
        team=replacement.team,
        num_agents=2,
        claim_idle_seconds=0.1,
        credentials=replacement.credentials,
    )
    assert later.receive(1, timeout=1.0) == []


def test_a_replacement_already_waiting_gets_what_the_dead_reader_held(redis_url):
    """The replacement's receive began before the dead reader's entry could be claimed (it must sit
    idle `claim_idle_seconds` first): it gets it while it waits, not only at its next receive."""
    sent, replacement = _held_by_a_killed_reader(redis_url, "held", 1.0)
    assert [m.id for m in replacement.receive(1, timeout=30)] == [sent.id]


def test_an_acknowledged_message_is_not_delivered_again(redis_url):
    first = RedisTransport(redis_url, num_agents=2, claim_idle_seconds=0.1)
    first.send(Message(sender=0, recipient=1, body="once"))
    (message,) = first.receive(1, timeout=5)
    first.ack(1, [message.id])
    second = RedisTransport(
        redis_url, team=first.team, num_agents=2, claim_idle_seconds=0.1, credentials=first.credentials
    )
    first.client.xadd(first._inbox(1), {FIELD: wire_text(message, 65536, first.credentials)})
    assert second.receive(1, timeout=1.0) == []  # a copy of an acknowledged id is dropped


def test_a_team_runs_over_redis(redis_url):
    before = descendants()
    result = run_agents(
        "Compute 5 + 3",
        num_agents=2,
        settings=five_plus_three(),
        transport="redis",
        transport_kwargs={"url": redis_url},
        deadline_seconds=120,
    )
    assert result.state == "success" and result.output == "8"
    assert left_behind(before) == []


def test_entries_written_past_the_script_do_not_starve_the_team(redis_url):
    """A process that reaches the server can XADD to a stream directly, past the send script: its
    entries are refused on receipt, and must not use up the room the team's senders have."""
    team = RedisTransport(redis_url, num_agents=2, max_inbox=4)
    for n in range(10):
        team.client.xadd(team._inbox(1), {FIELD: encode(Message(sender=0, recipient=1, body=n))})
    for n in range(2):  # sender 0's share is still whole
        team.send(Message(sender=0, recipient=1, body=f"real {n}"))
    got = []
    for _ in range(5):
        got.extend(team.receive(1, timeout=1.0))
    assert [m.body for m in got] == ["real 0", "real 1"]
