"""Access control on a real redis-server that requires a login: a team's launcher makes one ACL user
per agent, each agent logs in as its own, and nobody else can read, delete or flood the team's
streams; a wrong or missing password is one line that says what to set; TLS where the URL asks."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from secured_redis import SecuredRedis
from smol_transport_redis.access import agent_password, agent_username
from smol_transport_redis.connection import RedisAccessError
from smol_transport_redis.transport import FIELD, RedisTransport

from smol_core import run_agents
from smol_core.teams import AgentSettings, Message
from smol_core.teams.identity import for_agent
from smol_core.testing import ScriptedModel

sys.path.insert(0, str(Path(__file__).parents[2] / "teams"))
from team_helpers import code, descendants, five_plus_three, left_behind  # noqa: E402

# What a client that is not the inbox's owner tries on agent 1's inbox: each must be refused.
ATTACKS: dict[str, Callable[[Any, str], Any]] = {
    "read it (XREAD)": lambda client, inbox: client.xread({inbox: "0"}),
    "read it (XRANGE)": lambda client, inbox: client.xrange(inbox),
    "delete an entry (XDEL)": lambda client, inbox: client.xdel(inbox, "0-1"),
    "delete the stream (DEL)": lambda client, inbox: client.delete(inbox),
    "trim it (XTRIM)": lambda client, inbox: client.xtrim(inbox, maxlen=0),
    "expire it (EXPIRE)": lambda client, inbox: client.expire(inbox, 1),
    "flood it (XADD)": lambda client, inbox: [client.xadd(inbox, {FIELD: b"x" * 1000}) for _ in range(100)],
    "take its group's entries (XREADGROUP)": lambda client, inbox: client.xreadgroup(
        "smol-agents", "thief", {inbox: ">"}
    ),
    "empty the server (FLUSHALL)": lambda client, inbox: client.flushall(),
    "read the server's settings (CONFIG GET)": lambda client, inbox: client.config_get("requirepass"),
    "list every key (KEYS)": lambda client, inbox: client.keys("*"),
}
PEER_ATTACKS = {name: attack for name, attack in ATTACKS.items() if "XADD" not in name}
"""What agent 0 must not do to agent 1's inbox (it may send to it: see access.py for that limit)."""


def _team(server: SecuredRedis, num_agents: int = 2) -> RedisTransport:
    return RedisTransport(
        server.url,
        num_agents=num_agents,
        admin_password_file=server.admin_password_file,
        tls_ca_file=server.ca_file,
    )


def _as_agent(team: RedisTransport, agent_id: int, server: SecuredRedis) -> redis.Redis:
    """A raw client logged in as agent `agent_id`'s user of `team`."""
    return redis.Redis.from_url(
        server.url,
        username=agent_username(team.team, agent_id),
        password=agent_password(team.credentials, agent_id),
        **server.tls_options(),
    )


@pytest.fixture
def team_with_a_message(secured_redis_server):
    """A team of two with one message waiting in agent 1's inbox; its users removed after."""
    team = _team(secured_redis_server)
    team.send(Message(sender=0, recipient=1, body="for agent 1 only"))
    yield team
    team.close()


def _inbox_is_whole(team: RedisTransport, server: SecuredRedis) -> None:
    """Agent 1's inbox still holds the one message, nothing else, and agent 1 reads it."""
    with server.admin() as admin:
        assert admin.xlen(team._inbox(1)) == 1
    agent = pickle.loads(pickle.dumps(for_agent(team, 1)))
    assert [m.body for m in agent.receive(1, timeout=5)] == ["for agent 1 only"]
    agent.close()


def test_a_two_agent_team_answers_with_its_own_acl_users(secured_redis_server):
    """The server refuses any client without a login, and the agents are given no password: each
    logs in as the user its launcher made for it, and the users are gone when the team ends."""
    with secured_redis_server.admin() as admin:
        users_before = set(admin.acl_users())
    before = descendants()
    result = run_agents(
        "Compute 5 + 3",
        num_agents=2,
        settings=five_plus_three(),
        transport="redis",
        transport_kwargs={
            "url": secured_redis_server.url,
            "admin_password_file": secured_redis_server.admin_password_file,
        },
        deadline_seconds=120,
    )
    assert result.state == "success" and result.output == "8"
    assert left_behind(before) == []
    with secured_redis_server.admin() as admin:
        assert set(admin.acl_users()) == users_before


