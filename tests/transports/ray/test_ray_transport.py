"""smol-transport-ray on a real local Ray cluster: the conformance suite, the mailbox's own bounds,
at-least-once delivery when an agent process is killed holding a message, and a mailbox that is
gone being an error rather than a hang."""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading

import pytest
import ray
from ray_helpers import receive_then_hang
from smol_transport_ray import cluster
from smol_transport_ray.relay import serve
from smol_transport_ray.transport import RayTransport

from smol_core import CodeAgent, ReceiveMessagesTool
from smol_core.loading import load_transport
from smol_core.teams import Message, MessagingError
from smol_core.teams.message import encode
from smol_core.teams.transport import wire_text
from smol_core.testing import ScriptedModel
from smol_core.testing.transport_conformance import MAX_BYTES, TransportConformance


def inject(transport: RayTransport, agent_id: int, raw, declared_id=None) -> str:
    """Put `raw` in the mailbox as it is, past every check `send` makes (what a hostile peer can do)."""
    return ray.get(transport.actor.put.remote(agent_id, raw, declared_id))


class TestRayTransport(TransportConformance):
    # each send is one answered call to the mailbox (~1 ms): 100k would take minutes of CI, and
    # bench/team_messages.py measures the rate; 10k still fills a whole default inbox's worth
    flood_size = 10_000

    @pytest.fixture(autouse=True)
    def _cluster(self, ray_address):
        self.address = ray_address

    def make_transport(self, num_agents, max_message_bytes, **limits):
        return RayTransport(
            self.address, num_agents=num_agents, max_message_bytes=max_message_bytes, **limits
        )

    def inject_raw(self, transport, agent_id, raw):
        inject(transport, agent_id, raw)

    def test_a_message_whose_declared_id_is_not_its_own_is_refused(self, transport):
        message = Message(sender=0, recipient=1, body="forged")
        keys = transport.credentials
        inject(transport, 1, wire_text(message, MAX_BYTES, keys), declared_id="another-id")
        inject(transport, 1, wire_text(Message(sender=0, recipient=1, body="undeclared"), MAX_BYTES, keys))
        transport.send(Message(sender=0, recipient=1, body="ok"))
        assert [m.body for m in transport.receive(1, timeout=5)] == ["ok"]
        assert transport.refused == [
            "a message arrived whose id is not the one its sender declared",
            "a message arrived whose id is not the one its sender declared",
        ]


def test_the_plugin_is_found_by_name(ray_address):
    made = load_transport("ray", url=ray_address, num_agents=2)
    assert isinstance(made, RayTransport)
    made.close()


def test_a_full_inbox_is_a_clear_error_and_each_sender_keeps_its_share(ray_address):
    transport = RayTransport(ray_address, num_agents=2, max_inbox=4)
    for n in range(2):  # one sender's share: the inbox's bound divided among the team's agents
        transport.send(Message(sender=0, recipient=1, body=n))
    with pytest.raises(MessagingError, match="agent 1's inbox is full"):
        transport.send(Message(sender=0, recipient=1, body=2))
    for n in range(2):
        transport.send(Message(sender=1, recipient=1, body=n))
    with pytest.raises(MessagingError, match="agent 1's inbox is full"):
        transport.send(Message(sender=1, recipient=1, body=2))
    transport.close()


def test_the_mailbox_bounds_what_a_hostile_peer_puts_in_it(ray_address):
    transport = RayTransport(ray_address, num_agents=2, max_message_bytes=1000)
    assert inject(transport, 1, "x" * 5000) == "too_large"
    assert inject(transport, 1, {"not": "text"}) == "not_text"
    assert inject(transport, 9, "{}") == "unknown"
    assert transport.receive(1, timeout=0.2) == []
    transport.close()


def test_a_message_held_by_a_killed_process_goes_to_its_replacement(ray_address):
    transport = RayTransport(ray_address, num_agents=2, claim_idle_seconds=0.5)
    sent = Message(sender=0, recipient=1, body="Compute 5 + 3")
    transport.send(sent)
    ctx = multiprocessing.get_context("spawn")
    got = ctx.Queue()
    holder = ctx.Process(target=receive_then_hang, args=(transport, 1, got))
    holder.start()
    try:
        assert got.get(timeout=120) == [sent.id]  # it has the message, and never acknowledges it
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.join()
    # a new agent process would be started from the same (pickled) settings: the same team's mailbox
    replacement = RayTransport(
        ray_address, team=transport.team, num_agents=2, credentials=transport.credentials
    )
    model = ScriptedModel(["Thought: run it.\n<code>\nfinal_answer(5 + 3)\n</code>"])
    agent = CodeAgent(tools=[ReceiveMessagesTool(replacement, 1)], model=model, verbosity_level=-1)
    with agent:
        result = agent.run(task=None, return_full_result=True)
    assert result.output == 8
    assert [r["id"] for r in result.team_messages] == [sent.id]
    agent.tools["receive_messages"].acknowledge()
    # acknowledged: neither this reader nor a later one sees it again, nor a copy sent again
    assert replacement.receive(1, timeout=1.0) == []
    later = RayTransport(ray_address, team=transport.team, num_agents=2, credentials=transport.credentials)
    inject(later, 1, wire_text(sent, 65536, transport.credentials), declared_id=sent.id)
    assert later.receive(1, timeout=1.0) == []
    transport.close()


