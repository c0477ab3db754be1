"""Agents forked from the fork server import what the host imports, and see the host's environment.

The host here is a script run from another folder that puts a copy of smol_core, and a plugin
module, on `sys.path` at run time (as a test runner, a source checkout or an editable plugin does).
CPython starts the fork server with the interpreter's default path and never applies the host's:
its preloaded smol_core was the installed one, not the host's, and agents ran that. Each agent here
answers with where its smol_core came from and what its environment holds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import smol_core
from smol_core import run_agents
from smol_core.teams import AgentSettings
from smol_core.testing import FunctionModel, ScriptedModel

PLUGIN = """
import json
import os


def where(messages, **call):
    import smol_core.teams.worker as worker

    facts = {"worker": worker.__file__, "mark": os.environ.get("SMOL_TEST_HOST_MARK")}
    return "Thought: I report.\\n<code>\\nfinal_answer(" + repr(json.dumps(facts)) + ")\\n</code>"
"""

HOST = """
import json
import os
import sys

sys.path.insert(0, {alt!r})
sys.path.insert(0, {plugins!r})

import smol_core
from smol_core import run_agents
from smol_core.teams import AgentSettings
from smol_core.testing import FunctionModel

from where_plugin import where


def answer():
    settings = AgentSettings(model=FunctionModel(where), verbosity_level=-1)
    result = run_agents("Say where.", num_agents=1, settings=settings, deadline_seconds=120, context="forkserver")
    assert result.state == "success", result
    return json.loads(result.output)


if __name__ == "__main__":
    first = answer()  # starts the fork server
    os.environ["SMOL_TEST_HOST_MARK"] = "set after the server started"
    second = answer()
    print(json.dumps({{"host": smol_core.__file__, "first": first, "second": second}}))
"""


def test_forked_agents_import_from_the_hosts_run_time_path_and_see_its_current_environment(tmp_path: Path):
    alt = tmp_path / "alt"
    shutil.copytree(
        Path(smol_core.__file__).parent, alt / "smol_core", ignore=shutil.ignore_patterns("__pycache__")
    )
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "where_plugin.py").write_text(PLUGIN)
    host = tmp_path / "elsewhere" / "host.py"
    host.parent.mkdir()
    host.write_text(textwrap.dedent(HOST.format(alt=str(alt), plugins=str(plugins))))
    environment = {key: value for key, value in os.environ.items() if key != "SMOL_TEST_HOST_MARK"}
    done = subprocess.run(
        [sys.executable, str(host)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["host"].startswith(str(alt))
    assert seen["first"]["worker"].startswith(str(alt)), seen
    assert seen["first"]["mark"] is None
    assert seen["second"] == {"worker": seen["first"]["worker"], "mark": "set after the server started"}


def test_starting_the_fork_server_leaves_the_hosts_environment_as_it_was():
    from smol_core.teams.start_method import agent_context, start_fork_server

    before = dict(os.environ)
    start_fork_server(agent_context("forkserver"))
    assert dict(os.environ) == before


def test_where_the_platform_has_no_fork_server_agents_are_spawned(monkeypatch):
    import multiprocessing

    from smol_core.teams.start_method import agent_context

    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])  # as on Windows
    assert agent_context("forkserver").get_start_method() == "spawn"
    assert agent_context("spawn").get_start_method() == "spawn"


def test_a_local_team_larger_than_the_fork_servers_descriptors_still_forks_from_it():
    """Each agent of a local team was handed every inbox's pipe, and the server passes 256
    descriptors at most: a team of more than ~120 agents was spawned, one new interpreter per
    agent. Inboxes are named pipes opened by path now (fifo_inbox.py): an agent is handed none, and
    a team of 130 forks from the server, agent 0 messaging each (its task) and each answering."""
    from smol_core.teams import AgentSettings, Team
    from smol_core.testing import ScriptedModel

    size = 130
    first = AgentSettings(
        model=ScriptedModel(
            [
                f"<code>\nfor i in range(1, {size}):\n    send_message(target_id=i, message='ping')\n"
                f"replies = []\nwhile len(replies) < {size - 1}:\n    replies += receive_messages(timeout=30)\n"
                "final_answer(len(replies))\n</code>"
            ]
        ),
        verbosity_level=-1,
    )
    other = AgentSettings(
        model=ScriptedModel(
            ["<code>\nsend_message(target_id=0, message='pong')\nfinal_answer('pong')\n</code>"]
        ),
        verbosity_level=-1,
    )
    team = Team([first] + [other] * (size - 1), deadline_seconds=240)
    assert team.context.get_start_method() == "forkserver"
    result = team.run("Go.")
    assert result.state == "success", [
        (a.agent_id, a.state, a.error) for a in result.agents.values() if a.error
    ]
    assert result.output == str(size - 1)


DEEP_TMPDIR_HOST = """
from smol_core import run_agents
from smol_core.teams import AgentSettings
from smol_core.teams.start_method import agent_context
from smol_core.testing import ScriptedModel

