"""SendMessageTool and ReceiveMessagesTool inside agents, and `agent.run(task=None)`, in one process."""

from __future__ import annotations

import pytest

from smol_core import CodeAgent, ReceiveMessagesTool, SendMessageTool, ToolCallingAgent
from smol_core.monitoring import LogLevel
from smol_core.teams import LocalTransport, MessageLog
from smol_core.testing import ScriptedModel


def code(body: str) -> str:
    return f"Thought: I act.\n<code>\n{body}\n</code>"


@pytest.fixture
def transport():
    return LocalTransport(num_agents=2)


def test_the_tools_have_smolagents_names_inputs_and_outputs(transport):
    send, receive = SendMessageTool(transport, 0), ReceiveMessagesTool(transport, 1)
    assert send.name == "send_message"
    assert send.inputs["target_id"]["type"] == "integer"
    assert send.inputs["message"]["type"] == "any"
    assert send.output_type == "null"
    assert receive.name == "receive_messages"
    assert receive.output_type == "array"
    assert receive() == []  # no input needed; drains nothing
    assert send(target_id=1, message="hello") is None
    (got,) = receive(timeout=10)  # an inbox hands a message over a moment after put()
    assert got["sender"] == 0 and got["message"] == "hello" and got["id"] and got["timestamp"] > 0
    assert receive() == []  # drained


def test_the_tools_take_a_smolagents_queue_dict_as_a_plain_mapping():
    import queue

    queue_dict = {0: queue.Queue(), 1: queue.Queue()}
    SendMessageTool(queue_dict, 0)(target_id=1, message={"x": 1})
    assert [m["message"] for m in ReceiveMessagesTool(queue_dict, 1)()] == [{"x": 1}]


def test_errors_reach_the_model_and_the_run_goes_on(transport):
    log = MessageLog()
    agent = CodeAgent(
        tools=[SendMessageTool(transport, 0, log), ReceiveMessagesTool(transport, 0, log)],
        model=ScriptedModel(
            [
                code('send_message(target_id=9, message="hi")'),
                code('send_message(target_id=1, message="x" * 100_000)'),
                code('send_message(target_id=1, message="hi")\nfinal_answer("sent")'),
            ]
        ),
        verbosity_level=LogLevel.OFF,
    )
    with agent:
        result = agent.run("Say hi to agent 1.", return_full_result=True)
    assert result.output == "sent"
    observations = [str(step.get("error")) for step in result.steps if step.get("error")]
    assert "there is no agent 9 to send to; the agents are: 0, 1" in observations[0]
    assert "over the limit of 65536 bytes" in observations[1]
    assert [(r["direction"], r["recipient"], r["message"]) for r in result.team_messages] == [
        ("sent", 1, "hi")
    ]


def test_an_agent_started_without_a_task_takes_its_messages_as_the_task(transport):
    SendMessageTool(transport, 0)(target_id=1, message="Compute 5 + 3 and send me the result.")
    model = ScriptedModel([code("send_message(target_id=0, message=5 + 3)\nfinal_answer(5 + 3)")])
    agent = CodeAgent(
        tools=[SendMessageTool(transport, 1), ReceiveMessagesTool(transport, 1)],
        model=model,
        verbosity_level=LogLevel.OFF,
    )
    with agent:
        result = agent.run(task=None, return_full_result=True)
    assert result.output == 8
    assert '"sender": 0, ' in agent.task
    assert '"message": "Compute 5 + 3 and send me the result."' in agent.task
    assert [m["message"] for m in ReceiveMessagesTool(transport, 0)(timeout=10)] == [8]
    assert [r["direction"] for r in result.team_messages] == ["received", "sent"]


def test_tool_calling_agents_use_the_same_tools(transport):
    SendMessageTool(transport, 0)(target_id=1, message="What is 2 + 2?")
    model = ScriptedModel(
        [
            {"name": "send_message", "arguments": {"target_id": 0, "message": "4"}},
            {"name": "final_answer", "arguments": {"answer": "4"}},
        ]
    )
    agent = ToolCallingAgent(
        tools=[SendMessageTool(transport, 1), ReceiveMessagesTool(transport, 1)],
        model=model,
        verbosity_level=LogLevel.OFF,
    )
    assert agent.run(None) == "4"
    assert [m["message"] for m in ReceiveMessagesTool(transport, 0)(timeout=10)] == ["4"]


def test_run_without_a_task_needs_a_receive_tool():
    agent = CodeAgent(tools=[], model=ScriptedModel([code("final_answer(1)")]), verbosity_level=LogLevel.OFF)
    with agent, pytest.raises(ValueError, match="needs a ReceiveMessagesTool"):
        agent.run(None)


def test_receive_waits_for_a_message_up_to_its_timeout(transport):
    import threading

    receive = ReceiveMessagesTool(transport, 1)
    assert receive(timeout=0.2) == []
    threading.Timer(0.2, lambda: SendMessageTool(transport, 0)(target_id=1, message="late")).start()
    assert [m["message"] for m in receive(timeout=30)] == ["late"]


@pytest.mark.parametrize("action_type", ["code", "tool_calling"])
def test_each_agents_prompt_says_who_it_is_and_whom_it_can_message(transport, action_type):
    from smol_core.monitoring import AgentLogger
    from smol_core.teams import AgentSettings
    from smol_core.teams.settings import build_team_agent

    tools = [SendMessageTool(transport, 1), ReceiveMessagesTool(transport, 1)]
    settings = AgentSettings(model=ScriptedModel([]), action_type=action_type, instructions="Be brief.")
    agent = build_team_agent(1, 3, settings, tools, AgentLogger(level=LogLevel.OFF))
    prompt = agent.system_prompt
    assert "You are agent 1 of a team of 3 agents (ids 0 to 2)" in prompt
    assert "You can message agents 0, 2 with send_message" in prompt
    assert "Be brief." in prompt
    assert {"send_message", "receive_messages"} <= set(agent.tools)
    agent.cleanup()
