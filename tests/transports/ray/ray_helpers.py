"""Module-level process bodies for the Ray tests (they must import under `spawn`)."""

from __future__ import annotations

import time


def receive_then_hang(transport, agent_id: int, got) -> None:
    """Read this agent's inbox, say what arrived, and never acknowledge it: then wait to be killed."""
    messages = transport.receive(agent_id, timeout=60)
    got.put([m.id for m in messages])
    while True:
        time.sleep(1)


def parent_of(pid: int) -> int:
    """`pid`'s parent process, from /proc."""
    with open(f"/proc/{pid}/stat") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[1])


def sockets_of(pid: int) -> set[str]:
    """The sockets `pid` holds open ('socket:[inode]'), from /proc."""
    import os

    found = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:"):
            found.add(target)
    return found


def without_warm_supervisors(processes: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """`processes` less the host's warm supervisors and their agent templates, which stay for the
    host's next team (as the local fork server does); an agent forked from a template has the
    template's command line too, and stays in the list."""
    templates = {pid for pid, cmd in processes if "smol_transport_ray.agent_template" in cmd}
    return [
        (pid, cmd)
        for pid, cmd in processes
        if not cmd.startswith("ray::AgentSupervisor")
        and not (pid in templates and _alive_parent(pid) not in templates)
    ]


def _alive_parent(pid: int) -> int:
    try:
        return parent_of(pid)
    except OSError:
        return 0


def answer_lineage(messages, **call) -> str:
    """A `FunctionModel` function, run in the agent's process: its answer is that process's pid and
    its parent's, and whether its sandbox worker forks from its supervisor's shared template."""
    import os

    from smol_core.executors.host.process import TEMPLATE

    joined = TEMPLATE._joined is not None and TEMPLATE._control is not None
    return f"Thought: say.\n<code>\nfinal_answer('{os.getpid()} {os.getppid()} {joined}')\n</code>"