assert agent_context().get_start_method() == "forkserver"
settings = AgentSettings(model=ScriptedModel(["<code>\\nfinal_answer('deep')\\n</code>"]), verbosity_level=-1)
result = run_agents("Answer.", num_agents=1, settings=settings, deadline_seconds=120)
print(result.state, result.output)
"""


def test_a_team_starts_from_the_fork_server_even_when_tmpdir_is_too_deep_for_a_socket(tmp_path: Path):
    """multiprocessing puts the server's socket in TMPDIR: 108 bytes of a Unix socket's address
    were not enough for a job's or a test's deep TMPDIR ("AF_UNIX path too long")."""
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", DEEP_TMPDIR_HOST],
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(deep)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.split()[-2:] == ["success", "deep"]


def test_the_fork_server_outlives_a_closed_terminal():
    """SIGHUP reaches the whole process group when a terminal closes. A server it killed made the
    host read every agent as ended (exit code 255) while they still ran: the host then removed the
    team folder under their reports, and never sent SIGKILL after the grace period."""
    import signal
    from multiprocessing import forkserver

    from smol_core.teams.start_method import agent_context, start_fork_server

    context = agent_context("forkserver")
    start_fork_server(context)
    server = forkserver._forkserver._forkserver_pid
    ignored = int(_proc_status(server)["SigIgn"], 16)
    assert ignored & (1 << (signal.SIGHUP - 1)), "the fork server would die of a closed terminal"
    os.kill(server, signal.SIGHUP)
    settings = AgentSettings(model=FunctionModel(_answer), verbosity_level=-1)
    result = run_agents(
        "Answer.", num_agents=1, settings=settings, deadline_seconds=120, context="forkserver"
    )
    assert result.state == "success", result
    assert forkserver._forkserver._forkserver_pid == server  # the same server served it


def _answer(messages: object, **call: object) -> str:
    return "Thought: done.\n<code>\nfinal_answer('ok')\n</code>"


def _proc_status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


COUNTING_HOST = """
import os

with open({log!r}, "a") as log:
    log.write(__name__ + "\\n")  # each time this script runs, and as what

from smol_core import run_agents
from smol_core.teams import AgentSettings
from smol_core.testing import ScriptedModel

if __name__ == "__main__":
    settings = AgentSettings(model=ScriptedModel(["<code>\\nfinal_answer(1)\\n</code>"]), verbosity_level=-1)
    for _ in range(2):
        result = run_agents("Go.", num_agents=3, settings=settings, deadline_seconds=120, context="forkserver")
        assert result.state == "success", result
"""


def test_the_hosts_script_runs_once_in_the_fork_server_not_once_per_agent(tmp_path: Path):
    """multiprocessing runs the host's main script in each child that does not have it; the fork
    server imports it once (CPython 3.11 never gives the server its path), so agents forked from it
    do not run it again as they start."""
    log = tmp_path / "runs.log"
    host = tmp_path / "host.py"
    host.write_text(textwrap.dedent(COUNTING_HOST.format(log=str(log))))
    done = subprocess.run(
        [sys.executable, str(host)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert log.read_text().splitlines() == ["__main__", "__mp_main__"]


def test_an_agent_takes_the_hosts_environment_exactly_added_changed_and_removed_names_alike():
    """Only the differences are written (each write is a putenv); the result must still be exact."""
    from smol_core.teams.start_method import with_environment

    saved = dict(os.environ)
    seen: dict[str, str] = {}
    try:
        os.environ["SMOL_TEST_GONE"] = "old"
        os.environ["SMOL_TEST_CHANGED"] = "old"
        wanted = {name: value for name, value in saved.items() if name != "SMOL_TEST_GONE"}
        wanted.update(SMOL_TEST_CHANGED="new", SMOL_TEST_ADDED="added")
        with_environment(wanted, lambda: seen.update(os.environ))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    assert seen == wanted


MODEL_MODULE = """
import os

from smol_core.testing import ScriptedModel

with open({log!r}, "a") as log:
    log.write(str(os.getpid()) + "\\n")  # each process that imports this module


class CountedModel(ScriptedModel):
    pass
"""

MODEL_HOST = """
import sys

sys.path.insert(0, {folder!r})
from smol_core import run_agents
from smol_core.teams import AgentSettings

