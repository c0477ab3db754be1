"""A team's agents keep their sandbox scratch folders in the team's folder and start no janitor.

Each agent used to make its scratch folder in the temporary directory, which took a janitor process
of its own (a new interpreter, about 7 ms of CPU) and a sweep of the whole directory: with 64 agents
that was a good part of the team's start. The team's folder is private to the run, removed by the
host after the run and by the host's janitor if the host is killed, so it serves every agent.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from smol_core import run_agents
from smol_core.teams import AgentSettings
from smol_core.testing import FunctionModel


def _children_running(parent: int, mark: bytes) -> int:
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == parent and mark in (entry / "cmdline").read_bytes():
                count += 1
        except OSError:
            continue
    return count


def _where(messages: object, **call: object) -> str:
    """The agent's model, run in the agent's process once its sandbox worker is up: what it sees."""
    from smol_core.executors.host import scratch
    from smol_core.janitor import JANITOR_MARK

    folder = scratch._kept_in
    assert folder is not None
    facts = {
        "folder": folder,
        "scratch": sorted(name for name in os.listdir(folder) if name.startswith(scratch.PREFIX)),
        "janitors": _children_running(os.getpid(), JANITOR_MARK.encode()),
    }
    return f"Thought: I report.\n<code>\nfinal_answer({json.dumps(facts)!r})\n</code>"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("context", ["forkserver", "spawn"])
def test_agents_keep_scratch_in_the_team_folder_which_goes_with_the_run(context: str) -> None:
    settings = AgentSettings(model=FunctionModel(_where), verbosity_level=-1)
    result = run_agents("Say where.", num_agents=2, settings=settings, deadline_seconds=120, context=context)  # type: ignore[arg-type]
    assert result.state == "success", result
    facts = json.loads(result.output)
    assert Path(facts["folder"]).name.startswith("smol-team-")
    assert len(facts["scratch"]) == 1, "the agent's sandbox worker has its scratch folder in the team's"
    assert facts["janitors"] == 0, "an agent started a janitor of its own"
    assert not os.path.exists(facts["folder"]), "the team's folder outlived the run"
