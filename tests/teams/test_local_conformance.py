"""The transport conformance suite against the `local` transport, in both of its shapes: its own
named pipes, and smolagents' `manager.dict()` of `manager.Queue()`s."""

from __future__ import annotations

import multiprocessing

import pytest

from smol_core.teams.identity import TeamKeys
from smol_core.teams.local import LocalTransport
from smol_core.testing.transport_conformance import TransportConformance


class TestLocalTransport(TransportConformance):
    def make_transport(self, num_agents, max_message_bytes, **limits):
        return LocalTransport(num_agents=num_agents, max_message_bytes=max_message_bytes, **limits)

    def inject_raw(self, transport, agent_id, raw):
        transport.queues[agent_id].put(raw)


@pytest.fixture(scope="module")
def manager():
    with multiprocessing.Manager() as running:
        yield running


class TestSmolagentsQueueDict(TransportConformance):
    # A Manager's queue (smolagents' shared mapping) is one round trip to the manager process per put
    # and per get, about 500 messages a second here: the flood is smaller, the behaviour the same.
    flood_size = 5_000

    @pytest.fixture(autouse=True)
    def _manager(self, manager):
        self.manager = manager

    def make_transport(self, num_agents, max_message_bytes, **limits):
        queue_dict = self.manager.dict()
        for agent_id in range(num_agents):
            queue_dict[agent_id] = self.manager.Queue()
        # queues someone else made: no launcher draws keys or counts quotas unless given them
        return LocalTransport(
            queue_dict=queue_dict,
            max_message_bytes=max_message_bytes,
            credentials=TeamKeys(range(num_agents)),
            **limits,
        )

    @pytest.mark.skip(reason="smolagents' queues are made by its user: no shared quota counters")
    def test_one_sender_cannot_fill_an_inbox_for_the_others(self):
        pass

    @pytest.mark.skip(reason="smolagents' queues are made by its user: no shared quota counters")
    def test_one_sender_cannot_hold_more_than_its_bytes_in_a_peer(self):
        pass

    def inject_raw(self, transport, agent_id, raw):
        transport.queues[agent_id].put(raw)

    def test_a_live_object_put_on_the_queue_is_refused(self, transport):
        transport.queues[1].put({"sender": 0, "recipient": 1})  # a dict, not JSON text
        assert transport.receive(1, timeout=0.5) == []
        assert "not JSON text" in transport.refused[0]
