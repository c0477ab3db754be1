"""Planning, callbacks, managed agents, images, export: the loop's features beyond one action."""

from __future__ import annotations

import json

import pytest

from smol_core import (
    ActionStep,
    CodeAgent,
    LogLevel,
    MultiStepAgent,
    PlanningStep,
    ToolCallingAgent,
    tool,
)
from smol_core.agents.serialization import AgentLoadError
from smol_core.testing import FunctionModel, ScriptedModel


def code(body: str) -> str:
    return f"Thought: act.\n<code>\n{body}\n</code>"


@tool
def double(x: int) -> int:
    """Doubles a number.

    Args:
        x: The number.
    """
    return 2 * x


def test_planning_runs_first_and_every_interval():
    replies = [
        "1. compute<end_plan>",
        code("a = 1"),
        code("b = 2"),
        "2. finish<end_plan>",
        code("final_answer(a + b)"),
    ]
    model = ScriptedModel(replies)
    agent = CodeAgent(tools=[], model=model, planning_interval=2, verbosity_level=LogLevel.OFF)
    with agent:
        assert agent.run("x") == 3
    plans = [s for s in agent.memory.steps if isinstance(s, PlanningStep)]
    assert [p.plan.splitlines()[-1] for p in plans] == ["1. compute", "2. finish"]
    assert model.calls[0]["stop_sequences"] == ["<end_plan>"]
    assert "Here is the plan" in "\n".join(m.text for m in model.calls[1]["messages"])


def test_step_callbacks_by_list_and_by_step_type():
    seen: list[str] = []
    agent = CodeAgent(
        tools=[],
        model=ScriptedModel(["p<end_plan>", code("final_answer(1)")]),
        planning_interval=5,
        step_callbacks={
            ActionStep: [
                lambda step, agent: seen.append(f"action {step.step_number} {type(agent).__name__}")
            ],
            PlanningStep: lambda step: seen.append("plan"),
        },
        verbosity_level=LogLevel.OFF,
    )
    with agent:
        agent.run("x")
    assert seen == ["plan", "action 1 CodeAgent"]


def test_managed_agent_is_a_function_for_code_agents():
    worker = CodeAgent(
        tools=[double],
        model=ScriptedModel([code("final_answer(double(21))")]),
        name="doubler",
        description="Doubles numbers.",
        verbosity_level=LogLevel.OFF,
    )
    manager = CodeAgent(
        tools=[],
        model=ScriptedModel(
            [code('report = doubler("double 21")\nprint(report)'), code("final_answer(report)")]
        ),
        managed_agents=[worker],
        verbosity_level=LogLevel.OFF,
    )
    with manager, worker:
        answer = manager.run("What is 21 doubled?")
    assert "doubler" in manager.system_prompt
    assert "42" in answer and "doubler" in answer
    assert "double 21" in worker.memory.steps[0].task


def test_managed_agent_is_a_tool_for_tool_calling_agents():
    worker = ToolCallingAgent(
        tools=[double],
        model=ScriptedModel([{"name": "final_answer", "arguments": {"answer": 8}}]),
        name="helper",
        description="Helps.",
        verbosity_level=LogLevel.OFF,
    )
    model = ScriptedModel(
        [
            {"name": "helper", "arguments": {"task": "help"}},
            {"name": "final_answer", "arguments": {"answer": "ok"}},
        ]
    )
    manager = ToolCallingAgent(tools=[], model=model, managed_agents=[worker], verbosity_level=LogLevel.OFF)
    assert manager.run("x") == "ok"
    assert "8" in manager.memory.steps[1].observations
    assert "helper" in [t.name for t in model.calls[0]["tools_to_call_from"]]


def test_managed_agents_need_name_and_description():
    worker = CodeAgent(tools=[], model=ScriptedModel([]), verbosity_level=LogLevel.OFF)
    with pytest.raises(ValueError, match="needs a name and a description"):
        CodeAgent(tools=[], model=ScriptedModel([]), managed_agents=[worker])


