"""Attacks on a team's Redis ACL users (`access.py`, `connection.py`), on a real redis-server that
requires a login: what an agent's own user may not do to its peers or the server, what a URL may
not carry, and what TLS may not give up."""

from __future__ import annotations

import hashlib
import hmac
import os
import threading

import pytest
import redis
from secured_redis import SecuredRedis
from smol_transport_redis.access import agent_password, agent_username, check_team_name
from smol_transport_redis.connection import RedisAccessError
from smol_transport_redis.transport import GROUP, RedisTransport

from smol_core.teams import Message
from smol_core.teams.identity import for_agent


def _team(server: SecuredRedis) -> RedisTransport:
    return RedisTransport(
        server.url, num_agents=2, admin_password_file=server.admin_password_file, tls_ca_file=server.ca_file
    )


def _as_agent(team: RedisTransport, agent_id: int, server: SecuredRedis) -> redis.Redis:
    return redis.Redis.from_url(
        server.url,
        username=agent_username(team.team, agent_id),
        password=agent_password(team.credentials, agent_id),
        **server.tls_options(),
    )


@pytest.fixture
def team(secured_redis_server):
    """A team of two; agent 1 has read one message (so it is pending in its group) and one waits."""
    team = _team(secured_redis_server)
    team.send(Message(sender=0, recipient=1, body="pending"))
    with secured_redis_server.admin() as admin:
        admin.xreadgroup(GROUP, "agent-1-reader", {team._inbox(1): ">"})
    team.send(Message(sender=0, recipient=1, body="waiting"))
    yield team
    team.close()


# What agent 0's user tries against agent 1's inbox, group and quota, and the server as a whole.
PEER_AND_SERVER_ATTACKS = {
    "move the peer's group back (XGROUP SETID)": ("XGROUP", "SETID", "{inbox}", GROUP, "0"),
    "destroy the peer's group (XGROUP DESTROY)": ("XGROUP", "DESTROY", "{inbox}", GROUP),
    "drop the peer's reader (XGROUP DELCONSUMER)": (
        "XGROUP",
        "DELCONSUMER",
        "{inbox}",
        GROUP,
        "agent-1-reader",
    ),
    "make a group on the peer's inbox (XGROUP CREATE)": ("XGROUP", "CREATE", "{inbox}", "thieves", "0"),
    "claim the peer's pending entries (XCLAIM)": ("XCLAIM", "{inbox}", GROUP, "thief", "0", "0-1"),
    "claim them all (XAUTOCLAIM)": ("XAUTOCLAIM", "{inbox}", GROUP, "thief", "0", "0-0"),
    "list the peer's pending entries (XPENDING)": ("XPENDING", "{inbox}", GROUP),
    "inspect the peer's inbox (XINFO STREAM)": ("XINFO", "STREAM", "{inbox}", "FULL"),
    "acknowledge the peer's entries (XACK)": ("XACK", "{inbox}", GROUP, "0-1"),
    "inspect a key (OBJECT ENCODING)": ("OBJECT", "ENCODING", "{inbox}"),
    "inspect a key (DEBUG OBJECT)": ("DEBUG", "OBJECT", "{inbox}"),
    "read the peer's quotas (HGETALL)": ("HGETALL", "{quota}"),
    "delete the peer's quotas (DEL)": ("DEL", "{quota}"),
    "overwrite the peer's quotas (HSET)": ("HSET", "{quota}", "0:n", "-1000000"),
    "drop a sender's quota (HDEL)": ("HDEL", "{quota}", "0:n"),
    "expire the peer's acknowledged ids (EXPIRE)": ("EXPIRE", "{seen}", "0"),
    "read the peer's acknowledged ids (ZRANGE)": ("ZRANGE", "{seen}", "0", "-1"),
    "rewrite the member list (SADD)": ("SADD", "{agents}", "99"),
    "delete the member list (DEL)": ("DEL", "{agents}"),
    "list every key (SCAN)": ("SCAN", "0"),
    "pick a key (RANDOMKEY)": ("RANDOMKEY",),
    "count keys (DBSIZE)": ("DBSIZE",),
    "list clients (CLIENT LIST)": ("CLIENT", "LIST"),
    "kill clients (CLIENT KILL)": ("CLIENT", "KILL", "USER", "default"),
    "read the server's state (INFO)": ("INFO", "keyspace"),
    "watch every command (MONITOR)": ("MONITOR",),
    "list channels (PUBSUB CHANNELS)": ("PUBSUB", "CHANNELS"),
    "publish (PUBLISH)": ("PUBLISH", "smol", "x"),
    "subscribe (SUBSCRIBE)": ("SUBSCRIBE", "smol"),
    "list users (ACL LIST)": ("ACL", "LIST"),
    "give itself rights (ACL SETUSER)": ("ACL", "SETUSER", "{me}", "+@all", "~*"),
    "run any script (EVAL)": ("EVAL", "return 1", "0"),
    "empty the script cache (SCRIPT FLUSH)": ("SCRIPT", "FLUSH"),
    "stop a running script (SCRIPT KILL)": ("SCRIPT", "KILL"),
    "load functions (FUNCTION LOAD)": (
        "FUNCTION",
        "LOAD",
        "#!lua name=x\nredis.register_function('f', function() end)",
    ),
    "switch database (SELECT)": ("SELECT", "1"),
    "copy the inbox out (COPY)": ("COPY", "{inbox}", "{own}"),
    "rename the inbox (RENAME)": ("RENAME", "{inbox}", "{own}x"),
    "dump the inbox (DUMP)": ("DUMP", "{inbox}"),
}


