"""`TransportConformance`: what every message transport owes a team of agents, as a pytest class.

Why a shared suite: an agent must not behave differently because its messages travel through
multiprocessing queues, Redis or Ray. Subclass it in your transport's tests:

    from smol_core.testing.transport_conformance import TransportConformance

    class TestMyTransport(TransportConformance):
        def make_transport(self, num_agents, max_message_bytes, **limits):
            return MyTransport(num_agents=num_agents, max_message_bytes=max_message_bytes, **limits)

        def inject_raw(self, transport, agent_id, raw):
            ...  # put `raw` (str or bytes, as it is) on agent_id's queue, bypassing `send`

The suite checks order per sender, no loss, de-duplication by id, receive timeouts (an empty queue
returns `[]`, never hangs), clear errors for an unknown recipient, an oversized message, a message
that is not data and a peer that has ended, and that hostile bytes on the wire are refused without
harming the receiver. And the attacks of one agent on the others: speaking as another agent (at the
sender, and with forged, re-sealed or replayed entries on the wire), and filling a peer's inbox or
memory so that the other senders are refused (every sender has a quota of messages and bytes in
every inbox; `limits` are `max_pending_per_sender` and `max_pending_bytes_per_sender`). The
transport `make_transport` returns is the team's launcher's (it holds the team's keys);
`for_agent(transport, i)` is agent `i`'s view. Needs pytest.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from smol_core.teams.errors import (
    MessageRefusedError,
    MessageTooLargeError,
    MessagingError,
    PeerGoneError,
    UnknownRecipientError,
)
from smol_core.teams.identity import AgentKeys, TeamKeys, for_agent, seal
from smol_core.teams.message import Message, encode
from smol_core.teams.status import PeerStatus
from smol_core.teams.transport import Transport

MAX_BYTES = 4096
NUM_AGENTS = 3


class TransportConformance:
    """Subclass and implement `make_transport` and `inject_raw`."""

    flood_size = 100_000
    """How many messages the flood test sends one receiver."""

    def make_transport(self, num_agents: int, max_message_bytes: int, **limits: int) -> Transport:
        """A fresh team's transport, as its launcher holds it; `limits` are per-sender quotas."""
        raise NotImplementedError

    def inject_raw(self, transport: Transport, agent_id: int, raw: str | bytes) -> None:
        """Put `raw` on `agent_id`'s queue exactly as given (what a hostile peer could write)."""
        raise NotImplementedError

    @pytest.fixture
    def transport(self) -> Iterator[Transport]:
        made = self.make_transport(NUM_AGENTS, MAX_BYTES)
        yield made
        made.close()

    def receive_all(self, transport: Transport, agent_id: int, expected: int) -> list[Message]:
        """Receive until `expected` messages came or a receive waits 5 s in vain."""
        got: list[Message] = []
        while len(got) < expected:
            batch = transport.receive(agent_id, timeout=5.0)
            if not batch:
                break
            transport.ack(agent_id, [m.id for m in batch])
            got.extend(batch)
        return got

    # --- delivery ----------------------------------------------------------------------------

    def test_the_protocol_is_implemented(self, transport: Transport) -> None:
        assert isinstance(transport, Transport)
        assert sorted(transport.agent_ids()) == list(range(NUM_AGENTS))

    def test_a_message_arrives_with_sender_recipient_id_and_timestamp(self, transport: Transport) -> None:
        sent = Message(sender=0, recipient=1, body={"code": "print(5 + 3)", "n": [1, 2.5, None, True]})
        transport.send(sent)
        (got,) = self.receive_all(transport, 1, 1)
        assert got == sent
        assert transport.receive(0, timeout=0) == []

    def test_order_per_sender_and_no_loss(self, transport: Transport) -> None:
        for n in range(60):
            transport.send(Message(sender=0, recipient=2, body=n))
            transport.send(Message(sender=1, recipient=2, body=f"b{n}"))
        got = self.receive_all(transport, 2, 120)
        assert [m.body for m in got if m.sender == 0] == list(range(60))
        assert [m.body for m in got if m.sender == 1] == [f"b{n}" for n in range(60)]

    def test_a_flood_arrives_whole_and_in_order(self, transport: Transport) -> None:
        """`flood_size` messages from one sender while the receiver drains: none lost, none twice, in
        order. A transport that bounds an inbox may refuse a send as full (a clear error); the
        sender then waits, as an agent told so would."""
        total, failures = self.flood_size, []

        def flood() -> None:
            n = 0
            try:
                while n < total:
                    try:
                        transport.send(Message(sender=0, recipient=1, body=n))
                        n += 1
                    except MessagingError as error:
                        if "full" not in str(error):
                            raise
                        time.sleep(0.01)
            except BaseException as error:  # reported by the test below, not lost in the thread
                failures.append(error)

        sender = threading.Thread(target=flood, name="flood", daemon=True)
        sender.start()
        got: list[Any] = []
        while len(got) < total:
            batch = transport.receive(1, timeout=10.0, limit=1000)
            if not batch:
                break
            transport.ack(1, [m.id for m in batch])
            got.extend(m.body for m in batch)
        sender.join(timeout=30)
        assert not failures, failures
        assert len(got) == total and got == list(range(total))

    def test_receive_takes_at_most_limit_and_keeps_the_rest(self, transport: Transport) -> None:
        for n in range(5):
            transport.send(Message(sender=0, recipient=1, body=n))
        first: list[Message] = []
        while len(first) < 2:  # a queue may hand messages over one at a time as they arrive
            batch = transport.receive(1, timeout=5.0, limit=2 - len(first))
            assert batch, "a message was lost"
            transport.ack(1, [m.id for m in batch])
            first.extend(batch)
        assert [m.body for m in first] == [0, 1]
        assert [m.body for m in self.receive_all(transport, 1, 3)] == [2, 3, 4]

    def test_a_message_sent_twice_is_seen_once(self, transport: Transport) -> None:
        message = Message(sender=0, recipient=1, body="once")
        transport.send(message)
        transport.send(message)
        transport.send(Message(sender=0, recipient=1, body="after"))
        got = self.receive_all(transport, 1, 2)
        assert [m.body for m in got] == ["once", "after"]
        assert transport.receive(1, timeout=0.2) == []

    # --- waiting -----------------------------------------------------------------------------

    def test_an_empty_queue_returns_nothing_after_the_timeout(self, transport: Transport) -> None:
        assert transport.receive(1, timeout=0) == []
        assert transport.receive(1, timeout=0.3) == []

    def test_a_waiting_receive_gets_a_message_sent_later(self, transport: Transport) -> None:
        def later() -> None:
            time.sleep(0.3)
            transport.send(Message(sender=0, recipient=1, body="late"))

        sender = threading.Thread(target=later)
        sender.start()
        try:
            got = transport.receive(1, timeout=30.0)
        finally:
            sender.join()
        assert [m.body for m in got] == ["late"]

    # --- errors the model sees -----------------------------------------------------------------

    def test_an_unknown_recipient_is_a_clear_error(self, transport: Transport) -> None:
        with pytest.raises(UnknownRecipientError, match="no agent 7"):
            transport.send(Message(sender=0, recipient=7, body="hi"))

    def test_an_oversized_message_is_a_clear_error_and_is_not_delivered(self, transport: Transport) -> None:
        with pytest.raises(MessageTooLargeError, match="limit"):
            transport.send(Message(sender=0, recipient=1, body="x" * (MAX_BYTES + 1)))
        assert transport.receive(1, timeout=0.2) == []

    @pytest.mark.parametrize("body", [{1, 2}, b"bytes", object(), float("nan"), {1: "int key"}])
    def test_a_body_that_is_not_data_is_refused_at_the_sender(self, transport: Transport, body: Any) -> None:
        with pytest.raises(MessageRefusedError):
            transport.send(Message(sender=0, recipient=1, body=body))

    def test_a_peer_that_has_ended_is_a_clear_error_not_a_hang(self, transport: Transport) -> None:
        if not hasattr(transport, "status"):
            pytest.skip("this transport does not take a team's peer status")
        status = PeerStatus(NUM_AGENTS)
        transport.status = status
        status.mark(2, "dead")
        with pytest.raises(PeerGoneError, match="agent 2 has died"):
            transport.send(Message(sender=0, recipient=2, body="anyone?"))
        status.mark(1, "finished")
        with pytest.raises(PeerGoneError, match="agent 1 has stopped"):
            transport.send(Message(sender=0, recipient=1, body="anyone?"))

    # --- hostile wire ----------------------------------------------------------------------------

    def hostile_frames(self) -> list[str | bytes]:
        good = encode(Message(sender=0, recipient=1, body="x"))
        return [
            "not json",
            b"\xff\xfe not utf-8",
            "[1, 2, 3]",
            '"just a string"',
            good.replace('"body"', '"payload"'),
            good[:-1] + ',"extra":1}',
            good.replace('"sender":0', '"sender":-1'),
            good.replace('"sender":0', '"sender":true'),
            good.replace('"sender":0', '"sender":"0"'),
            good.replace('"recipient":1', '"recipient":2'),  # addressed to someone else
            good.replace('"body":"x"', '"body":NaN'),
            good.replace('"timestamp":', '"timestamp":"yesterday","_":'),
            '{"id":"' + "i" * 500 + '","sender":0,"recipient":1,"timestamp":1,"body":1}',
            "[" * 3000 + "]" * 3000,
            '{"body":"' + "y" * (MAX_BYTES * 2) + '"}',
        ]

    def test_hostile_frames_are_refused_and_the_receiver_goes_on(self, transport: Transport) -> None:
        frames = self.hostile_frames()
        keys = getattr(transport, "credentials", None)
        if keys is not None:  # the same frames sealed by a key holder: the checks behind the seal
            frames += [seal(raw, 0, 1, keys) for raw in frames if isinstance(raw, str)]
        for raw in frames:
            self.inject_raw(transport, 1, raw)
        transport.send(Message(sender=0, recipient=1, body="still here"))
        got: list[Message] = []
        for _ in range(len(frames) + 2):
            got.extend(transport.receive(1, timeout=2.0))
            if got:
                break
        assert [m.body for m in got] == ["still here"]
        refused = getattr(transport, "refused", None)
        if refused is not None:
            assert len(refused) == len(frames)

    # --- identity: no agent speaks as another ------------------------------------------------------

    def team_keys(self, transport: Transport) -> TeamKeys:
        keys = getattr(transport, "credentials", None)
        assert isinstance(keys, TeamKeys), "a team's transport must hold the team's keys (TeamKeys)"
        return keys

    def test_an_agent_cannot_send_as_another(self, transport: Transport) -> None:
        self.team_keys(transport)
        agent_2 = for_agent(transport, 2)
        assert isinstance(agent_2.credentials, AgentKeys)  # type: ignore[attr-defined]
        with pytest.raises(MessageRefusedError, match="cannot send as agent 0"):
            agent_2.send(Message(sender=0, recipient=1, body="I am agent 0"))
        agent_2.send(Message(sender=2, recipient=1, body="I am agent 2"))
        got = self.receive_all(for_agent(transport, 1), 1, 1)
        assert [(m.sender, m.body) for m in got] == [(2, "I am agent 2")]

    def forged_frames(self, transport: Transport) -> list[str]:
        """Entries a process that reaches the queue could write, claiming to be agent 0 to agent 1."""
        keys = self.team_keys(transport)
        agent_2 = keys.for_agent(2)
        as_0 = encode(Message(sender=0, recipient=1, body="forged: from agent 0"))
        genuine_0_to_2 = seal(encode(Message(sender=0, recipient=2, body="for 2")), 0, 2, keys)
        stranger = TeamKeys(range(NUM_AGENTS))  # keys of another team (or made up)
        return [
            as_0,  # unsealed
            seal(as_0, 2, 1, agent_2),  # agent 2's seal on a text that says agent 0
            seal(as_0, 2, 1, agent_2).replace(":2:", ":0:", 1),  # agent 2's MAC, seal claims 0
            seal(as_0, 0, 1, stranger),  # a key that is not the team's
            genuine_0_to_2,  # agent 0's real message to agent 2, replayed into agent 1's inbox
            seal(encode(Message(sender=0, recipient=2, body="for 2")), 0, 2, keys).replace(
                '"recipient":2', '"recipient":1'
            ),  # readdressed after sealing
        ]

    def test_forged_senders_on_the_wire_are_refused(self, transport: Transport) -> None:
        frames = self.forged_frames(transport)
        for raw in frames:
            self.inject_raw(transport, 1, raw)
        for_agent(transport, 0).send(Message(sender=0, recipient=1, body="really agent 0"))
        receiver = for_agent(transport, 1)
        got: list[Message] = []
        for _ in range(len(frames) + 2):
            got.extend(receiver.receive(1, timeout=2.0))
            if got:
                break
        assert [(m.sender, m.body) for m in got] == [(0, "really agent 0")]
        assert receiver.receive(1, timeout=0.3) == []
        refused = getattr(receiver, "refused", None)
        if refused is not None:
            assert len(refused) == len(frames)

    # --- bounds per sender: no agent fills a peer's inbox, or starves the others ---------------------

    def test_one_sender_cannot_fill_an_inbox_for_the_others(self) -> None:
        transport = self.make_transport(NUM_AGENTS, MAX_BYTES, max_pending_per_sender=5)
        try:
            agent_0, agent_2 = for_agent(transport, 0), for_agent(transport, 2)
            sent = 0
            with pytest.raises(MessagingError, match="full"):
                for n in range(1000):
                    agent_0.send(Message(sender=0, recipient=1, body=n))
                    sent += 1
            assert sent == 5
            agent_2.send(Message(sender=2, recipient=1, body="my turn"))  # its own quota is untouched
            got = self.receive_all(for_agent(transport, 1), 1, 6)
            assert [m.body for m in got if m.sender == 0] == list(range(5))
            assert [m.body for m in got if m.sender == 2] == ["my turn"]
            agent_0.send(Message(sender=0, recipient=1, body="read: room again"))
            assert [m.body for m in self.receive_all(for_agent(transport, 1), 1, 1)] == ["read: room again"]
        finally:
            transport.close()

    def test_one_sender_cannot_hold_more_than_its_bytes_in_a_peer(self) -> None:
        transport = self.make_transport(
            NUM_AGENTS, MAX_BYTES, max_pending_per_sender=1000, max_pending_bytes_per_sender=3 * MAX_BYTES
        )
        try:
            agent_0, agent_2 = for_agent(transport, 0), for_agent(transport, 2)
            big = "x" * (MAX_BYTES - 300)
            sent = 0
            with pytest.raises(MessagingError, match="full"):
                for _ in range(1000):
                    agent_0.send(Message(sender=0, recipient=1, body=big))
                    sent += 1
            assert sent == 3
            agent_2.send(Message(sender=2, recipient=1, body=big))
            got = self.receive_all(for_agent(transport, 1), 1, 4)
            assert sorted(m.sender for m in got) == [0, 0, 0, 2]
        finally:
            transport.close()
