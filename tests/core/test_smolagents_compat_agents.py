"""Agents, memory and logging behave as a smolagents 1.26 user expects: gaps found by running
smolagents' own tests on smol."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from PIL import Image
from rich.console import Console

from smol_core import (
    ActionStep,
    AgentImage,
    AgentLogger,
    ChatMessage,
    CodeAgent,
    FinalAnswerTool,
    LogLevel,
    MessageRole,
    MultiStepAgent,
    PlanningStep,
    PythonInterpreterTool,
    TaskStep,
    Timing,
    ToolCallingAgent,
    tool,
)
from smol_core.testing import ScriptedModel

ANSWER = "Thought: done.\n<code>\nfinal_answer(7)\n</code>"


def test_logger_takes_any_int_level_and_a_rich_console() -> None:
    console = Console(record=True, no_color=True, force_terminal=False, file=io.StringIO())
    logger = AgentLogger(LogLevel.DEBUG, console=console)
    assert logger.console is console
    agent = CodeAgent(tools=[], model=ScriptedModel([ANSWER]), logger=logger)
    agent.run("Count to 3")
    assert "final_answer(7)" in console.export_text()

    loud = AgentLogger(level=100)  # smolagents' "show everything"
    assert loud.level == 100
    assert CodeAgent(tools=[], model=ScriptedModel([ANSWER]), verbosity_level=100).logger.level == 100


def test_step_dicts_keep_raw_and_stay_json_ready() -> None:
    class ProviderReply:
        def __init__(self) -> None:
            self.id = "reply-1"

    message = ChatMessage(role=MessageRole.ASSISTANT, content="Hi", raw=ProviderReply())
    step = ActionStep(
        step_number=1,
        timing=Timing(start_time=0.0, end_time=1.0),
        model_input_messages=[ChatMessage(role=MessageRole.USER, content="Hello")],
        model_output_message=message,
    )
    data = step.dict()
    assert data["model_input_messages"] == [
        {"role": "user", "content": "Hello", "tool_calls": None, "raw": None, "token_usage": None}
    ]
    assert "ProviderReply" in json.dumps(data)
    plan = PlanningStep(
        model_input_messages=[message], model_output_message=message, plan="p", timing=Timing(0.0, 1.0)
    )
    assert "ProviderReply" in json.dumps(plan.dict())
    assert "raw" not in message.dict()  # the message's own dict still leaves it out


def test_additional_args_values_reach_the_model() -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([ANSWER]))
    agent.run("Follow the instruction.", additional_args={"instruction": "Remember this.", "big": "x" * 1000})
    assert "Remember this." in agent.task
    assert "x" * 1000 not in agent.task  # long values are cut in the prompt ...
    assert agent.state["big"] == "x" * 1000  # ... and whole in the variable


class StepOnlyAgent(MultiStepAgent):
    """A subclass written against older smolagents versions: it overrides `step`, not `_step_stream`."""

    def initialize_system_prompt(self) -> str:
        return "system"

    def step(self, memory_step: ActionStep) -> Any:
        return "from step" if memory_step.step_number >= 2 else None


def test_multistep_subclass_that_overrides_step_runs() -> None:
    agent = StepOnlyAgent(tools=[], model=ScriptedModel(["unused"]), max_steps=3)
    assert isinstance(agent.tools["final_answer"], FinalAnswerTool)
    assert agent.run("go") == "from step"


def test_multistep_subclass_with_neither_step_says_so() -> None:
    class Nothing(MultiStepAgent):
        def initialize_system_prompt(self) -> str:
            return "system"

    agent = Nothing(tools=[], model=ScriptedModel(["unused"]), max_steps=1)
    with pytest.raises(NotImplementedError, match="_step_stream"):
        list(agent._step_stream(ActionStep(step_number=1)))


def test_error_messages_keep_smolagents_wording() -> None:
    with pytest.raises(ValueError, match="Each tool or managed_agent should have a unique name!"):
        CodeAgent(tools=[PythonInterpreterTool(), PythonInterpreterTool()], model=ScriptedModel([ANSWER]))

    def must_be_big(answer: Any, memory: Any) -> bool:
        assert answer > 100, "too small"
        return True

    agent = CodeAgent(tools=[], model=ScriptedModel([ANSWER]), final_answer_checks=[must_be_big], max_steps=1)
    agent.run("Give a number.")
    assert "Check must_be_big failed with error: too small" in str(agent.memory.steps[1].error)


def test_tool_calling_agent_keeps_the_latest_image_as_image_png() -> None:
    @tool
    def draw(prompt: str) -> Image.Image:
        """Draws.

        Args:
            prompt: What to draw.
        """
        return Image.new("RGB", (8, 8))

    model = ScriptedModel(
        [
            {"name": "draw", "arguments": {"prompt": "a cat"}},
            {"name": "final_answer", "arguments": "image.png"},
        ]
    )
    agent = ToolCallingAgent(tools=[draw], model=model)
    output = agent.run("Draw a cat.")
    assert isinstance(output, AgentImage)
    assert agent.state["image.png"] is not None


def test_step_dicts_carry_observation_images_as_smolagents_bytes() -> None:
    image = Image.new("RGB", (4, 3), color=(255, 0, 0))
    data = ActionStep(step_number=1, observations_images=[image, "shot.png"]).dict()
    assert data["observations_images"] == [image.tobytes(), "shot.png"]
    assert ActionStep(step_number=2).dict()["observations_images"] is None


def test_a_continued_run_plans_with_the_earlier_conversation_in_view() -> None:
    """As in smolagents: the first plan of a run that continues memory (reset=False, or steps put in by
    hand) is an update plan that sees every earlier step, the first task included."""
    plan = "Plan: answer.\n<end_plan>"
    agent = CodeAgent(
        tools=[],
        model=ScriptedModel([plan, ANSWER], repeat_last=True),
        planning_interval=1,
        verbosity_level=-1,
    )
    agent.memory.steps.append(TaskStep(task="Previous user request"))
    agent.run("Continuous task", reset=False)
    first_plan = next(step for step in agent.memory.steps if isinstance(step, PlanningStep))
    texts = [message.content[0]["text"] for message in first_plan.model_input_messages]
    assert first_plan.model_input_messages[0].role == MessageRole.SYSTEM and len(texts) == 4
    assert "Previous user request" in texts[1] and "Continuous task" in texts[2]
