"""A durable team over Redis: an agent killed mid-run resumes where it was in its inbox.

Redis keeps what an agent was handed and had not acknowledged, and gives it to the next reader of
the inbox (at-least-once). The killed agent had taken its task's message and not acknowledged it
yet (a batch is acknowledged at the next receive); its checkpoint says so, so the resumed agent
acknowledges it and is not handed it a second time when Redis delivers it again. Without that
inbox position it would read its own task again as the factor, and answer 21 * 21.
"""

from __future__ import annotations

import pytest

from smol_core.durable import SQLiteStore
from smol_core.teams import AgentSettings, Team
from smol_core.testing import FunctionModel, ResumableScript

pytest.importorskip("smol_transport_redis")


def code(body: str) -> str:
    return f"Thought: I act.\n<code>\n{body}\n</code>"


ASKER = [
    code('send_message(target_id=1, message="21")'),
    code('ready = receive_messages(timeout=60)\nsend_message(target_id=1, message="2")'),
    code('replies = receive_messages(timeout=60)\nfinal_answer(replies[0]["message"])'),
]
DOUBLER = [
    code('n = 21\nsend_message(target_id=0, message="ready")'),
    code(
        'factor = receive_messages(timeout=60)\nproduct = n * int(factor[0]["message"])\n'
        "send_message(target_id=0, message=str(product))\nfinal_answer(product)"
    ),
]


def test_a_killed_agent_is_not_handed_again_what_redis_redelivers(redis_url, tmp_path):
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    log = tmp_path / "agent-1.calls"

    def settings(script: ResumableScript) -> AgentSettings:
        return AgentSettings(
            model=FunctionModel(script), max_steps=5, verbosity_level=-1, checkpoint_store=store
        )

    team = Team(
        [
            settings(ResumableScript(ASKER)),
            settings(ResumableScript(DOUBLER, log, crash_at=1, marker=tmp_path / "killed")),
        ],
        transport="redis",
        # what a dead reader held is claimable at once: the resumed agent's first receive gets it
        transport_kwargs={"url": redis_url, "claim_idle_seconds": 0.01},
        deadline_seconds=120,
    )
    result = team.run("Double 21 with your peer", run_id="redis-team")
    assert (tmp_path / "killed").exists()
    assert result.agents[1].restarts == 1
    assert result.state == "success" and result.output == "42"
    assert log.read_text().splitlines() == ["0", "1"]