def test_images_reach_the_model():
    model = FunctionModel(lambda messages, **kw: code("final_answer('seen')"))
    agent = CodeAgent(tools=[], model=model, verbosity_level=LogLevel.OFF)
    with agent:
        agent.run("what is this?", images=["<image bytes>"])
    parts = [p for m in model.calls[0]["messages"] if isinstance(m.content, list) for p in m.content]
    assert {"type": "image", "image": "<image bytes>"} in parts


def test_save_and_load_a_folder(tmp_path, registry):
    agent = CodeAgent(
        tools=[double],
        model=ScriptedModel([code("final_answer(double(2))")]),
        additional_authorized_imports=["fractions"],
        max_steps=7,
        instructions="Be brief.",
        answer_drafts=2,
        verbosity_level=LogLevel.OFF,
    )
    agent.save(tmp_path)
    data = json.loads((tmp_path / "agent.json").read_text())
    assert data["class"] == "CodeAgent" and data["tools"] == [
        "double",
        "final_answer",
    ]  # final_answer too, as smolagents saves it
    assert (tmp_path / "tools" / "double.py").is_file()
    json.loads((tmp_path / "prompts.yaml").read_text())
    # authorized imports are a security setting: the file asks, the code grants
    loaded = MultiStepAgent.from_folder(
        str(tmp_path),
        model=ScriptedModel([code("final_answer(double(5))")]),
        additional_authorized_imports=["fractions"],
    )
    assert isinstance(loaded, CodeAgent)
    assert loaded.max_steps == 7 and loaded.additional_authorized_imports == ["fractions"]
    assert loaded.answer_drafts == 2
    with loaded:
        assert loaded.run("x") == 10


def test_model_is_rebuilt_from_the_registry(tmp_path, registry):
    agent = CodeAgent(tools=[], model=ScriptedModel(["hi"]), verbosity_level=LogLevel.OFF)
    data = agent.to_dict()
    data["model"]["data"] = {"replies": [code("final_answer(3)")]}
    loaded = CodeAgent.from_dict(data)
    with loaded:
        assert loaded.run("x") == 3


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ("[]", "must be a JSON object"),
        ('{"class": "Nope", "model": {}}', "Unknown agent class"),
    ],
)
def test_malformed_agent_json_is_a_clear_error(tmp_path, content, message):
    (tmp_path / "agent.json").write_text(content)
    with pytest.raises(AgentLoadError, match=message):
        MultiStepAgent.from_folder(str(tmp_path), model=ScriptedModel([]))


def test_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(AgentLoadError, match="No agent.json"):
        MultiStepAgent.from_folder(str(tmp_path))


def test_custom_jinja_prompt_templates_from_smolagents_render():
    template = (
        "Tools:{%- for tool in tools.values() %}\n- {{ tool.name }}: {{ tool.description }}{%- endfor %}"
    )
    agent = CodeAgent(tools=[double], model=ScriptedModel([]), prompt_templates={"system_prompt": template})
    assert (
        agent.system_prompt
        == "Tools:\n- double: Doubles a number.\n- final_answer: Gives the final answer to the task and ends the run."
    )


def test_console_output_shows_steps_and_goes_to_stderr(capsys):
    agent = CodeAgent(
        tools=[],
        model=ScriptedModel([code("print('hi')"), code("final_answer(1)")]),
        verbosity_level=LogLevel.INFO,
    )
    with agent:
        agent.run("say hi")
    captured = capsys.readouterr()
    assert captured.out == ""
    for expected in ("say hi", "Step 1", "print('hi')", "hi", "Final answer: 1", "Input tokens"):
        assert expected in captured.err


def test_replay_prints_the_run(capsys):
    agent = CodeAgent(tools=[], model=ScriptedModel([code("final_answer(1)")]), verbosity_level=LogLevel.OFF)
    with agent:
        agent.run("x")
    agent.logger.level = LogLevel.INFO
    agent.replay()
    assert "Step 1" in capsys.readouterr().err
