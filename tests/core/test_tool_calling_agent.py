from __future__ import annotations

import threading
import time

from smol_core import ActionStep, LogLevel, Tool, ToolCallingAgent, tool
from smol_core.errors import AgentParsingError, AgentToolCallError, AgentToolExecutionError
from smol_core.testing import ScriptedModel


@tool
def slow_square(x: int) -> int:
    """Squares a number, slowly.

    Args:
        x: The number.
    """
    time.sleep(0.3)
    return x * x


side_by_side = threading.Barrier(4, timeout=60)


@tool
def square_with_three_others(x: int) -> int:
    """Squares a number once three other calls of this tool have started.

    Args:
        x: The number.
    """
    side_by_side.wait()  # calls run one after another would break the barrier (an error, not a square)
    return x * x


class Picture:
    def __init__(self, label: str) -> None:
        self.label = label


class Camera(Tool):
    name = "camera"
    description = "Takes a picture."
    inputs = {"subject": {"type": "string", "description": "What to photograph."}}
    output_type = "any"

    def forward(self, subject: str) -> Picture:
        return Picture(subject)


class Caption(Tool):
    name = "caption"
    description = "Describes a picture."
    inputs = {"picture": {"type": "any", "description": "The picture."}}
    output_type = "string"

    def forward(self, picture: Picture) -> str:
        return f"a photo of {picture.label}"


def test_parallel_tool_calls_run_concurrently():
    model = ScriptedModel(
        [
            {"tool_calls": [{"name": "square_with_three_others", "arguments": {"x": i}} for i in range(4)]},
            {"name": "final_answer", "arguments": {"answer": "done"}},
        ]
    )
    side_by_side.reset()
    agent = ToolCallingAgent(tools=[square_with_three_others], model=model, verbosity_level=LogLevel.OFF)
    assert agent.run("squares") == "done"
    assert agent.memory.steps[1].error is None
    assert agent.memory.steps[1].observations.splitlines() == ["0", "1", "4", "9"]


def test_non_plain_outputs_are_stored_and_named_arguments_replaced():
    model = ScriptedModel(
        [
            {"name": "camera", "arguments": {"subject": "a cat"}},
            {"name": "caption", "arguments": {"picture": "picture_1"}},
            {"name": "final_answer", "arguments": {"answer": "ok"}},
        ]
    )
    agent = ToolCallingAgent(tools=[Camera(), Caption()], model=model, verbosity_level=LogLevel.OFF)
    agent.run("describe")
    assert agent.memory.steps[1].observations == "Stored 'picture_1' in memory."
    assert agent.memory.steps[2].observations == "a photo of a cat"


def test_tool_calls_read_from_text_when_the_model_has_no_native_calling():
    model = ScriptedModel(['Thought: done.\nAction:\n{"name": "final_answer", "arguments": {"answer": 7}}'])
    agent = ToolCallingAgent(tools=[], model=model, verbosity_level=LogLevel.OFF)
    assert agent.run("x") == 7


def test_bad_calls_become_observations():
    model = ScriptedModel(
        [
            "I do not know what to call",
            {"name": "no_such_tool", "arguments": {}},
            {"name": "slow_square", "arguments": {"y": 2}},
            {"name": "slow_square", "arguments": {"x": "two"}},
            {"name": "final_answer", "arguments": {"answer": 1}},
        ]
    )
    agent = ToolCallingAgent(tools=[slow_square], model=model, verbosity_level=LogLevel.OFF)
    assert agent.run("x") == 1
    errors = [s.error for s in agent.memory.steps if isinstance(s, ActionStep) and s.error]
    assert isinstance(errors[0], AgentParsingError)
    assert isinstance(errors[1], AgentToolCallError) and "no_such_tool" in str(errors[1])
    assert "no argument 'y'" in str(errors[2])
    assert "'x' should be integer" in str(errors[3])


