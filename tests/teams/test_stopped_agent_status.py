"""An agent stopped with SIGTERM does not tell its peers it has stopped for good.

Its host stops a team by marking each agent finished and then sending SIGTERM; a host that dies
makes its agents stop the same way, but marks nothing. The agent used to mark itself finished on its
way out, so a peer still running for a moment had its send refused ("agent 1 has stopped"), and in
a durable team that refusal was saved as the send's outcome: the team resumed by a new host never
sent the message again, and waited for a reply that could not come (1 run in 80 of
bench/durable_team_host_kills.py). Its peers' messages now wait for it in its inbox.
"""

from __future__ import annotations

import multiprocessing
import time

from smol_core.teams import AgentSettings
from smol_core.teams.local import LocalTransport
from smol_core.teams.status import PeerStatus
from smol_core.teams.worker import agent_main
from smol_core.testing import ScriptedModel


def test_an_agent_stopped_while_it_waits_is_not_marked_finished(tmp_path) -> None:
    context = multiprocessing.get_context("spawn")
    status = PeerStatus(2, "spawn")
    transport = LocalTransport(num_agents=2, context="spawn", status=status, folder=str(tmp_path))
    done = context.Queue()
    settings = AgentSettings(model=ScriptedModel([]), verbosity_level=-1)
    report = tmp_path / "agent-1.json"
    agent = context.Process(target=agent_main, args=(1, None, settings, transport, done, str(report)))
    agent.start()
    try:
        end = time.monotonic() + 120
        while status.get(1) != "waiting":  # for its task, in its inbox
            assert time.monotonic() < end and agent.is_alive(), "agent 1 never waited for its task"
            time.sleep(0.05)
        agent.terminate()
        agent.join(60)
    finally:
        if agent.is_alive():
            agent.kill()
    assert '"state": "stopped"' in report.read_text()
    assert status.get(1) != "finished"