def test_an_agents_sandbox_sees_no_redis_secret(secured_redis_server, monkeypatch):
    """The admin password set in the host's environment reaches the agents' processes (children
    inherit it) but not the sandbox their code runs in, whose environment is the worker's own."""
    monkeypatch.setenv("SMOL_REDIS_ADMIN_PASSWORD", secured_redis_server.admin_password())
    show_environment = code("import os\nfinal_answer(repr(dict(os.environ)))")
    settings = [
        AgentSettings(model=ScriptedModel([show_environment]), additional_authorized_imports=("os",)),
        AgentSettings(model=ScriptedModel([code("final_answer(0)")])),
    ]
    result = run_agents(
        "Show your environment",
        num_agents=2,
        settings=settings,
        transport="redis",
        transport_kwargs={"url": secured_redis_server.url},
        deadline_seconds=120,
    )
    assert result.state == "success" and result.output.startswith("{")
    assert secured_redis_server.admin_password() not in result.output
    assert "SMOL_REDIS" not in result.output


@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_a_client_without_a_login_can_do_nothing_to_a_team(team_with_a_message, secured_redis_server, attack):
    stranger = redis.Redis.from_url(secured_redis_server.url)
    with pytest.raises(redis.AuthenticationError):
        ATTACKS[attack](stranger, team_with_a_message._inbox(1))
    _inbox_is_whole(team_with_a_message, secured_redis_server)


@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_another_teams_agent_can_do_nothing_to_a_team(team_with_a_message, secured_redis_server, attack):
    other = _team(secured_redis_server)
    try:
        with _as_agent(other, 0, secured_redis_server) as stranger:
            with pytest.raises(redis.exceptions.NoPermissionError):
                ATTACKS[attack](stranger, team_with_a_message._inbox(1))
    finally:
        other.close()
    _inbox_is_whole(team_with_a_message, secured_redis_server)


@pytest.mark.parametrize("attack", PEER_ATTACKS, ids=list(PEER_ATTACKS))
def test_an_agent_cannot_read_or_delete_its_peers_inbox(team_with_a_message, secured_redis_server, attack):
    with _as_agent(team_with_a_message, 0, secured_redis_server) as peer:
        with pytest.raises(redis.exceptions.NoPermissionError):
            PEER_ATTACKS[attack](peer, team_with_a_message._inbox(1))
    _inbox_is_whole(team_with_a_message, secured_redis_server)


def test_a_script_cannot_do_what_the_agents_user_may_not(team_with_a_message, secured_redis_server):
    """Redis checks every command a script calls against its caller's user: the agent may run
    scripts (the send script) but a script of its own cannot delete a peer's inbox for it."""
    team = team_with_a_message
    with secured_redis_server.admin() as admin:  # loaded by someone who may: the agent may not
        admin.script_load("return redis.call('DEL', KEYS[1])")
    with _as_agent(team, 0, secured_redis_server) as peer:
        script = peer.register_script("return redis.call('DEL', KEYS[1])")
        with pytest.raises(redis.ResponseError, match="can't run this command"):
            script(keys=[team._inbox(1), team._quotas(1)])
    _inbox_is_whole(team, secured_redis_server)


def test_the_agents_users_go_when_the_team_closes(secured_redis_server):
    team = _team(secured_redis_server)
    agent = pickle.loads(pickle.dumps(for_agent(team, 1)))
    assert agent.receive(1, timeout=0) == []  # logged in as its user
    agent.close()
    team.close()
    with secured_redis_server.admin() as admin:
        assert not [name for name in admin.acl_users() if team.team in str(name)]
    with pytest.raises(RedisAccessError, match="agent 1's user is gone"):
        agent.receive(1, timeout=0)


def test_no_password_crosses_to_an_agent(secured_redis_server):
    """What an agent's process is sent holds its own share of the keys, never the admin's password,
    and a pickled launcher carries none either."""
    team = _team(secured_redis_server)
    try:
        admin_password = secured_redis_server.admin_password().encode()
        sent_to_agent = pickle.dumps(for_agent(team, 1))
        assert admin_password not in sent_to_agent
        assert agent_password(team.credentials, 0).encode() not in sent_to_agent
        assert admin_password not in pickle.dumps(team)
    finally:
        team.close()


def _one_line_refusal(make: Callable[[], Any]) -> str:
    with pytest.raises(RedisAccessError) as refused:
        make()
    text = str(refused.value)
    assert "\n" not in text
    return text


def test_a_missing_password_says_what_to_set(secured_redis_server, monkeypatch):
    for variable in ("SMOL_REDIS_PASSWORD", "SMOL_REDIS_PASSWORD_FILE", "SMOL_REDIS_ADMIN_PASSWORD_FILE"):
        monkeypatch.delenv(variable, raising=False)
    text = _one_line_refusal(lambda: RedisTransport(secured_redis_server.url, num_agents=2))
    assert "requires a password" in text and "SMOL_REDIS_PASSWORD_FILE" in text