def test_a_failing_tool_is_an_observation():
    @tool
    def broken(x: int) -> int:
        """Breaks.

        Args:
            x: Anything.
        """
        raise KeyError("missing")

    model = ScriptedModel(
        [{"name": "broken", "arguments": {"x": 1}}, {"name": "final_answer", "arguments": {"answer": 2}}]
    )
    agent = ToolCallingAgent(tools=[broken], model=model, verbosity_level=LogLevel.OFF)
    assert agent.run("x") == 2
    assert isinstance(agent.memory.steps[1].error, AgentToolExecutionError)
    assert "KeyError" in str(agent.memory.steps[1].error)


def test_native_tool_schemas_are_sent_to_the_model():
    model = ScriptedModel([{"name": "final_answer", "arguments": {"answer": 1}}])
    agent = ToolCallingAgent(tools=[slow_square], model=model, verbosity_level=LogLevel.OFF)
    agent.run("x")
    names = [t.name for t in model.calls[0]["tools_to_call_from"]]
    assert names == ["slow_square", "final_answer"]


def test_async_tool_is_awaited():
    @tool
    async def fetch(url: str) -> str:
        """Fetches a page.

        Args:
            url: The address.
        """
        return f"page {url}"

    model = ScriptedModel(
        [{"name": "fetch", "arguments": {"url": "u"}}, {"name": "final_answer", "arguments": {"answer": 1}}]
    )
    agent = ToolCallingAgent(tools=[fetch], model=model, verbosity_level=LogLevel.OFF)
    agent.run("x")
    assert agent.memory.steps[1].observations == "page u"


def test_interrupt_stops_before_the_next_step():
    started = threading.Event()

    @tool
    def wait(x: int) -> int:
        """Waits.

        Args:
            x: Anything.
        """
        started.set()
        return x

    model = ScriptedModel([{"name": "wait", "arguments": {"x": 1}}], repeat_last=True)
    agent = ToolCallingAgent(
        tools=[wait],
        model=model,
        verbosity_level=LogLevel.OFF,
        step_callbacks=[lambda step: agent.interrupt()],
    )
    try:
        agent.run("x")
    except Exception as error:
        assert "interrupted" in str(error)
    assert len([s for s in agent.memory.steps if isinstance(s, ActionStep)]) == 1


@tool
def lookup(city: str) -> str:
    """Looks up the weather.

    Args:
        city: The city.
    """
    return f"Sunny in {city}"


def test_at_max_steps_the_answer_is_asked_for_as_a_final_answer_call():
    model = ScriptedModel(
        [
            {"name": "lookup", "arguments": {"city": "Oslo"}},
            {"name": "final_answer", "arguments": {"answer": "Sunny in Oslo"}},
        ]
    )
    agent = ToolCallingAgent(tools=[lookup], model=model, max_steps=1, verbosity_level=LogLevel.OFF)
    assert agent.run("Weather in Oslo?") == "Sunny in Oslo"
    fallback = model.calls[-1]
    (answer_tool,) = fallback["tools_to_call_from"]
    assert answer_tool.name == "final_answer" and answer_tool.inputs["answer"]["type"] == "string"
    assert "Weather in Oslo?" in fallback["messages"][-1].text


def test_at_max_steps_a_structured_answer_comes_back_as_json_and_text_still_works():
    model = ScriptedModel(
        [
            {"name": "lookup", "arguments": {"city": "Oslo"}},
            {"name": "final_answer", "arguments": {"answer": [1, 2]}},
        ]
    )
    agent = ToolCallingAgent(tools=[lookup], model=model, max_steps=1, verbosity_level=LogLevel.OFF)
    assert agent.run("Numbers?") == "[1, 2]"

    # a model that answers in words anyway: its text is the answer
    model = ScriptedModel([{"name": "lookup", "arguments": {"city": "Oslo"}}, "It is sunny in Oslo."])
    agent = ToolCallingAgent(tools=[lookup], model=model, max_steps=1, verbosity_level=LogLevel.OFF)
    assert agent.run("Weather in Oslo?") == "It is sunny in Oslo."
