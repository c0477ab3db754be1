"""A two-agent team over Redis is one trace: the W3C trace context rides inside each message, so the
agent that handles a message continues the trace of the agent that sent it (smol-telemetry-otel)."""

from __future__ import annotations

import pytest

from smol_core import run_agents
from smol_core.teams import AgentSettings
from smol_core.testing import ScriptedModel

tree = pytest.importorskip("smol_telemetry_otel.tree")


def code(body: str) -> str:
    return f"Thought: I act.\n<code>\n{body}\n</code>"


def test_a_two_agent_team_over_redis_is_one_trace(redis_url, tmp_path, monkeypatch):
    path = tmp_path / "team.jsonl"
    monkeypatch.setenv("SMOL_TRACE_FILE", str(path))  # the agents' processes inherit it
    settings = [
        AgentSettings(
            model=ScriptedModel(
                [
                    code('send_message(target_id=1, message="ping")'),
                    code('replies = receive_messages(timeout=60)\nfinal_answer(replies[0]["message"])'),
                ]
            ),
            max_steps=4,
            verbosity_level=-1,
        ),
        AgentSettings(
            model=ScriptedModel([code('send_message(target_id=0, message="pong")\nfinal_answer("done")')]),
            max_steps=4,
            verbosity_level=-1,
        ),
    ]
    result = run_agents(
        "Play ping-pong",
        num_agents=2,
        settings=settings,
        transport="redis",
        transport_kwargs={"url": redis_url},
        deadline_seconds=120,
    )
    assert result.state == "success" and result.output == "pong"
    spans, skipped = tree.read_spans(path.read_text().splitlines())
    roots = tree.build_trees(spans)
    assert skipped == 0 and len(roots) == 1
    assert [r.name for r in next(iter(roots.values()))] == ["invoke_agent agent_0"]
    assert len({s.pid for s in spans}) == 2
    by_id = {s.span_id: s for s in spans}
    handler = next(s for s in spans if s.name == "invoke_agent agent_1")
    assert by_id[handler.parent_id].name == "execute_tool send_message"
