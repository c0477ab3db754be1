"""Teams of agents as processes: smolagents' Manager/Process code, `run_agents`, shutdown, the CLI.

Every agent here runs in its own process (forked from the warm fork server, the default, or
`spawn`ed) with a scripted model and the real local executor; after each run the test lists this
process's descendants: none may be left behind.
"""

from __future__ import annotations

import multiprocessing
import subprocess
import sys

from team_helpers import (
    AGENT_0,
    AGENT_1,
    answer_worker_settings,
    code,
    descendants,
    five_plus_three,
    left_behind,
    smolagents_agent_process,
)

from smol_core import run_agents
from smol_core.teams import AgentSettings, Team
from smol_core.testing import FunctionModel, ScriptedModel


def test_the_smolagents_manager_and_process_code_runs_with_only_its_imports_changed():
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager:
        queue_dict = manager.dict()
        for agent_id in range(2):
            queue_dict[agent_id] = manager.Queue()
        answers = manager.dict()
        task = "Compute 5 + 3"
        processes = [
            ctx.Process(
                target=smolagents_agent_process,
                args=(queue_dict, i, task if i == 0 else None, [AGENT_0, AGENT_1][i], answers),
            )
            for i in range(2)
        ]
        for process in processes:
            process.start()
        for process in processes:
            process.join(120)
        assert [p.exitcode for p in processes] == [0, 0]
        assert dict(answers) == {0: "8", 1: 8}


def test_run_agents_gives_agent_0_the_task_and_returns_its_answer():
    before = descendants()
    result = run_agents("Compute 5 + 3", num_agents=2, settings=five_plus_three(), deadline_seconds=120)
    assert result.state == "success"
    assert result.output == "8"
    assert result.agents[0].state == "success" and result.agents[0].steps == 2
    sent = [(m["sender"], m["recipient"], m["message"]) for m in result.messages if m["direction"] == "sent"]
    assert sent == [(0, 1, "result = 5 + 3"), (1, 0, "8")]
    received = {m["id"] for m in result.messages if m["direction"] == "received"}
    assert received == {m["id"] for m in result.messages if m["direction"] == "sent"}
    assert left_behind(before) == []


def test_agents_forked_from_a_warm_fork_server_run_the_same_team():
    """`context="forkserver"`: each agent forks from a server that imported the agent loop once
    (several times faster to start than `spawn`); its parent is that server, not the host."""
    before = descendants()
    result = run_agents(
        "Compute 5 + 3", num_agents=2, settings=five_plus_three(), deadline_seconds=120, context="forkserver"
    )
    assert (result.state, result.output) == ("success", "8")
    # the fork server itself stays for the host's next team (it ends with the host); no agent stays
    assert all("forkserver" in command for _, command in left_behind(before))


def test_agents_spawned_as_fresh_interpreters_run_the_same_team():
    """`context="spawn"`, the start method where there is no fork server: each agent a new interpreter."""
    before = descendants()
    result = run_agents(
        "Compute 5 + 3", num_agents=2, settings=five_plus_three(), deadline_seconds=120, context="spawn"
    )
    assert (result.state, result.output) == ("success", "8")
    assert left_behind(before) == []


def test_an_agent_keeps_no_spare_sandbox_worker_and_forks_its_worker_from_the_hosts_template(monkeypatch):
    """One agent per process, with one worker: a spare would never serve (it doubled an agent's
    start), and the worker is a fork of the host's template, not a new interpreter."""
    settings = AgentSettings(model=FunctionModel(answer_worker_settings), verbosity_level=-1)
    monkeypatch.delenv("SMOL_EXECUTOR_PREWARM", raising=False)
    for context in ("forkserver", "spawn"):
        result = run_agents("Say.", num_agents=1, settings=settings, deadline_seconds=120, context=context)
        assert result.output == "0 True", context
    monkeypatch.setenv("SMOL_EXECUTOR_PREWARM", "1")  # the host's own choice reaches its agents
    assert run_agents("Say.", num_agents=1, settings=settings, deadline_seconds=120).output.startswith("1 ")


def test_agents_still_waiting_are_stopped_when_agent_0_answers():
    before = descendants()
    settings = [AgentSettings(model=ScriptedModel([code("final_answer('alone')")]), verbosity_level=-1)] + [
        AgentSettings(model=ScriptedModel([code("final_answer(1)")]), verbosity_level=-1)
    ] * 3  # agents 1-3 wait for a message that never comes
    result = Team(settings, deadline_seconds=120).run("Answer alone.")
    assert result.output == "alone"
    assert all(result.agents[i].state == "stopped" for i in (1, 2, 3))
    assert all(result.agents[i].exitcode is not None for i in range(4))
    assert left_behind(before) == []


