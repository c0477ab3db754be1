"""Redis ACL users for a team: one per agent, each allowed only what the transport does as that agent.

Why one user per agent rather than one per team: a team-wide user could read, trim or delete every
inbox of the team, so one agent's process (or a credential of one agent that leaked from another
machine) could read its peers' messages or delete them. Agent `i`'s user may:

- on its own keys (its inbox, the ids it acknowledged, the quota hash of its inbox): read its inbox
  through the group (XREADGROUP, XAUTOCLAIM), acknowledge and delete what it took (XACK, XDEL), make
  its group again, refresh their time to live, and run the script that gives quota back;
- run the scripts its launcher loaded (EVALSHA), never load one of its own: Lua runs alone on the
  server, so a script of its own that loops would block every team on it;
- on every inbox of its team: run the send script, whose XADD and quota counters are allowed there
  and nowhere else (Redis checks every command a script calls against the caller's user);
- read the team's member list; nothing else: no DEL, XTRIM, XREAD or XRANGE of a peer's inbox, no
  KEYS, FLUSHALL, CONFIG, ACL or CLIENT, no key outside `smol:<team>:`.

What Redis 7's ACLs cannot refuse: a user allowed to XADD may also pass XADD's own MAXLEN or MINID,
which trims, and one allowed to count its quota in a peer's inbox may miscount it. So an agent's
*process* holding its credential could still trim or flood a peer's inbox, and upset its quotas;
strangers and other teams cannot (they hold no user with any right on these keys), and an agent's
sandbox never holds the credential at all. EVALSHA runs any script already in the server's cache,
so what another client with the right to load scripts put there an agent may run too (under its own
user's rules); and once the cache is emptied (SCRIPT FLUSH, a restart) the agents cannot send until
the team is started again.

Each agent's password is derived from its own share of the team's keys (`AgentKeys`), which reaches
the agent's process and nothing else, so the password travels with that share and needs no channel
of its own; the launcher, holding the team's keys, derives every agent's to make their users.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable
from typing import Any

from smol_core.plugin_api import AgentKeys, Credentials, TeamKeys

_TEAM_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_PASSWORD_LABEL = b"smol-redis-acl-password"

_OWN_KEYS_COMMANDS = (
    "+xreadgroup",
    "+xautoclaim",
    "+xack",
    "+xdel",
    "+xgroup|create",
    "+expire",
    "+zadd",
    "+zmscore",
    "+zremrangebyscore",
    "+hincrby",
    "+hset",
    "+smembers",
    "+evalsha",
)
"""What an agent does to its own keys (and SMEMBERS of the member list, which it may only read)."""


def check_team_name(team: str) -> str:
    """A team name that is safe inside an ACL key pattern (no `*`, `?`, `[` or spaces) and a user name."""
    if _TEAM_NAME.fullmatch(team) is None:
        raise ValueError(
            f"the team name {team!r} cannot name Redis ACL users: use 1 to 64 letters, digits, '.', '_' or '-'"
        )
    return team


def agent_username(team: str, agent_id: int) -> str:
    return f"smol-{team}-agent-{agent_id}"


def agent_password(credentials: Credentials, agent_id: int) -> str:
    """Agent `agent_id`'s Redis password: derived from its key to itself, which its share holds and
    no peer's does (a peer holds only the keys of its own pairs)."""
    own = credentials.key(agent_id, agent_id)
    if own is None:
        raise ValueError(f"these keys are not agent {agent_id}'s: they cannot give its Redis password")
    return hmac.new(own, _PASSWORD_LABEL, hashlib.sha256).hexdigest()


def acting_agent(credentials: Credentials | None) -> int | None:
    """The agent a process speaks for when it holds one agent's share; None for the launcher or none."""
    return credentials.agent_id if isinstance(credentials, AgentKeys) else None


def agent_rules(prefix: str, agent_id: int, password: str) -> list[str]:
    """`ACL SETUSER` arguments for agent `agent_id` of the team whose keys start with `prefix`."""
    own = [f"~{prefix}inbox:{agent_id}", f"~{prefix}seen:{agent_id}", f"~{prefix}quota:{agent_id}"]
    return [
        "reset",
        "on",
        f">{password}",
        "resetchannels",
        *own,
        f"%R~{prefix}agents",
        *_OWN_KEYS_COMMANDS,
        # selectors: a command is allowed when every key it names is allowed by one of them
        f"(~{prefix}inbox:* ~{prefix}quota:* +evalsha)",  # the send script, to any inbox of the team
        f"(~{prefix}inbox:* +xadd)",  # the script's XADD
        f"(~{prefix}quota:* +hget +hincrby +expire)",  # the script's quota counters
    ]


def make_agent_users(
    admin: Any, team: str, prefix: str, keys: TeamKeys, agent_ids: Iterable[int], scripts: Iterable[str]
) -> None:
    """Make (or reset) every agent's user with `admin`, a connection allowed to run ACL SETUSER, and
    load `scripts` (the transport's), which the agents may run but not load."""
    pipe = admin.pipeline(transaction=False)
    for script in scripts:
        pipe.script_load(script)
    for agent_id in agent_ids:
        rules = agent_rules(prefix, agent_id, agent_password(keys, agent_id))
        pipe.execute_command("ACL", "SETUSER", agent_username(team, agent_id), *rules)
    pipe.execute()


def remove_agent_users(admin: Any, team: str, agent_ids: Iterable[int]) -> None:
    """Delete the team's users: Redis also closes every connection still logged in as one of them."""
    names = [agent_username(team, agent_id) for agent_id in agent_ids]
    if names:
        admin.execute_command("ACL", "DELUSER", *names)