def test_a_wrong_password_says_what_to_set(secured_redis_server, tmp_path):
    wrong = tmp_path / "wrong"
    wrong.write_text("not-the-password\n")
    text = _one_line_refusal(
        lambda: RedisTransport(secured_redis_server.url, num_agents=2, password_file=str(wrong))
    )
    assert "refused the login of user 'default'" in text and "SMOL_REDIS_PASSWORD_FILE" in text
    assert "not-the-password" not in text
    text = _one_line_refusal(
        lambda: RedisTransport(secured_redis_server.url, num_agents=2, admin_password_file=str(wrong))
    )
    assert "SMOL_REDIS_ADMIN_PASSWORD_FILE" in text


def test_the_password_is_read_from_the_file_the_environment_names(secured_redis_server, monkeypatch):
    monkeypatch.setenv("SMOL_REDIS_PASSWORD_FILE", secured_redis_server.admin_password_file)
    transport = RedisTransport(secured_redis_server.url, num_agents=2)
    transport.send(Message(sender=0, recipient=1, body="in"))
    assert [m.body for m in transport.receive(1, timeout=5)] == ["in"]
    transport.close()


def test_a_password_in_the_url_is_refused(secured_redis_server):
    with_password = secured_redis_server.url.replace("://", "://:hunter2@")
    text = _one_line_refusal(lambda: RedisTransport(with_password, num_agents=2))
    assert "holds a password" in text and "hunter2" not in text


def test_the_command_line_says_what_to_set_in_one_line(secured_redis_server, tmp_path):
    environment = {name: value for name, value in os.environ.items() if not name.startswith("SMOL_REDIS_")}
    finished = subprocess.run(
        [sys.executable, "-m", "smol_core.cli.smolagent", "Compute 5 + 3", "--num-agents", "2"]
        + ["--transport", "redis", "--transport-url", secured_redis_server.url],
        capture_output=True,
        text=True,
        env=environment,
        cwd=tmp_path,
        timeout=120,
    )
    assert finished.returncode == 2
    lines = finished.stderr.strip().splitlines()
    assert len(lines) == 1 and "SMOL_REDIS_PASSWORD_FILE" in lines[0], finished.stderr


def test_a_team_runs_over_tls_with_acl_users(tls_redis_server):
    result = run_agents(
        "Compute 5 + 3",
        num_agents=2,
        settings=five_plus_three(),
        transport="redis",
        transport_kwargs={
            "url": tls_redis_server.url,
            "admin_password_file": tls_redis_server.admin_password_file,
            "tls_ca_file": tls_redis_server.ca_file,
        },
        deadline_seconds=120,
    )
    assert result.state == "success" and result.output == "8"


def test_an_untrusted_certificate_says_what_to_set(tls_redis_server, monkeypatch):
    monkeypatch.delenv("SMOL_REDIS_TLS_CA_FILE", raising=False)
    text = _one_line_refusal(
        lambda: RedisTransport(
            tls_redis_server.url, num_agents=2, admin_password_file=tls_redis_server.admin_password_file
        )
    )
    assert "SMOL_REDIS_TLS_CA_FILE" in text


def test_tls_files_for_a_url_without_tls_are_refused(secured_redis_server, tls_redis_server):
    text = _one_line_refusal(
        lambda: RedisTransport(secured_redis_server.url, num_agents=2, tls_ca_file=tls_redis_server.ca_file)
    )
    assert "rediss://" in text


def test_a_client_certificate_is_presented_where_the_server_asks_for_one(mutual_tls_redis_server):
    server = mutual_tls_redis_server
    text = _one_line_refusal(
        lambda: RedisTransport(
            server.url,
            num_agents=2,
            admin_password_file=server.admin_password_file,
            tls_ca_file=server.ca_file,
        )
    )
    assert "SMOL_REDIS_TLS_CERT_FILE" in text
    team = RedisTransport(
        server.url,
        num_agents=2,
        admin_password_file=server.admin_password_file,
        tls_ca_file=server.ca_file,
        tls_cert_file=server.ca_file,
        tls_key_file=server.client_key_file,
    )
    team.send(Message(sender=0, recipient=1, body="over mutual TLS"))
    agent = pickle.loads(pickle.dumps(for_agent(team, 1)))  # the files' paths travel, and its own login
    assert [m.body for m in agent.receive(1, timeout=5)] == ["over mutual TLS"]
    agent.close()
    team.close()