def test_a_team_whose_agents_all_wait_for_messages_no_one_sends_is_stopped_as_idle():
    before = descendants()
    waiting = [code("receive_messages(timeout=600)")]
    result = run_agents(
        "Wait for a message.",
        num_agents=3,
        settings=AgentSettings(model=ScriptedModel(waiting, repeat_last=True), verbosity_level=-1),
        deadline_seconds=300,
    )
    assert result.state == "idle"
    assert result.output is None
    assert left_behind(before) == []


def test_a_deadline_stops_a_team_that_is_busy_and_never_answers():
    before = descendants()
    busy = [code("import time\ntime.sleep(20)")]  # agent 0 works on; agent 1 waits for it
    result = run_agents(
        "Work forever.",
        num_agents=2,
        settings=AgentSettings(model=ScriptedModel(busy, repeat_last=True), verbosity_level=-1),
        deadline_seconds=3,
    )
    assert result.state == "deadline"
    assert result.output is None
    assert result.agents[0].state == "stopped"
    assert left_behind(before) == []


def test_a_message_to_an_agent_that_has_ended_is_an_error_the_model_sees():
    settings = [
        AgentSettings(
            model=ScriptedModel(
                [
                    code('send_message(target_id=1, message="go")'),
                    code("receive_messages(timeout=60)"),  # agent 1 answers, and ends
                    code(
                        "for attempt in range(1000):\n"
                        "    try:\n"
                        "        send_message(target_id=1, message='still there?')\n"
                        "    except Exception as error:\n"
                        "        final_answer(str(error))\n"
                        "    receive_messages(timeout=0.05)\n"
                    ),
                ]
            ),
            verbosity_level=-1,
        ),
        AgentSettings(
            model=ScriptedModel([code('send_message(target_id=0, message="bye")\nfinal_answer("ok")')]),
            verbosity_level=-1,
        ),
    ]
    result = run_agents("Talk.", settings=settings, deadline_seconds=120)
    assert "PeerGoneError: agent 1 has stopped: it will read no more messages" in result.output


def test_the_cli_runs_a_team_and_prints_one_answer_with_prefixed_logs(tmp_path):
    script = tmp_path / "team.py"
    script.write_text(
        "import sys\n"
        "from team_helpers import five_plus_three\n"
        "from smol_core.cli.smolagent import main\n"
        "import smol_core.cli.smolagent as cli\n"
        "cli._team_settings = lambda args, n: five_plus_three(verbosity=1)\n"
        "if __name__ == '__main__':\n"
        "    sys.exit(main(['Compute 5 + 3', '--num-agents', '2', '--deadline', '120', '--save-run', sys.argv[1]]))\n"
    )
    saved = tmp_path / "runs" / "team.json"
    import os

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.dirname(__file__), *sys.path])}
    done = subprocess.run(
        [sys.executable, str(script), str(saved)], capture_output=True, text=True, timeout=180, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "8\n"
    shown = subprocess.run(
        [sys.executable, "-m", "smol_core.cli.smol", "team", str(saved)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert (
        "Team run of 2 agents" in shown.stdout and "success" in shown.stdout and "Answer: 8" in shown.stdout
    )
    assert "agent 0: success" in shown.stdout and "0 -> 1" in shown.stdout
    assert "[agent 0] " in done.stderr and "[agent 1] " in done.stderr
    assert "[agent 0] message sent to agent 1" in done.stderr
    assert "[agent 1] message received from agent 0" in done.stderr


def test_each_agent_of_a_team_keeps_to_its_budget():
    """`AgentSettings(budget=...)` (`smolagent --num-agents N --budget-steps K`): agent 0 needs two
    steps and may take one, so it stops on its budget, and the team says so and gives no answer."""
    import dataclasses

    from smol_core.agents.budget import RunBudget

    settings = [dataclasses.replace(s, budget=RunBudget(steps=1)) for s in five_plus_three()]
    result = run_agents("Compute 5 + 3", num_agents=2, settings=settings, deadline_seconds=120)
    assert result.output is None and result.state == "budget_exceeded"
    assert result.agents[0].state == "budget_exceeded" and result.agents[0].steps == 1
