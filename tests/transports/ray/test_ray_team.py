"""Teams whose messages travel through a mailbox on a real local Ray cluster: smolagents' two-agent
workflow through `run_agents` and through `smolagent --transport ray`, and a peer that never
answers (a timeout the model sees, then an answer, never a hang)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import ray
from smol_transport_ray.transport import RayTransport

from smol_core import CodeAgent, ReceiveMessagesTool, SendMessageTool, run_agents
from smol_core.teams import AgentSettings
from smol_core.testing import ScriptedModel

TEAMS = Path(__file__).parents[2] / "teams"
sys.path.insert(0, str(TEAMS))
from team_helpers import code, descendants, five_plus_three, left_behind  # noqa: E402


def mailboxes() -> list[str]:
    """The names of the smol mailbox actors alive on the cluster."""
    return [
        actor["name"]
        for actor in ray.util.list_named_actors(all_namespaces=True)
        if actor["name"].startswith("smol-team-")
    ]


def named_actors(part: str) -> set[str]:
    return {
        actor["name"] for actor in ray.util.list_named_actors(all_namespaces=True) if part in actor["name"]
    }


def started_agents() -> dict[str, list[int]]:
    """Each supervisor actor on the cluster -> the agents whose processes it has started."""
    found: dict[str, list[int]] = {}
    for name in named_actors("-agents-"):
        try:
            found[name] = ray.get(ray.get_actor(name, namespace="smol").agents.remote(), timeout=30)
        except (ValueError, ray.exceptions.RayError):  # killed meanwhile: the team ended
            continue
    return found


def test_a_team_runs_its_agents_under_one_ray_actor_and_leaves_nothing_behind(ray_address):
    before = descendants()
    seen: dict[str, set[int]] = {}
    running = threading.Event()
    running.set()

    def watch() -> None:  # which supervisors the cluster holds while the team runs, and their agents
        while running.is_set():
            for name, agents in started_agents().items():
                seen.setdefault(name, set()).update(agents)
            time.sleep(0.1)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        result = run_agents(
            "Compute 5 + 3",
            num_agents=2,
            settings=five_plus_three(),
            transport="ray",
            transport_kwargs={"url": ray_address},
            deadline_seconds=180,
        )
    finally:
        running.clear()
        watcher.join()
    assert result.state == "success" and result.output == "8"
    # both agents' processes under one actor (one Ray worker), not one each
    assert len(seen) == 1 and sorted(next(iter(seen.values()))) == [0, 1]
    sent = [m for m in result.messages if m["direction"] == "sent"]
    assert [(m["sender"], m["recipient"], m["message"]) for m in sent] == [
        (0, 1, "result = 5 + 3"),
        (1, 0, "8"),
    ]
    assert named_actors("smol-team-") & {name.rsplit("-agents-", 1)[0] for name in seen} == set()
    assert named_actors("-agents-") == set()  # every supervisor was killed
    assert left_behind(before) == []


def test_a_team_of_local_processes_talks_through_the_cluster(ray_address):
    before = descendants()
    result = run_agents(
        "Compute 5 + 3",
        num_agents=2,
        settings=five_plus_three(),
        transport="ray",
        transport_kwargs={"url": ray_address, "agents": "local"},
        deadline_seconds=180,
    )
    assert result.state == "success" and result.output == "8"
    assert left_behind(before) == []
    assert ray.is_initialized()


def test_a_peer_that_never_answers_ends_the_team_not_a_hang(ray_address):
    settings = [
        AgentSettings(
            model=ScriptedModel(
                [
                    code('send_message(target_id=1, message="ping")'),
                    code('replies = receive_messages(timeout=120)\nfinal_answer(f"got {replies}")'),
                ]
            ),
            max_steps=4,
            verbosity_level=-1,
        ),
        # agent 1 reads the ping, and answers nobody
        AgentSettings(model=ScriptedModel([code('final_answer("I stay silent")')]), verbosity_level=-1),
    ]
    result = run_agents(
        "Ping agent 1.",
        settings=settings,
        transport="ray",
        transport_kwargs={"url": ray_address},
        deadline_seconds=180,
    )
    # agent 0 waits for a reply no one will send: the host sees the team idle and stops it
    assert result.state == "idle" and result.output is None
    assert result.agents[1].output == "I stay silent"


def test_a_receive_from_a_silent_peer_times_out_with_nothing(ray_address):
    transport = RayTransport(ray_address, num_agents=2)
    model = ScriptedModel(
        [
            code(
                'send_message(target_id=1, message="ping")\nreplies = receive_messages(timeout=2)\n'
                'final_answer(f"no answer: {replies}")'
            )
        ]
    )
    agent = CodeAgent(
        tools=[SendMessageTool(transport, 0), ReceiveMessagesTool(transport, 0)],
        model=model,
        verbosity_level=-1,
    )
    with agent:
        assert agent.run("Ping agent 1.") == "no answer: []"
    transport.close()


def test_the_cli_joins_the_cluster_by_address(tmp_path, ray_address):
    script = tmp_path / "team.py"
    script.write_text(
        "import sys\n"
        "from team_helpers import five_plus_three\n"
        "from smol_core.cli.smolagent import main\n"
        "import smol_core.cli.smolagent as cli\n"
        "cli._team_settings = lambda args, n: five_plus_three(verbosity=1)\n"
        "if __name__ == '__main__':\n"
        "    sys.exit(main(['Compute 5 + 3', '--num-agents', '2', '--deadline', '150',\n"
        f"                   '--transport', 'ray', '--transport-url', {ray_address!r}]))\n"
    )
    before = set(mailboxes())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TEAMS), *sys.path])}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "8\n"
    assert "[agent 0] message sent to agent 1" in done.stderr
    assert "[agent 1] message received from agent 0" in done.stderr
    assert set(mailboxes()) <= before  # the host killed its mailbox when the run ended


def test_an_agent_killed_on_the_cluster_is_reported_dead_to_its_peers(ray_address):
    """kill -9 of agent 1's process on its node, mid-run: the host sees it end, marks it dead in the
    mailbox, and agent 0's next message to it is an error its model reads; nothing is left behind."""
    before = descendants()
    settings = [
        AgentSettings(
            model=ScriptedModel(
                [
                    code(
                        "for attempt in range(5000):\n"
                        "    try:\n"
                        "        send_message(target_id=1, message='still there?')\n"
                        "    except Exception as error:\n"
                        "        final_answer(str(error))\n"
                        "    receive_messages(timeout=0.05)\n"
                    )
                ]
            ),
            verbosity_level=-1,
        ),
        # agent 1 keeps reading until it is killed: an agent that answered at once could end
        # before the killer found it, and agent 0 would then read "has stopped", not "has died"
        AgentSettings(
            model=ScriptedModel([code("while True:\n    receive_messages(timeout=60)")]), verbosity_level=-1
        ),
    ]
    killed: list[int] = []

    def kill_agent_1() -> None:
        for _ in range(1200):
            try:
                supervisor = ray.get_actor(next(iter(named_actors("-agents-"))), namespace="smol")
            except (StopIteration, ValueError):
                time.sleep(0.1)
                continue
            pid = ray.get(supervisor.pid.remote(1), timeout=60)
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            return

    killer = threading.Thread(target=kill_agent_1)
    killer.start()
    try:
        result = run_agents(
            "Talk.",
            settings=settings,
            transport="ray",
            transport_kwargs={"url": ray_address},
            deadline_seconds=180,
        )
    finally:
        killer.join()
    assert killed
    assert result.state == "success"
    assert "PeerGoneError: agent 1 has died: it will read no more messages" in result.output
    assert result.agents[1].exitcode == -signal.SIGKILL and not result.agents[1].reported
    assert named_actors("-agents-") == set()
    assert left_behind(before) == []


def test_a_durable_team_on_the_cluster_starts_a_killed_agent_again_and_it_resumes(ray_address, tmp_path):
    """The agent's process on its Ray node is SIGKILLed by its own model at its second call; its
    supervisor reports the exit, the host starts it again on the cluster, and it resumes."""
    from test_durable_team import _team

    team, log = _team(tmp_path, kill_at=1)
    team.transport_name, team.transport_kwargs = "ray", {"url": ray_address}
    result = team.run("Double 21 with your peer", run_id="ray-team")
    assert (tmp_path / "killed").exists()
    assert result.agents[1].restarts == 1
    assert result.state == "success" and result.output == "42"
    assert log.read_text().splitlines() == ["0", "1"]
