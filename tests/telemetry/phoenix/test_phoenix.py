"""What we send, read back by a real tracing tool: agent runs exported over OTLP/HTTP to Arize
Phoenix on loopback, then fetched from Phoenix's own span API. Phoenix maps the GenAI conventions
(and the OpenInference names we add) to its AGENT / LLM / TOOL kinds: this is what users see."""

from __future__ import annotations

from typing import Any

from smol_core import CodeAgent, run_agents
from smol_core.teams import AgentSettings
from smol_core.testing import ScriptedModel


def add(a: int, b: int) -> int:
    """Adds two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def code(body: str) -> str:
    return f"Thought: go.\n<code>\n{body}\n</code>"


def by_name(spans: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    named: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        named.setdefault(span["name"], []).append(span)
    return named


def parent_of(span: dict[str, Any], spans: list[dict[str, Any]]) -> dict[str, Any]:
    return next(s for s in spans if s["context"]["span_id"] == span["parent_id"])


def test_an_agent_run_reaches_phoenix_as_one_tree(phoenix, monkeypatch):
    import smol_telemetry_otel

    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "openinference.project.name=single")
    made = smol_telemetry_otel.instrument(endpoint=phoenix.url, capture_content=True, environ={})
    try:
        agent = CodeAgent(
            tools=[add],
            model=ScriptedModel(
                [code("x = add(2, 3)\nprint(x)"), code("1 / 0"), code("final_answer(x * 2)")]
            ),
            verbosity_level=-1,
        )
        with agent:
            assert agent.run("Add 2 and 3, then double it.") == 10
        made.flush(10)
    finally:
        smol_telemetry_otel.uninstrument(made)

    spans = phoenix.spans("single", expected=13)
    named = by_name(spans)
    run = named["invoke_agent CodeAgent"][0]
    assert run["parent_id"] is None and run["span_kind"] == "AGENT"
    assert {s["context"]["trace_id"] for s in spans} == {run["context"]["trace_id"]}
    assert sorted(s["name"] for s in spans if s["parent_id"] == run["context"]["span_id"]) == [
        "step 1",
        "step 2",
        "step 3",
    ]
    chat = named["chat scripted"][0]
    assert chat["span_kind"] == "LLM"
    assert parent_of(chat, spans)["name"].startswith("step ")
    assert chat["attributes"]["gen_ai.operation.name"] == "chat"
    assert chat["attributes"]["gen_ai.request.model"] == "scripted"
    assert chat["attributes"]["gen_ai.usage.input_tokens"] > 0
    tool = named["execute_tool add"][0]
    assert tool["span_kind"] == "TOOL"
    assert parent_of(tool, spans)["name"] == "execute_code"
    assert tool["attributes"]["gen_ai.tool.call.result"] == "5"
    failed = [s for s in named["execute_code"] if s["status_code"] == "ERROR"]
    assert len(failed) == 1 and failed[0]["attributes"]["error.type"] == "InterpreterError"
    assert parent_of(failed[0], spans)["name"] == "step 2"
    assert named["step 2"][0]["status_code"] == "ERROR"


AGENT_0 = [
    code('send_message(target_id=1, message="result = 5 + 3")'),
    code('replies = receive_messages(timeout=60)\nfinal_answer(replies[0]["message"])'),
]
AGENT_1 = [code("result = 5 + 3\nsend_message(target_id=0, message=str(result))\nfinal_answer(result)")]


def test_a_team_of_two_agent_processes_is_one_trace_in_phoenix(phoenix, monkeypatch):
    """Switched on by the standard environment alone, which the agents' processes inherit."""
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", phoenix.url)
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "openinference.project.name=team")
    settings = [
        AgentSettings(model=ScriptedModel(AGENT_0), max_steps=4, verbosity_level=-1),
        AgentSettings(model=ScriptedModel(AGENT_1), max_steps=4, verbosity_level=-1),
    ]
    result = run_agents("Compute 5 + 3", num_agents=2, settings=settings, deadline_seconds=120)
    assert result.state == "success" and result.output == "8"

    spans = phoenix.spans("team", expected=14)
    named = by_name(spans)
    first = named["invoke_agent agent_0"][0]
    second = named["invoke_agent agent_1"][0]
    assert first["parent_id"] is None
    assert {s["context"]["trace_id"] for s in spans} == {first["context"]["trace_id"]}
    sender = parent_of(second, spans)
    assert sender["name"] == "execute_tool send_message"
    assert parent_of(parent_of(parent_of(sender, spans), spans), spans) is first  # code, step, run
