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
from smol_transport_ray.pool import close_supervisors
from smol_transport_ray.spares import SPARES
from smol_transport_ray.transport import RayTransport

from smol_core import CodeAgent, ReceiveMessagesTool, SendMessageTool, run_agents
from smol_core.teams import AgentSettings
from smol_core.testing import ScriptedModel

TEAMS = Path(__file__).parents[2] / "teams"
sys.path.insert(0, str(TEAMS))
from ray_helpers import parent_of, sockets_of, without_warm_supervisors  # noqa: E402
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


def agents_left(before: list[tuple[int, str]], settle_seconds: float = 10.0) -> list[tuple[int, str]]:
    """Processes below this one, not there `before`, still alive: the host's warm supervisors and
    their templates aside (they serve its next team), nothing may be (a sandbox worker dies a moment
    after its agent: `settle_seconds` for stragglers). The host's spare mailbox, made for its next
    team, is killed first: its worker is a Ray worker like a team's mailbox."""
    SPARES.close(ray)
    end = time.monotonic() + settle_seconds
    while True:
        known = {pid for pid, _ in before}
        new = without_warm_supervisors([(pid, cmd) for pid, cmd in descendants() if pid not in known])
        if not new or time.monotonic() >= end:
            return new
        time.sleep(0.1)


def running_agents() -> list[list[object]]:
    """Every agent process a supervisor on the cluster still runs: [team, agent id]."""
    running = []
    for name in named_actors("-agents-"):
        try:
            running += ray.get(ray.get_actor(name, namespace="smol").running.remote(), timeout=30)
        except (ValueError, ray.exceptions.RayError):  # killed meanwhile
            continue
    return running


def started_agents() -> dict[str, list[int]]:
    """Each supervisor actor on the cluster -> the agents whose processes it has started."""
    found: dict[str, list[int]] = {}
    for name in named_actors("-agents-"):
        try:
            found[name] = ray.get(ray.get_actor(name, namespace="smol").agents.remote(), timeout=30)
        except (ValueError, ray.exceptions.RayError):  # killed meanwhile: the team ended
            continue
    return found


def test_a_team_runs_its_agents_under_one_ray_actor_and_leaves_no_agent_behind(ray_address):
    close_supervisors()  # none warm from an earlier test: this team makes its own
    before = descendants()
    mailboxes_before = named_actors("smol-team-")
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
    assert (
        not named_actors("smol-team-") - mailboxes_before - set(SPARES.names())
    )  # the host killed its mailbox
    assert running_agents() == []  # every agent's process has ended; its supervisor stays warm
    assert agents_left(before) == []
    close_supervisors()
    assert named_actors("-agents-") == set()
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
    assert agents_left(before) == []
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
    close_supervisors()  # the one supervisor on the cluster is then this team's
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
    assert running_agents() == []
    assert agents_left(before) == []


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


def first_supervisor_when_started(num_agents: int) -> tuple[object, list[int]]:
    """The one supervisor on the cluster, once it has started agents 0 to `num_agents` - 1, with
    their pids."""
    for _ in range(1200):
        names = named_actors("-agents-")
        if names:
            supervisor = ray.get_actor(next(iter(names)), namespace="smol")
            pids = ray.get([supervisor.pid.remote(agent) for agent in range(num_agents)], timeout=60)
            if all(pids):
                return supervisor, pids
        time.sleep(0.1)
    raise AssertionError("no supervisor started the team's agents")


def waiting_team(ray_address: str, num_agents: int) -> dict[str, object]:
    """Run a team whose agents each sleep a few seconds; while they sleep, look at
    their processes on the node: {supervisor, template, agents: pid -> (parent, children, sockets),
    template_sockets}."""
    seen: dict[str, object] = {}

    def look() -> None:
        for _ in range(1200):
            names = named_actors("-agents-")
            if names:
                supervisor = ray.get_actor(next(iter(names)), namespace="smol")
                pids = ray.get([supervisor.pid.remote(agent) for agent in range(num_agents)], timeout=60)
                if all(pids):
                    time.sleep(1.5)  # each has read its work, closed its socket, started its worker
                    template = ray.get(supervisor.template_pid.remote())
                    seen.update(
                        supervisor=next(iter(names)), template=template, template_sockets=sockets_of(template)
                    )
                    seen["agents"] = {
                        pid: (parent_of(pid), descendants(pid), sockets_of(pid)) for pid in pids
                    }
                    return
            time.sleep(0.1)

    watcher = threading.Thread(target=look)
    watcher.start()
    sleeping = code("import time\ntime.sleep(5)\nfinal_answer('done')")  # time to look at them
    result = run_agents(
        "Wait.",
        settings=[AgentSettings(model=ScriptedModel([sleeping]), verbosity_level=-1)] * num_agents,
        transport="ray",
        transport_kwargs={"url": ray_address},
        deadline_seconds=120,
    )
    watcher.join()
    assert result.state == "success" and "agents" in seen
    return seen


def test_agents_fork_from_a_warm_template_that_the_hosts_next_team_forks_from_too(ray_address):
    """Each agent's process is a child of its supervisor's agent template, not a fresh interpreter,
    and has no child of its own (its sandbox worker forks from the supervisor's shared worker
    template); the host's next team runs under the same supervisor and the same template."""
    close_supervisors()
    first, second = waiting_team(ray_address, 2), waiting_team(ray_address, 2)
    for seen in (first, second):
        assert {parent for parent, _, _ in seen["agents"].values()} == {seen["template"]}
        assert [children for _, children, _ in seen["agents"].values()] == [[], []]
    assert (second["supervisor"], second["template"]) == (first["supervisor"], first["template"])


def test_a_forked_agent_holds_no_socket_of_its_template_or_of_another_agent(ray_address):
    """The template's control socket would let an agent ask for forks, and another agent's socket
    would let it speak for that agent: a forked agent closes every one it inherited."""
    close_supervisors()
    seen = waiting_team(ray_address, 3)
    holders = [seen["template_sockets"], *(sockets for _, _, sockets in seen["agents"].values())]
    assert all(holders)
    for index, one in enumerate(holders):
        for other in holders[index + 1 :]:
            assert not one & other


def test_a_template_killed_under_its_agents_stops_them_and_the_next_team_gets_a_new_one(ray_address):
    """SIGKILL of the template mid-run: each agent it forked takes SIGTERM (its parent died) and
    ends; the host learns every end, nothing is left behind, and the next team forks from a new
    template under the same supervisor."""
    close_supervisors()
    before = descendants()
    killed: list[int] = []

    def kill_template() -> None:
        supervisor, _ = first_supervisor_when_started(2)
        killed.append(ray.get(supervisor.template_pid.remote()))
        os.kill(killed[0], signal.SIGKILL)

    killer = threading.Thread(target=kill_template)
    killer.start()
    sleeping = code("import time\ntime.sleep(60)\nfinal_answer('too late')")
    result = run_agents(
        "Sleep.",
        settings=[AgentSettings(model=ScriptedModel([sleeping]), verbosity_level=-1)] * 2,
        transport="ray",
        transport_kwargs={"url": ray_address},
        deadline_seconds=120,
    )
    killer.join()
    assert killed and result.state != "success"
    assert [agent.exitcode is not None for agent in result.agents.values()] == [True, True]
    assert running_agents() == []
    assert agents_left(before) == []
    after = waiting_team(ray_address, 2)
    assert after["template"] not in (None, killed[0])
    assert {parent for parent, _, _ in after["agents"].values()} == {after["template"]}