if __name__ == "__main__":
    from counted_model import CountedModel

    settings = AgentSettings(model=CountedModel(["<code>\\nfinal_answer(1)\\n</code>"]), verbosity_level=-1)
    result = run_agents("Go.", num_agents=3, settings=settings, deadline_seconds=120, context="forkserver")
    assert result.state == "success", result
"""


def test_the_module_of_the_agents_model_is_imported_once_in_the_fork_server_not_once_per_agent(
    tmp_path: Path,
):
    """Each agent unpickles its settings, and so imports its model's module: the fork server of the
    host's first team imports it once. Here the host imports it only in its main block, so the
    server's import of the host's script does not bring it."""
    log = tmp_path / "imports.log"
    (tmp_path / "counted_model.py").write_text(textwrap.dedent(MODEL_MODULE.format(log=str(log))))
    host = tmp_path / "host.py"
    host.write_text(textwrap.dedent(MODEL_HOST.format(folder=str(tmp_path))))
    done = subprocess.run(
        [sys.executable, str(host)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-4000:]
    importers = log.read_text().splitlines()
    assert len(importers) == 2, importers  # the host, and the fork server: no agent


def test_modules_of_models_names_the_model_classes_modules_but_not_the_hosts_script():
    from smol_core.teams.settings import modules_of_models
    from smol_core.testing import ScriptedModel

    class Local(ScriptedModel):
        pass

    Local.__module__ = "__main__"
    settings = [AgentSettings(model=ScriptedModel([])), AgentSettings(model=Local([])), AgentSettings()]
    assert modules_of_models(settings) == ("smol_core.testing.models",)


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


def test_a_server_without_a_transports_client_is_started_again_with_it(monkeypatch):
    """A host's first team (over local inboxes) started the server; a later team over Redis would
    have every agent import redis-py (0.36 s each): the server is started again, preloading it."""
    from multiprocessing import forkserver

    from smol_core.teams import start_method

    context = start_method.agent_context("forkserver")
    start_method.start_fork_server(context)
    monkeypatch.setattr(start_method, "_served", set())  # as a team's server, whoever started it
    server = forkserver._forkserver
    before = server._forkserver_pid
    start_method.start_fork_server(context, ("xml.dom.minidom",))
    assert server._forkserver_pid not in (None, before)
    assert "xml.dom.minidom" in server._preload_modules
    assert start_method._served == {"xml.dom.minidom"}
    again = server._forkserver_pid
    start_method.start_fork_server(context, ("xml.dom.minidom",))  # has it: kept
    assert server._forkserver_pid == again
    result = run_agents(
        "Go.",
        settings=AgentSettings(model=ScriptedModel(["<code>\nfinal_answer(7)\n</code>"]), verbosity_level=-1),
        deadline_seconds=120,
    )
    assert result.output == "7"  # the new server serves teams


def test_a_server_that_processes_still_run_from_is_not_started_again(monkeypatch):
    """Its processes would lose their server (multiprocessing reads that as their end): the team
    that wanted more does without, and its agents import their client themselves."""
    from multiprocessing import forkserver

    from smol_core.teams import start_method

    context = start_method.agent_context("forkserver")
    start_method.start_fork_server(context)
    monkeypatch.setattr(start_method, "_served", set())
    server = forkserver._forkserver
    before = server._forkserver_pid
    running = context.Process(target=_sleep, args=(5,))
    running.start()
    try:
        start_method.start_fork_server(context, ("xml.sax.saxutils",))
        assert server._forkserver_pid == before
        assert "xml.sax.saxutils" not in server._preload_modules
        assert running.is_alive()
    finally:
        running.kill()
        running.join()


def test_the_fork_server_checks_the_tools_every_agent_makes_so_agents_do_not(monkeypatch):
    """Each agent makes its message tools and final-answer tool; their definitions' check (the
    signature and type hints of `forward`) is remembered per process, and the server fills it."""
    from smol_core.teams.local import LocalTransport
    from smol_core.teams.tool_checks import warm_tool_checks
    from smol_core.teams.tools import ReceiveMessagesTool, SendMessageTool
    from smol_core.tools import checks
    from smol_core.tools.base_tools import FinalAnswerTool

    monkeypatch.setattr(checks, "_AGREEING_FORWARDS", set())
    warm_tool_checks()
    asked: list[str] = []
    real = checks._check_forward_agrees
    monkeypatch.setattr(
        checks, "_check_forward_agrees", lambda name, *rest: asked.append(name) or real(name, *rest)
    )
    transport = LocalTransport(num_agents=2)
    try:
        SendMessageTool(transport, 0)
        ReceiveMessagesTool(transport, 0)
        FinalAnswerTool()
    finally:
        transport.close()
    assert asked == []
