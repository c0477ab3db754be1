"""The team's keys: the launcher's secret never reaches an agent's process, and an agent's share
signs only as that agent (the attack: any process that reached the queue spoke as any agent)."""

from __future__ import annotations

import pickle

import pytest

from smol_core.teams.errors import MessageRefusedError
from smol_core.teams.identity import AgentKeys, TeamKeys, for_agent, seal, unseal
from smol_core.teams.local import LocalTransport
from smol_core.teams.message import Message, encode


def test_an_agents_transport_carries_its_own_keys_and_not_the_teams():
    transport = LocalTransport(num_agents=3)
    keys = transport.credentials
    assert isinstance(keys, TeamKeys)
    agent_1 = for_agent(transport, 1)
    assert isinstance(agent_1.credentials, AgentKeys)
    assert not any(isinstance(value, TeamKeys) for value in vars(agent_1).values())
    shipped = pickle.dumps(agent_1.credentials)  # what crosses into the agent's process
    assert keys._team_key not in shipped
    for sender, recipient in [(0, 2), (2, 0), (0, 0)]:  # pairs agent 1 is not part of
        assert keys.key(sender, recipient) not in shipped
    assert transport.credentials is keys  # the host's own transport is untouched


def test_an_agents_share_signs_only_as_itself_and_checks_only_its_inbox():
    team = TeamKeys(range(3))
    agent_1 = team.for_agent(1)
    text = encode(Message(sender=1, recipient=2, body="hi"))
    assert unseal(seal(text, 1, 2, agent_1), 2, team.for_agent(2)) == (1, text)
    with pytest.raises(MessageRefusedError, match="cannot send as agent 0"):
        seal(encode(Message(sender=0, recipient=2, body="x")), 0, 2, agent_1)
    # agent 1 cannot check (or learn to forge) what agent 0 sends agent 2
    from_0 = seal(encode(Message(sender=0, recipient=2, body="x")), 0, 2, team)
    with pytest.raises(MessageRefusedError, match="not signed"):
        unseal(from_0, 2, agent_1)


def test_the_keys_never_show_in_a_repr():
    team = TeamKeys(range(2))
    assert team._team_key.hex() not in repr(team) + repr(team.for_agent(0))


def test_a_team_issues_keys_to_a_transport_that_joined_without_them():
    from smol_core.teams.identity import issue_keys

    joined = LocalTransport(queue_dict={0: None, 1: None})  # queues made elsewhere: no keys
    assert joined.credentials is None
    issue_keys(joined)
    assert isinstance(joined.credentials, TeamKeys)
    assert isinstance(for_agent(joined, 1).credentials, AgentKeys)
    kept = joined.credentials
    issue_keys(joined)  # keys already held are never replaced
    assert joined.credentials is kept
