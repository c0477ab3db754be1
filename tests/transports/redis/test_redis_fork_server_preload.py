"""A team over Redis has its fork server import redis-py once, not every agent on its own.

Why: `import redis` takes about 0.36 s (it imports its asyncio client too). Each agent of a team
paid it as it started: a scripted team of 8 over Redis took 1.65 s and one of 64 took 14 s, where
the same teams over local queues took 0.14 s and 1.25 s.
"""

from __future__ import annotations

from multiprocessing import forkserver

from smol_core.plugins.registry import get_registry
from smol_core.teams import AgentSettings, Team
from smol_core.teams.start_method import FORKSERVER_PRELOAD, agent_context, start_fork_server
from smol_core.testing import ScriptedModel


def test_the_redis_transport_names_what_its_agents_import() -> None:
    assert set(get_registry().transport("redis").preload) == {"redis", "smol_transport_redis.transport"}


def test_a_team_over_redis_asks_its_fork_server_to_import_them(redis_url: str, tmp_path) -> None:
    team = Team(
        AgentSettings(model=ScriptedModel([])),
        num_agents=2,
        transport="redis",
        transport_kwargs={"url": redis_url},
    )
    transport, _ = team._make_transport(str(tmp_path))
    assert team.preload == tuple(get_registry().transport("redis").preload)
    close = getattr(transport, "close", None)
    if close is not None:
        close()


def test_a_transports_modules_come_before_the_hosts_main_script_in_the_preload() -> None:
    context = agent_context("forkserver")
    start_fork_server(context, ("json", "smol_transport_redis.transport"))
    asked = forkserver._forkserver._preload_modules
    assert asked[-1] == FORKSERVER_PRELOAD[-1] == "smol_core.teams.fork_server_ready"
    # smol's own first, then what transports asked for: this test's, and those of teams that ran
    # earlier in this process (a server keeps what it served: start_method.start_fork_server)
    own = len(FORKSERVER_PRELOAD) - 1
    assert tuple(asked[:own]) == tuple(FORKSERVER_PRELOAD[:-1])
    assert {"json", "smol_transport_redis.transport"} <= set(asked[own:-1])
