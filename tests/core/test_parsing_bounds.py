"""Reading model replies is bounded: linear time, a nesting limit, and hostile content is an error
the model sees (the run goes on), never an exception out of `run()` or a memory that cannot be
written out again.

Inputs are a few MiB so that a quadratic reader would run for minutes; the timeout marks are far
above what a linear one needs, so they fail only on the algorithm, never on a slow machine.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from smol_core import ToolCallingAgent
from smol_core.agents.parsing import extract_code_from_text, parse_code_blobs, parse_json_blob
from smol_core.errors import AgentError, AgentGenerationError, AgentParsingError
from smol_core.json_limits import MAX_JSON_DEPTH, JSONLimitError, loads_bounded, nesting_depth
from smol_core.memory import ActionStep
from smol_core.messages import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    TokenUsage,
)
from smol_core.models.schema_tool_calls import tool_call_from_json
from smol_core.monitoring import LogLevel
from smol_core.testing import ScriptedModel

MIB = 1 << 20
DEEP = 100_000  # far beyond Python's recursion limit


def _deep_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def _deep_json(depth: int) -> str:
    return '{"name": "final_answer", "arguments": {"answer": ' + "[" * depth + "]" * depth + "}}"


# --- the readers ------------------------------------------------------------------------------


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "reply", ["{" * (4 * MIB), '{"' * (2 * MIB), "{ " * (2 * MIB), '{"a": ' * (MIB // 2)]
)
def test_json_in_a_huge_hostile_reply_is_looked_for_in_linear_time(reply):
    with pytest.raises(ValueError):
        parse_json_blob(reply)


@pytest.mark.timeout(30)
def test_a_json_object_after_a_huge_hostile_prefix():
    action = '\nAction: {"name": "search", "arguments": {"q": "x"}}'
    assert parse_json_blob("{" * MIB + action)[0]["name"] == "search"  # a lone `{` is no candidate
    with pytest.raises(ValueError):  # a flood of candidates: only the first few are tried
        parse_json_blob('{"' * MIB + action)
    assert parse_json_blob('Thought: go {x}\nAction: {"name": "a", "arguments": {}}')[0]["name"] == "a"


@pytest.mark.timeout(30)
@pytest.mark.parametrize("reply", ["<code>" * (MIB // 2), "```py\n" * (MIB // 2), "```\n" * MIB])
def test_code_blocks_in_a_huge_hostile_reply_are_looked_for_in_linear_time(reply):
    assert extract_code_from_text(reply) is None
    with pytest.raises(AgentParsingError):
        parse_code_blobs(reply)


def test_code_blocks_are_still_read_as_before():
    text = "Thought\n```python\nx = 1\n```\nmore\n```\ny = 2\n```\n<code>\nz = 3\n</code>"
    assert extract_code_from_text(text) == "z = 3"
    assert extract_code_from_text(text.split("<code>")[0]) == "x = 1\n\ny = 2"
    assert extract_code_from_text("```json\n{}\n```") is None


@pytest.mark.timeout(30)
@pytest.mark.parametrize("reply", ["(" * MIB, "[" * MIB, "x = " + "-" * MIB + "1"])
def test_deeply_nested_code_is_a_parsing_error_not_a_recursion_error(reply):
    with pytest.raises(AgentParsingError):
        parse_code_blobs(reply)


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 900, DEEP])
def test_deep_json_is_refused_with_a_clear_error(depth):
    with pytest.raises(JSONLimitError, match="nested more than"):
        parse_json_blob(_deep_json(depth))
    with pytest.raises(JSONLimitError):
        loads_bounded("[" * depth + "]" * depth)


def test_json_within_the_limit_is_read():
    value, thought = parse_json_blob(
        'I will answer.\n{"name": "final_answer", "arguments": {"answer": [[1]]}}'
    )
    assert value["arguments"] == {"answer": [[1]]} and thought == "I will answer.\n"
    assert nesting_depth(_deep_list(DEEP)) == MAX_JSON_DEPTH + 1  # stops early, no recursion


def test_a_schema_held_reply_nested_too_deeply_is_not_a_recursion_error():
    call = tool_call_from_json(_deep_json(DEEP))
    assert call.function.name == ""
    assert tool_call_from_json('{"name": "search", "arguments": {"q": "x"}}').function.arguments == {"q": "x"}


# --- runs with hostile replies ----------------------------------------------------------------

FINAL = {"name": "final_answer", "arguments": {"answer": "recovered"}}


def _message(content: Any = "", tool_calls: list[ChatMessageToolCall] | None = None) -> ChatMessage:
    return ChatMessage(MessageRole.ASSISTANT, content, tool_calls, token_usage=TokenUsage(1, 1))


def _call(name: Any, arguments: Any) -> ChatMessageToolCall:
    return ChatMessageToolCall(function=ChatMessageToolCallFunction(name=name, arguments=arguments), id="c1")


HOSTILE_REPLIES = {
    "a million braces": "{" * MIB,
    "deep JSON in text": _deep_json(DEEP),
    "deep JSON just under the recursion limit": _deep_json(900),
    "deep arguments as a string": _message("", [_call("final_answer", "[" * DEEP + "]" * DEEP)]),
    "deep arguments as a value": _message("", [_call("final_answer", {"answer": _deep_list(DEEP)})]),
    "content that is a number": _message(12345),
    "content that is a dict": _message({"text": "hi"}),
    "content parts that are not dicts": _message(["hi", 3]),
    "a text part that is not text": _message([{"type": "text", "text": ["x"]}]),
    "a tool name that is a number": _message("", [_call(123, {})]),
    "a tool name that is a list": _message("", [_call(["final_answer"], {"answer": "x"})]),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("reply", list(HOSTILE_REPLIES.values()), ids=list(HOSTILE_REPLIES))
def test_a_hostile_reply_is_an_error_the_model_sees_and_the_run_goes_on(reply):
    model = ScriptedModel([reply, FINAL])
    agent = ToolCallingAgent(tools=[], model=model, verbosity_level=LogLevel.OFF)
    assert agent.run("task") == "recovered"
    failed = [s for s in agent.memory.steps if isinstance(s, ActionStep)][0]
    assert isinstance(failed.error, AgentError)
    # the model saw the error on its next call
    seen = "\n".join(m.text for m in model.calls[1]["messages"])
    assert str(failed.error)[:60] in seen
    # the memory still writes out, as messages and as JSON
    agent.write_memory_to_messages()
    json.dumps([step.dict() for step in agent.memory.steps])


def test_a_deep_argument_error_names_the_limit():
    agent = ToolCallingAgent(
        tools=[], model=ScriptedModel([_deep_json(DEEP), FINAL]), verbosity_level=LogLevel.OFF
    )
    agent.run("task")
    assert "nested more than" in str(agent.memory.steps[1].error)


def test_a_failed_generation_is_recorded_in_the_step():
    agent = ToolCallingAgent(
        tools=[], model=ScriptedModel([RuntimeError("server down")]), verbosity_level=LogLevel.OFF
    )
    with pytest.raises(AgentGenerationError):
        agent.run("task")
    step = agent.memory.steps[-1]
    assert isinstance(step, ActionStep) and isinstance(step.error, AgentGenerationError)
    assert "server down" in str(step.error)


def test_an_unexpected_error_in_a_step_is_recorded_before_it_propagates():
    class Broken(ToolCallingAgent):
        def _step_stream(self, memory_step):  # type: ignore[no-untyped-def]
            raise KeyError("host bug")
            yield

    agent = Broken(tools=[], model=ScriptedModel([]), verbosity_level=LogLevel.OFF)
    with pytest.raises(KeyError):
        agent.run("task")
    assert "KeyError" in str(agent.memory.steps[-1].error)


def test_a_code_agent_reply_whose_content_is_not_text_is_an_error_the_model_sees():
    from smol_core import CodeAgent

    model = ScriptedModel([_message(12345), "```python\nfinal_answer('recovered')\n```"])
    agent = CodeAgent(tools=[], model=model, verbosity_level=LogLevel.OFF)
    with agent:
        assert agent.run("task") == "recovered"
    assert isinstance(agent.memory.steps[1].error, AgentParsingError)