def test_a_mailbox_that_is_gone_is_a_clear_error_not_a_hang(ray_address):
    transport = RayTransport(ray_address, num_agents=2)
    joined = pickle.loads(pickle.dumps(transport))  # what an agent's process receives
    transport.close()  # the host ends the run: its mailbox actor is killed
    with pytest.raises(MessagingError, match="mailbox"):
        joined.send(Message(sender=0, recipient=1, body="anyone?"))
    with pytest.raises(MessagingError, match="mailbox"):
        joined.receive(1, timeout=None)


def relay_request(connection, **request):
    connection.send_bytes(json.dumps(request).encode())
    return json.loads(connection.recv_bytes())


def test_an_agents_relay_serves_that_agent_only(ray_address):
    """The supervisor answers its agent's process on the agent's behalf: it sends as that agent,
    receives and acknowledges for it, and refuses anything else."""
    transport = RayTransport(ray_address, num_agents=2)
    supervisor_side, agent_side = multiprocessing.Pipe()
    server = threading.Thread(target=serve, args=(supervisor_side, transport, 1), daemon=True)
    server.start()
    forged = encode(Message(sender=0, recipient=1, body="I am agent 0"))
    assert relay_request(agent_side, op="send", message=forged)["error"] == "MessageRefusedError"
    assert relay_request(agent_side, op="receive", agent=0, timeout=0)["error"] == "MessageRefusedError"
    assert (
        relay_request(agent_side, op="status_mark", agent=0, state="dead")["error"] == "MessageRefusedError"
    )
    assert relay_request(agent_side, op="nonsense", agent=1)["error"] == "MessageRefusedError"
    assert relay_request(agent_side, op="send", message="not json")["error"] == "MessageRefusedError"

    transport.send(Message(sender=0, recipient=1, body="for agent 1"))
    answer = relay_request(agent_side, op="receive", agent=1, timeout=5, limit=10)
    (text,) = answer["result"]
    assert json.loads(text)["body"] == "for agent 1"
    reply = encode(Message(sender=1, recipient=0, body="thanks"))
    assert relay_request(agent_side, op="send", message=reply) == {"result": None}
    assert [m.body for m in transport.receive(0, timeout=5)] == ["thanks"]
    agent_side.close()
    server.join(10)
    transport.close()


def test_an_address_where_no_cluster_answers_is_a_clear_error_at_once():
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(MessagingError, match=f"could not join the Ray cluster at 127.0.0.1:{port}"):
        cluster._probe(f"127.0.0.1:{port}")  # what `ray.init` would retry for minutes


def test_discovering_the_plugin_imports_no_ray():
    code = "import sys, smol_transport_ray._plugin as p; p.smol_transports(); print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_puts_that_name_no_sender_or_another_do_not_starve_a_sender(ray_address):
    """Any process on the cluster can call `put`: what it puts counts against its own (anonymous)
    quota or the sender it names, never against the room another sender has."""
    transport = RayTransport(ray_address, num_agents=2, max_inbox=4)
    junk = encode(Message(sender=0, recipient=1, body="junk"))
    assert [inject(transport, 1, junk) for _ in range(3)] == ["ok", "ok", "quota"]
    assert ray.get(transport.actor.put.remote(1, junk, None, 1)) == "ok"
    assert ray.get(transport.actor.put.remote(1, junk, None, 1)) == "ok"
    for n in range(2):  # sender 0's share is still whole
        transport.send(Message(sender=0, recipient=1, body=f"real {n}"))
    got = []
    for _ in range(5):
        got.extend(transport.receive(1, timeout=1.0))
    assert [m.body for m in got] == ["real 0", "real 1"]
    transport.close()


def test_a_hosts_later_teams_take_a_spare_mailbox_made_ahead_of_them(ray_address):
    """From its second team on, a host keeps one empty mailbox ready (its worker starts while a team
    runs); the next team configures it and uses it like any other, and a new spare is made. A spare
    that someone else configured first is left to them: the team makes its own."""
    from smol_transport_ray.pool import close_supervisors
    from smol_transport_ray.spares import SPARES

    close_supervisors()
    earlier = [RayTransport(url=ray_address, num_agents=2) for _ in range(2)]
    (spare,) = SPARES.names()
    taken = RayTransport(url=ray_address, num_agents=3)
    assert taken.name == spare and SPARES.names() not in ([], [spare])
    taken.send(Message(sender=0, recipient=2, body="through the spare"))
    assert [m.body for m in taken.receive(2, timeout=10)] == ["through the spare"]
    assert sorted(taken.agent_ids()) == [0, 1, 2]

    (next_spare,) = SPARES.names()
    assert ray.get(ray.get_actor(next_spare, namespace="smol").configure.remote([0, 1], 1024)) is True
    own = RayTransport(url=ray_address, num_agents=2)
    assert own.name != next_spare  # configured by another: not this team's
    for transport in [*earlier, taken, own]:
        transport.close()
    assert spare not in {actor["name"] for actor in ray.util.list_named_actors(all_namespaces=True)}
    close_supervisors()
