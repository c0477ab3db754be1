"""A team of agents in separate processes is one trace: the W3C trace context travels inside each
message as data, is checked on receipt like every untrusted field, and the receiving agent's run
continues the sender's trace. Spans go to one OTLP JSON-lines file that every process appends to."""

from __future__ import annotations

import json

import pytest
from smol_telemetry_otel.tree import build_trees, read_spans

from smol_core import run_agents
from smol_core.teams import AgentSettings
from smol_core.teams.message import Message, decode, encode
from smol_core.testing import ScriptedModel

VALID = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


def wire(**extra):
    return json.dumps({"id": "m1", "sender": 0, "recipient": 1, "timestamp": 1.0, "body": "hi", **extra})


def test_a_message_carries_the_trace_context_as_data():
    sent = Message(
        sender=0, recipient=1, body="hi", trace={"traceparent": VALID, "tracestate": "smol=1,vendor=x"}
    )
    received = decode(encode(sent))
    assert received.trace == {"traceparent": VALID, "tracestate": "smol=1,vendor=x"}
    assert received == sent  # the context is not part of the message's identity
    assert '"trace"' not in encode(Message(sender=0, recipient=1, body="hi"))  # untraced: as before


@pytest.mark.parametrize(
    "trace",
    [
        "not a dict",
        {"traceparent": 7},
        {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331"},  # no flags
        {"traceparent": "00-00000000000000000000000000000000-b7ad6b7169203331-01"},  # zero trace id
        {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01"},  # zero span id
        {"traceparent": "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},  # invalid version
        {"traceparent": "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01"},  # upper case
        {"traceparent": VALID + "\n\x1b[31m"},
        {"tracestate": "smol=1"},
    ],
)
def test_a_bad_trace_context_is_dropped_and_the_message_kept(trace):
    received = decode(wire(trace=trace))
    assert received.body == "hi" and received.trace == {}


@pytest.mark.parametrize("state", ["a" * 600, "bad key=1", "x=1," * 40, "k=\x00", 5])
def test_a_bad_tracestate_is_dropped_alone(state):
    received = decode(wire(trace={"traceparent": VALID, "tracestate": state}))
    assert received.trace == {"traceparent": VALID}


def test_other_unknown_fields_are_still_refused():
    from smol_core.teams.errors import MessageRefusedError

    with pytest.raises(MessageRefusedError):
        decode(wire(trace={"traceparent": VALID}, extra=1))


def code(body: str) -> str:
    return f"Thought: I act.\n<code>\n{body}\n</code>"


AGENT_0 = [
    code('send_message(target_id=1, message="result = 5 + 3")'),
    code('replies = receive_messages(timeout=60)\nfinal_answer(replies[0]["message"])'),
]
AGENT_1 = [code("result = 5 + 3\nsend_message(target_id=0, message=str(result))\nfinal_answer(result)")]


def two_agents() -> list[AgentSettings]:
    return [
        AgentSettings(model=ScriptedModel(AGENT_0), max_steps=4, verbosity_level=-1),
        AgentSettings(model=ScriptedModel(AGENT_1), max_steps=4, verbosity_level=-1),
    ]


def check_one_trace_across_two_processes(path) -> None:
    spans, skipped = read_spans(path.read_text().splitlines())
    assert skipped == 0
    roots = build_trees(spans)
    assert len(roots) == 1, {trace: [r.name for r in rs] for trace, rs in roots.items()}
    (trace_roots,) = roots.values()
    assert [r.name for r in trace_roots] == ["invoke_agent agent_0"]
    assert len({s.pid for s in spans}) == 2
    by_id = {s.span_id: s for s in spans}
    agent_1 = next(s for s in spans if s.name == "invoke_agent agent_1")
    sender = by_id[agent_1.parent_id]  # agent 0's send_message call, in the other process
    assert sender.name == "execute_tool send_message" and sender.pid != agent_1.pid
    assert any(s.name == "execute_tool receive_messages" and s.pid == sender.pid for s in spans)


def test_a_two_agent_team_over_the_local_transport_is_one_trace(tmp_path, monkeypatch):
    path = tmp_path / "team.jsonl"
    monkeypatch.setenv("SMOL_TRACE_FILE", str(path))  # the agents' processes inherit it
    result = run_agents("Compute 5 + 3", num_agents=2, settings=two_agents(), deadline_seconds=120)
    assert result.state == "success" and result.output == "8"
    check_one_trace_across_two_processes(path)
