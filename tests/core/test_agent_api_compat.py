"""The agent, run-result and logger API as smolagents 1.26's users call it (gaps found by its tests)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from smol_core import (
    AgentLogger,
    ChatMessage,
    CodeAgent,
    FinalAnswerStep,
    LogLevel,
    MessageRole,
    Model,
    RunResult,
    Timing,
    ToolCallingAgent,
)
from smol_core.testing import ScriptedModel

ANSWER = "Thought: done.\n<code>\nfinal_answer(7)\n</code>"


def test_run_result_takes_and_gives_the_deprecated_messages_name() -> None:
    result = RunResult(output=1, state="success", steps=[{"a": 1}], timing=Timing(start_time=0.0))
    with pytest.warns(FutureWarning, match="deprecated"):
        assert result.messages == [{"a": 1}]
    with pytest.warns(FutureWarning, match="deprecated"):
        old = RunResult(output=1, state="success", messages=[{"b": 2}])  # type: ignore[call-arg]
    assert old.steps == [{"b": 2}]
    with pytest.raises(ValueError, match="Cannot specify both"):
        RunResult(output=1, state="success", steps=[{"a": 1}], messages=[{"b": 2}])  # type: ignore[call-arg]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert RunResult(output=1, state="success").dict()["steps"] == []


def test_a_model_without_model_id_runs() -> None:
    class Bare(Model):
        def __init__(self) -> None:  # a subclass that never calls Model.__init__
            pass

        def generate(self, messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
            return ChatMessage(MessageRole.ASSISTANT, ANSWER)

    assert CodeAgent(tools=[], model=Bare(), verbosity_level=LogLevel.OFF).run("t") == 7


def test_system_prompt_is_read_only_and_says_where_to_change_it() -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([ANSWER]))
    with pytest.raises(AttributeError, match=r"prompt_templates\[\"system_prompt\"\]"):
        agent.system_prompt = "other"  # type: ignore[misc]


def test_finalize_step_runs_final_answer_callbacks() -> None:
    seen: list[Any] = []
    agent = CodeAgent(
        tools=[],
        model=ScriptedModel([ANSWER]),
        step_callbacks={FinalAnswerStep: lambda s, agent: seen.append(s)},
    )
    step = FinalAnswerStep(output="x")
    agent._finalize_step(step)
    assert seen == [step]


def test_log_task_shows_dicts_and_bytes() -> None:
    from rich.console import Console

    console = Console(record=True, width=120, highlight=False)
    logger = AgentLogger(console=console)
    logger.log_task(content={"k": ["v", 1]}, subtitle={"also": "dict"}, title="Run")
    logger.log_task(content=b"hello [/bad]\x00\x1b", subtitle="sub[/bad]", title=None)
    text = console.export_text()
    assert "{'k': ['v', 1]}" in text and "also" in text
    assert "hello [/bad]\\x00\\x1b" in text and "sub[/bad]" in text


def test_logger_console_is_rich_and_captures_the_log() -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel(["<code>\nsecret=3;['1', '2'][secret]\n</code>", ANSWER]))
    with agent.logger.console.capture() as capture:
        agent.run("t")
    text = capture.get()
    assert "[secret]" in text and "IndexError" in text and "final_answer(7)" in text


def test_visualize_draws_a_tree_at_any_verbosity() -> None:
    member = ToolCallingAgent(tools=[], model=ScriptedModel([]), name="web", description="Searches.")
    manager = CodeAgent(
        tools=[], model=ScriptedModel([]), managed_agents=[member], verbosity_level=LogLevel.OFF
    )
    with manager.logger.console.capture() as capture:
        manager.visualize()
    text = capture.get()
    assert "├──" in text and "└── Managed agents:" in text and "web | ToolCallingAgent" in text


def test_an_object_with_a_generate_method_is_asked_through_it() -> None:
    from unittest.mock import MagicMock

    model = MagicMock()
    model.generate.return_value = ChatMessage(MessageRole.ASSISTANT, ANSWER)
    agent = CodeAgent(tools=[], model=model, verbosity_level=LogLevel.OFF)
    assert agent.run("t") == 7
    assert model.generate.call_count == 1 and not model.called  # the method, not the mock itself
    assert agent.provide_final_answer("t").content == ANSWER


def test_provide_final_answer_shows_images_with_the_instructions() -> None:
    model = ScriptedModel(["The answer."])
    agent = CodeAgent(tools=[], model=model)
    message = agent.provide_final_answer("t", images=["image1.png"])
    assert message.content == "The answer."
    first = model.calls[0]["messages"][0]
    assert first.content[1] == {"type": "image", "image": "image1.png"}


def test_an_agent_named_like_its_tool_is_refused() -> None:
    from smol_core import tool

    @tool
    def lookup(query: str) -> str:
        """Looks something up.

        Args:
            query: what to look up.
        """
        return query

    with pytest.raises(ValueError, match="unique name"):
        CodeAgent(tools=[lookup], model=ScriptedModel([]), name="lookup", description="d")


def test_a_failed_check_is_named_as_smolagents_names_it() -> None:
    def must_be_even(answer: Any, memory: Any) -> bool:
        return bool(answer % 2 == 0)

    agent = CodeAgent(
        tools=[], model=ScriptedModel([ANSWER, ANSWER]), final_answer_checks=[must_be_even], max_steps=1
    )
    agent.run("t")
    assert "Check must_be_even failed" in str(agent.memory.steps[1].error)


def test_a_managed_agent_reports_in_smolagents_words_with_its_summary() -> None:
    member = CodeAgent(
        tools=[], model=ScriptedModel([ANSWER]), name="helper", description="Helps.", provide_run_summary=True
    )
    report = member("Do it")
    assert report.startswith("Here is the final answer from your managed agent 'helper':\n7")
    assert "\n\nFor more detail, find below a summary of this agent's work:\n<summary_of_work>\n" in report
    assert report.endswith("\n---\n</summary_of_work>")


def test_a_planning_template_under_smolagents_documented_plan_key_is_used() -> None:
    agent = CodeAgent(
        tools=[], model=ScriptedModel([]), prompt_templates={"planning": {"plan": "PLAN {{task}}"}}
    )
    assert agent.prompt_templates["planning"]["initial_plan"] == "PLAN {{task}}"


def test_a_tool_call_that_does_not_parse_is_called_invalid_json() -> None:
    reply = '{"name": weather_api", "arguments": {"location": "Paris", "date": "today"}}'
    agent = ToolCallingAgent(tools=[], model=ScriptedModel([reply, reply]), max_steps=2)
    with agent.logger.console.capture() as capture:
        agent.run("Weather?")
    assert "The JSON blob you used is invalid" in str(agent.memory.steps[1].error)
    assert "Error while parsing" in capture.get()


def test_tool_calling_output_is_logged_at_debug() -> None:
    agent = ToolCallingAgent(
        tools=[],
        model=ScriptedModel(["Thinking FLAG1\nAction: oops"]),
        max_steps=1,
        verbosity_level=LogLevel.DEBUG,
    )
    with agent.logger.console.capture() as capture:
        agent.run("t")
    assert "FLAG1" in capture.get()


def test_a_blocked_import_names_the_setting_to_change() -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel(["<code>\nimport numpy\n</code>", ANSWER]))
    with agent.logger.console.capture() as capture:
        agent.run("t")
    assert "`additional_authorized_imports`" in capture.get()


def test_an_agent_image_of_a_pil_image_is_a_pil_image() -> None:
    import copy
    import pickle

    from PIL import Image

    from smol_core import AgentImage

    image = Image.new("RGB", (10, 5), "red")
    agent = CodeAgent(tools=[], model=ScriptedModel(["<code>\nfinal_answer(image)\n</code>"]))
    output = agent.run("t", additional_args={"image": image})
    assert isinstance(output, AgentImage) and isinstance(output, Image.Image)
    assert output.size == (10, 5) and output.getpixel((0, 0)) == (255, 0, 0)
    assert output.convert("L").size == (10, 5)
    for twin in (copy.copy(output), pickle.loads(pickle.dumps(output))):
        assert isinstance(twin, AgentImage) and twin.size == (10, 5)
    assert {output}  # hashable, as agent values are


def test_a_manager_prompt_says_it_has_team_members_in_smolagents_words() -> None:
    member = CodeAgent(tools=[], model=ScriptedModel([]), name="member", description="Helps.")
    manager = CodeAgent(tools=[], model=ScriptedModel([]), managed_agents=[member])
    assert "You can also give tasks to team members." in manager.system_prompt
    assert "You can also give tasks to team members." not in member.system_prompt


def test_generate_planning_step_lists_tools_and_counts_remaining_steps() -> None:
    model = ScriptedModel(["1. do it<end_plan>"])
    member = CodeAgent(tools=[], model=ScriptedModel([]), name="member", description="Helps.")
    agent = CodeAgent(tools=[], model=model, managed_agents=[member], max_steps=10, planning_interval=2)
    agent.memory.steps.clear()
    step = list(agent._generate_planning_step("the task", is_first_step=False, step=4))[-1]
    post = step.model_input_messages[-1].content[0]["text"]
    assert "You have 6 steps left" in post
    assert "- final_answer: Gives the final answer" in post and "- member: Helps." in post
    assert step.plan.endswith("1. do it")


@pytest.mark.parametrize("code", ["final_answer = 6*7\nprint(final_answer)", "final_answer = 5"])
def test_rebinding_final_answer_is_refused_as_smolagents_refuses_it(code: str) -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([f"<code>\n{code}\n</code>", ANSWER]), max_steps=2)
    assert agent.run("t") == 7
    error = str(agent.memory.steps[1].error)
    assert "Cannot assign to name 'final_answer': doing this would erase the existing tool!" in error
    assert f"Code execution failed at line '{code.splitlines()[0]}'" in error


def test_an_assigned_final_answer_passed_to_the_call_is_renamed() -> None:
    code = "final_answer = 6*7\nfinal_answer(final_answer)"
    agent = CodeAgent(tools=[], model=ScriptedModel([f"<code>\n{code}\n</code>"]), max_steps=1)
    assert agent.run("t") == 42


def test_rebinding_a_team_members_name_is_refused() -> None:
    member = CodeAgent(tools=[], model=ScriptedModel([]), name="helper", description="Helps.")
    agent = CodeAgent(
        tools=[],
        model=ScriptedModel(["<code>\ndef helper(x):\n    return x\n</code>", ANSWER]),
        managed_agents=[member],
    )
    assert agent.run("t") == 7
    assert "Cannot assign to name 'helper'" in str(agent.memory.steps[1].error)


def test_memory_steps_read_as_mappings() -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([ANSWER]))
    agent.run("t")
    step = agent.memory.steps[1]
    assert step["step_number"] == 1 and step.get("error") is None and step.get("nope", 3) == 3
    assert "observations" in step.keys()
    with pytest.raises(KeyError):
        step["nope"]


def test_extract_action_splits_on_the_last_token() -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([]))
    assert agent.extract_action("think\nAction: a\nAction: b", "Action:") == ("a", "b")
    from smol_core import AgentParsingError

    with pytest.raises(AgentParsingError, match="No 'Action:' token"):
        agent.extract_action("no action", "Action:")


@pytest.mark.parametrize(
    ("grammar", "keyword"),
    [('root ::= "x"', "grammar"), ({"type": "regex", "value": ".*"}, "response_format")],
)
def test_grammar_constrains_every_model_call(grammar: Any, keyword: str) -> None:
    for kind, reply in (
        (CodeAgent, ANSWER),
        (ToolCallingAgent, 'Action: {"name": "final_answer", "arguments": {"answer": 7}}'),
    ):
        model = ScriptedModel([reply])
        agent = kind(tools=[], model=model, grammar=grammar)
        assert agent.run("t") == 7
        assert model.calls[0][keyword] == grammar
        assert agent.to_dict()["grammar"] == grammar


def test_an_error_names_the_failing_line_of_the_action_above_its_traceback() -> None:
    code = 'print("Flag!")\ndef error_function():\n    raise ValueError("error")\n\nerror_function()'
    agent = CodeAgent(tools=[], model=ScriptedModel([f"<code>\n{code}\n</code>", ANSWER]))
    agent.run("t")
    error = str(agent.memory.steps[1].error)
    assert error.startswith("Code execution failed at line 'error_function()' due to: ValueError: error\n")
    assert "Traceback (most recent call last):" in error and 'raise ValueError("error")' in error
    assert error.count("ValueError: error") == 1