def _fill(command: tuple[str, ...], team: RedisTransport) -> list[str]:
    names = {
        "inbox": team._inbox(1),
        "quota": team._quotas(1),
        "seen": team._seen(1),
        "agents": f"{team.prefix}agents",
        "own": team._inbox(0),
        "me": agent_username(team.team, 0),
    }
    return [part.format(**names) if part.startswith("{") else part for part in command]


@pytest.mark.parametrize("attack", PEER_AND_SERVER_ATTACKS, ids=list(PEER_AND_SERVER_ATTACKS))
def test_an_agents_user_cannot_touch_its_peers_group_quota_or_the_server(team, secured_redis_server, attack):
    with _as_agent(team, 0, secured_redis_server) as peer:
        # DEBUG is refused to everyone by the server's own setting before the user's rules are read
        with pytest.raises(redis.ResponseError, match="(?i)no permissions|DEBUG command not allowed"):
            peer.execute_command(*_fill(PEER_AND_SERVER_ATTACKS[attack], team))
    with secured_redis_server.admin() as admin:
        assert admin.xlen(team._inbox(1)) == 2
        assert admin.xpending(team._inbox(1), GROUP)["pending"] == 1
        assert admin.xinfo_groups(team._inbox(1))[0]["name"].decode() == GROUP


@pytest.mark.parametrize(
    "body",
    [
        "return redis.call('XRANGE', KEYS[1], '-', '+')",
        "return redis.call('XGROUP', 'DESTROY', KEYS[1], 'smol-agents')",
        "return redis.call('XAUTOCLAIM', KEYS[1], 'smol-agents', 'thief', 0, '0-0')",
        "return redis.call('XCLAIM', KEYS[1], 'smol-agents', 'thief', 0, '0-1')",
        "return redis.call('KEYS', '*')",
        "return redis.call('HGETALL', KEYS[2])",
    ],
)
def test_an_agents_own_script_is_held_to_its_users_rules(team, secured_redis_server, body):
    """SCRIPT LOAD and EVALSHA with the peer's keys: Redis checks each command the script calls."""
    with secured_redis_server.admin() as admin:  # in the cache: the agent may not load its own
        sha = admin.script_load(body)
    with _as_agent(team, 0, secured_redis_server) as peer:
        script = peer.register_script(body)
        assert script.sha == sha
        with pytest.raises(redis.ResponseError, match="can't run this command|can't access"):
            script(keys=[team._inbox(1), team._quotas(1)])
    with secured_redis_server.admin() as admin:
        assert admin.xlen(team._inbox(1)) == 2


@pytest.mark.parametrize("name", ["a:b", "a*", "a?", "[a]", "a b", "", "x" * 65, "a\nb", "é"])
def test_a_team_name_that_could_reach_another_teams_keys_is_refused(name):
    """`smol:<team>:` with a ':' or a glob character could match another team's keys in a pattern."""
    with pytest.raises(ValueError, match="cannot name Redis ACL users"):
        check_team_name(name)


