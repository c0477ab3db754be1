"""Scripted agents for team tests: module-level, so that they pickle into `spawn`ed processes."""

from __future__ import annotations

import os
from pathlib import Path

from smol_core.teams import AgentSettings
from smol_core.testing import ScriptedModel


def code(body: str) -> str:
    return f"Thought: I act.\n<code>\n{body}\n</code>"


# smolagents' two-agent workflow: agent 0 writes the code and sends it; agent 1 runs it and answers.
AGENT_0 = [
    code('send_message(target_id=1, message="result = 5 + 3")'),
    code('replies = receive_messages(timeout=60)\nfinal_answer(replies[0]["message"])'),
]
AGENT_1 = [code("result = 5 + 3\nsend_message(target_id=0, message=str(result))\nfinal_answer(result)")]


def five_plus_three(verbosity: int = -1) -> list[AgentSettings]:
    return [
        AgentSettings(model=ScriptedModel(AGENT_0), max_steps=4, verbosity_level=verbosity),
        AgentSettings(model=ScriptedModel(AGENT_1), max_steps=4, verbosity_level=verbosity),
    ]


def descendants(pid: int | None = None) -> list[tuple[int, str]]:
    """(pid, command line) of every live process below `pid` (default: this one), from /proc.

    The helpers that live as long as the host (multiprocessing's resource tracker, a forkserver,
    smol's scratch janitor) are left out: they belong to the host, not to a run."""
    root = pid or os.getpid()
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[tuple[int, str]] = []
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            try:
                cmdline = (Path("/proc") / str(child) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            stack.append(child)
            # the host's services, kept for its lifetime: multiprocessing's, the janitor, the worker template
            if any(
                name in cmdline
                for name in ("resource_tracker", "forkserver", "smol-janitor", "serve_template")
            ):
                continue
            found.append((child, cmdline))
    return found


def smolagents_agent_process(
    queue_dict, agent_id: int, task: str | None, replies: list[str], answers
) -> None:
    """The smolagents README's per-process function, with only its imports changed (and a scripted model)."""
    from smol_core import CodeAgent, ReceiveMessagesTool, SendMessageTool

    agent = CodeAgent(
        tools=[SendMessageTool(queue_dict, agent_id), ReceiveMessagesTool(queue_dict, agent_id)],
        model=ScriptedModel(replies),
        verbosity_level=-1,
    )
    with agent:
        answers[agent_id] = agent.run(task=task)


def left_behind(before: list[tuple[int, str]], settle_seconds: float = 10.0) -> list[tuple[int, str]]:
    """Processes below this one that were not there `before` the run and are still alive.

    A sandbox worker dies with its agent by the kernel's hand (PDEATHSIG), a moment after it: give
    stragglers `settle_seconds` to go before calling them left behind."""
    import time

    known = {pid for pid, _ in before}
    end = time.monotonic() + settle_seconds
    while True:
        new = [(pid, cmd) for pid, cmd in descendants() if pid not in known]
        if not new or time.monotonic() >= end:
            return new
        time.sleep(0.1)


def answer_worker_settings(messages, **call) -> str:
    """A `FunctionModel` function: the agent's process answers with its spare setting, and whether
    its sandbox worker was forked from the host's shared template."""
    from smol_core.executors.host.process import TEMPLATE

    joined = TEMPLATE._joined is not None and TEMPLATE._control is not None
    return code(f"final_answer({os.environ.get('SMOL_EXECUTOR_PREWARM')!r} + ' ' + {str(joined)!r})")