def test_a_password_in_the_urls_query_is_refused(secured_redis_server):
    """`redis://host/0?password=...` is a password on the command line as much as `:pw@host` is."""
    password = secured_redis_server.admin_password()
    with_password = f"{secured_redis_server.url}?password={password}"
    with pytest.raises(RedisAccessError, match="holds a password") as refused:
        RedisTransport(with_password, num_agents=2)
    assert password not in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize(
    "weakening", ["ssl_cert_reqs=none", "ssl_check_hostname=false", "ssl_ca_certs=/dev/null"]
)
def test_a_rediss_url_cannot_turn_the_certificate_check_off(tls_redis_server, monkeypatch, weakening):
    """TLS checks are set by `tls_*` (or `SMOL_REDIS_TLS_*`) only: the URL's query may not weaken them."""
    monkeypatch.delenv("SMOL_REDIS_TLS_CA_FILE", raising=False)
    with pytest.raises(RedisAccessError) as refused:
        RedisTransport(
            f"{tls_redis_server.url}?{weakening}",
            num_agents=2,
            admin_password_file=tls_redis_server.admin_password_file,
        )
    assert "\n" not in str(refused.value)


def test_an_agents_user_cannot_freeze_the_server_for_every_team(secured_redis_server):
    """A leaked agent credential may upset its own team (access.py says how), never the server:
    no script of its own, so no endless loop that blocks every other team's commands."""
    team = _team(secured_redis_server)
    try:
        with _as_agent(team, 0, secured_redis_server) as agent:
            with pytest.raises(redis.exceptions.NoPermissionError):
                agent.script_load("while true do end")
    finally:
        team.close()


def test_a_rediss_url_checks_the_servers_host_name(tls_redis_server):
    """A certificate signed by a trusted CA for another name is refused: without the host name
    check, anyone holding any certificate from the system's CAs could stand in for the server."""
    elsewhere = tls_redis_server.url.replace("127.0.0.1", "localhost")  # the certificate names 127.0.0.1
    with pytest.raises(RedisAccessError, match="not for the host name") as refused:
        RedisTransport(
            elsewhere,
            num_agents=2,
            admin_password_file=tls_redis_server.admin_password_file,
            tls_ca_file=tls_redis_server.ca_file,
        )
    assert "\n" not in str(refused.value)


def test_no_agent_can_derive_a_peers_password(secured_redis_server):
    """Agent i's password comes from its key to itself, which no peer's share holds: a peer with
    its whole share (every key it is given) can neither compute it nor log in as agent i."""
    team = _team(secured_redis_server)
    try:
        share = for_agent(team, 0).credentials
        with pytest.raises(ValueError, match="not agent 1's"):
            agent_password(share, 1)
        guesses = {agent_password(share, 0)} | {
            hmac.new(key, b"smol-redis-acl-password", hashlib.sha256).hexdigest()
            for key in (share.key(0, 1), share.key(1, 0))
        }
        for guess in guesses:
            with pytest.raises(redis.AuthenticationError):
                redis.Redis.from_url(
                    secured_redis_server.url, username=agent_username(team.team, 1), password=guess
                ).ping()
    finally:
        team.close()


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_password_file_that_is_not_a_file_is_one_line(tmp_path, kind):
    """A named pipe nobody writes to would block the read for ever: refused, as a folder is."""
    path = tmp_path / "password"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    refusals: list[str] = []

    def connect() -> None:
        with pytest.raises(RedisAccessError) as refused:
            RedisTransport("redis://127.0.0.1:1/0", num_agents=2, password_file=str(path))
        refusals.append(str(refused.value))

    reader = threading.Thread(target=connect, daemon=True)
    reader.start()
    reader.join(30)
    if reader.is_alive():  # let the blocked read end, so the test does not hang
        with open(path, "w"):
            pass
        reader.join(5)
        pytest.fail("reading the password file blocked")
    assert len(refusals) == 1 and "\n" not in refusals[0] and str(path) in refusals[0]


def test_a_password_from_a_pipe_is_read(secured_redis_server):
    """`SMOL_REDIS_ADMIN_PASSWORD_FILE=<(pass show redis)` hands a pipe: it is read to its end."""
    reader, writer = os.pipe()
    os.write(writer, (secured_redis_server.admin_password() + "\n").encode())
    os.close(writer)
    try:
        team = RedisTransport(
            secured_redis_server.url, num_agents=2, admin_password_file=f"/proc/self/fd/{reader}"
        )
    finally:
        os.close(reader)
    team.send(Message(sender=0, recipient=1, body="in"))
    team.close()
