"""CodeAgent driven by scripted models, running real code through the real local executor."""

from __future__ import annotations

import re

import pytest

from smol_core import ActionStep, AgentGenerationError, CodeAgent, FinalAnswerStep, LogLevel, tool
from smol_core.errors import AgentExecutionError, AgentParsingError
from smol_core.testing import FunctionModel, ScriptedModel
from smol_core.testing.models import count_tokens


def code(body: str, thought: str = "I act.") -> str:
    return f"Thought: {thought}\n<code>\n{body}\n</code>"


@tool
def population(city: str) -> int:
    """Population of a city.

    Args:
        city: The city's name.
    """
    return {"Paris": 2_100_000, "Lyon": 520_000}[city]


@tool
def explode(reason: str) -> str:
    """Always fails.

    Args:
        reason: Why.
    """
    raise RuntimeError(f"exploded: {reason}")


def make_agent(replies, **kwargs) -> CodeAgent:
    kwargs.setdefault("verbosity_level", LogLevel.OFF)
    return CodeAgent(tools=kwargs.pop("tools", [population, explode]), model=ScriptedModel(replies), **kwargs)


def test_solves_a_task_with_tools_and_state_across_steps():
    agent = make_agent(
        [
            code('p = population("Paris")\nl = population("Lyon")\nprint(p, l)'),
            code('final_answer("Paris" if p > l else "Lyon")'),
        ]
    )
    with agent:
        assert agent.run("Which is bigger?") == "Paris"
    steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    assert "2100000 520000" in steps[0].observations
    assert steps[1].is_final_answer


def test_fenced_python_blocks_are_accepted():
    agent = make_agent(["Thought: ok\n```py\nfinal_answer(6 * 7)\n```"])
    with agent:
        assert agent.run("6*7?") == 42


def test_errors_become_observations_and_the_run_goes_on():
    agent = make_agent(
        [
            "I think the answer is 4.",  # no code block
            code("1 / 0"),  # code raises
            code('explode("test")'),  # tool raises
            code("nonexistent_tool(3)"),  # unknown name
            code('population(town="Paris")'),  # wrong argument
            code("import os"),  # blocked import
            code("final_answer(4)"),
        ]
    )
    with agent:
        assert agent.run("2+2?") == 4
    errors = [s.error for s in agent.memory.steps if isinstance(s, ActionStep) and s.error]
    assert isinstance(errors[0], AgentParsingError) and "no code block" in str(errors[0])
    assert "ZeroDivisionError" in str(errors[1])
    assert "exploded: test" in str(errors[2])
    assert "nonexistent_tool" in str(errors[3])
    assert "town" in str(errors[4])
    assert "os" in str(errors[5]) and "not allowed" in str(errors[5])
    assert all(isinstance(e, AgentExecutionError) for e in errors[1:])
    # the model sees each error on its next step
    last_input = "\n".join(m.text for m in agent.memory.steps[-1].model_input_messages)
    assert "ZeroDivisionError" in last_input and "no code block" in last_input


def test_prints_before_an_error_are_kept():
    agent = make_agent([code('print("partial")\n1/0'), code("final_answer(1)")])
    with agent:
        agent.run("x")
    step = agent.memory.steps[1]
    assert "partial" in step.observations
    assert "ZeroDivisionError" in str(step.error)


def test_additional_args_are_variables_in_the_code():
    agent = make_agent([code("final_answer(numbers[0] + numbers[1])")])
    with agent:
        assert agent.run("Add them", additional_args={"numbers": [2, 3]}) == 5
    assert "numbers" in agent.memory.steps[0].task


def test_authorized_imports_extend_the_allow_list():
    agent = make_agent(
        [code("import fractions\nfinal_answer(str(fractions.Fraction(1, 3)))")],
        additional_authorized_imports=["fractions"],
    )
    with agent:
        assert agent.run("a third") == "1/3"
    assert "fractions" in agent.system_prompt


def test_max_steps_asks_the_model_for_a_final_answer():
    model = FunctionModel(
        lambda messages, **kw: "The answer is 9" if not kw.get("stop_sequences") else code("print(1)")
    )
    agent = CodeAgent(tools=[], model=model, max_steps=2, verbosity_level=LogLevel.OFF)
    with agent:
        result = agent.run("x", return_full_result=True)
    assert result.output == "The answer is 9"
    assert result.state == "max_steps_error"
    assert len([s for s in agent.memory.steps if isinstance(s, ActionStep)]) == 3


def test_final_answer_checks_can_reject_and_send_back_to_work():
    def must_be_even(answer, memory):
        return answer % 2 == 0

    agent = make_agent([code("final_answer(3)"), code("final_answer(4)")], final_answer_checks=[must_be_even])
    with agent:
        assert agent.run("An even number") == 4
    assert "rejected by the check 'must_be_even'" in str(agent.memory.steps[1].error)


def test_structured_outputs_parse_json_replies():
    model = ScriptedModel(['{"thought": "compute", "code": "final_answer(2 ** 5)"}'])
    agent = CodeAgent(
        tools=[], model=model, use_structured_outputs_internally=True, verbosity_level=LogLevel.OFF
    )
    with agent:
        assert agent.run("2^5") == 32
    assert model.calls[0]["response_format"]["json_schema"]["name"] == "ThoughtAndCodeAnswer"
    assert '"thought"' in agent.system_prompt


def test_bad_json_in_structured_mode_is_an_observation():
    model = ScriptedModel(["not json", '{"thought": "ok", "code": "final_answer(1)"}'])
    agent = CodeAgent(
        tools=[], model=model, use_structured_outputs_internally=True, verbosity_level=LogLevel.OFF
    )
    with agent:
        assert agent.run("x") == 1
    assert "JSON" in str(agent.memory.steps[1].error)


def test_model_failure_raises_and_keeps_memory():
    agent = make_agent([code("x = 1\nprint(x)"), ConnectionError("server down")])
    with agent, pytest.raises(AgentGenerationError, match="server down"):
        agent.run("x")
    assert "1" in agent.memory.steps[1].observations
    assert len(agent.memory.steps) == 3


def test_stop_sequences_and_closing_tag_restored():
    model = ScriptedModel([code("final_answer(1)")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=LogLevel.OFF)
    with agent:
        agent.run("x")
    assert "</code>" in model.calls[0]["stop_sequences"]
    assert agent.memory.steps[1].model_output.endswith("</code>")


def test_streaming_yields_deltas_tool_calls_steps_and_final_answer():
    agent = make_agent([code("final_answer(5)")], stream_outputs=True)
    with agent:
        events = list(agent.run("x", stream=True))
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "ChatMessageStreamDelta"
    assert "ToolCall" in kinds and "ActionOutput" in kinds and "ActionStep" in kinds
    assert isinstance(events[-1], FinalAnswerStep) and events[-1].output == 5


def test_run_result_sums_token_usage_and_timing():
    agent = make_agent([code("print(1)"), code("final_answer(2)")])
    with agent:
        result = agent.run("x", return_full_result=True)
    assert result.state == "success"
    per_step = [s.token_usage for s in agent.memory.steps if isinstance(s, ActionStep)]
    assert result.token_usage.input_tokens == sum(u.input_tokens for u in per_step) > 0
    assert result.timing.duration >= 0
    assert len(result.steps) == 3


def test_plain_callable_model_and_plain_function_tool():
    def weather(city: str) -> str:
        """Weather of a city.

        Args:
            city: The city.
        """
        return f"sunny in {city}"

    agent = CodeAgent(
        tools=[weather],
        model=lambda messages: code('final_answer(weather("Oslo"))'),
        verbosity_level=LogLevel.OFF,
    )
    with agent:
        assert agent.run("weather?") == "sunny in Oslo"


def test_reset_false_continues_the_conversation():
    agent = make_agent([code("x = 10\nfinal_answer(x)"), code("final_answer(x + 1)")])
    with agent:
        assert agent.run("first") == 10
        assert agent.run("second", reset=False) == 11
    tasks = [s for s in agent.memory.steps if type(s).__name__ == "TaskStep"]
    assert len(tasks) == 2


def test_unknown_executor_type_is_a_clear_error():
    from smol_core.errors import PluginNotFoundError

    with pytest.raises(
        PluginNotFoundError, match="No executor named 'firecracker'.*Installed executors: .*local"
    ):
        make_agent([code("final_answer(1)")], executor_type="firecracker")  # when made, as in smolagents


def test_system_prompt_is_compact():
    agent = make_agent([], tools=[])
    assert len(agent.system_prompt) < 1500


def test_structured_outputs_use_a_grammar_when_the_model_decodes_under_one():
    import dataclasses

    model = ScriptedModel([code("final_answer(3)")])
    model.capabilities = dataclasses.replace(model.capabilities, grammar=True)
    agent = CodeAgent(
        tools=[], model=model, use_structured_outputs_internally=True, verbosity_level=LogLevel.OFF
    )
    with agent:
        assert agent.run("x") == 3
    call = model.calls[0]
    assert call["response_format"] is None
    # no tools to observe: the block must end by answering
    assert call["grammar"].startswith(
        'root ::= "Thought: " thought "\\n" "<code>\\n" line{0,38} printline? answer "</code>"'
    )
    assert '"thought"' not in agent.system_prompt  # the plain-text format stays


def test_code_action_grammar_shape():
    from smol_core.prompting.grammar import code_action_grammar, task_comment

    grammar = code_action_grammar("```py", "```", max_code_lines=5)
    assert grammar.startswith('root ::= "Thought: " thought "\\n" "```py\\n" line{1,5} "```"')
    assert "printline" not in grammar and "answer" not in grammar
    answer = code_action_grammar(require_final_answer=True, max_code_lines=5)
    assert 'line{0,3} printline? answer "</code>"' in answer
    assert 'answer ::= "final_answer(" rest "\\n"' in answer
    compact = code_action_grammar(
        thought_prefix=None,
        require_final_answer=True,
        max_code_lines=3,
        preamble=task_comment("Add  2\nand 2."),
    )
    assert compact.startswith('root ::= "<code>\\n# Add 2 and 2.\\n" line{0,1} printline? answer "</code>"')
    assert "thought ::=" not in compact
    assert code_action_grammar(require_final_answer=True, max_code_lines=1).startswith(
        'root ::= "Thought: " thought "\\n" "<code>\\n" answer "</code>"'
    )
    with pytest.raises(ValueError):
        code_action_grammar("<", "")
    with pytest.raises(ValueError):
        code_action_grammar(max_code_lines=0)


def test_task_comment_is_one_bounded_line():
    from smol_core.prompting.grammar import task_comment

    assert task_comment("What is\n 2 + 2?") == "# What is 2 + 2?\n"
    long = task_comment("word " * 200, max_chars=50)
    assert long.endswith("...\n") and len(long) <= 53 and long.count("\n") == 1


def _small(model: ScriptedModel) -> ScriptedModel:
    import dataclasses

    model.capabilities = dataclasses.replace(model.capabilities, grammar=True, small=True)
    return model


def test_small_models_get_a_compact_prompt_worked_examples_and_a_short_block():
    model = _small(
        ScriptedModel(["<code>\n# What is the biggest value in [4, 9, 2]?\nfinal_answer(9)\n</code>"])
    )
    agent = CodeAgent(
        tools=[],
        model=model,
        use_structured_outputs_internally=True,
        answer_drafts=1,
        verbosity_level=LogLevel.OFF,
    )
    with agent:
        assert agent.run("What is the biggest value in [4, 9, 2]?") == 9
    call = model.calls[0]
    roles = [message.role.value for message in call["messages"]]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user", "assistant", "user"]
    system = call["messages"][0].text
    assert len(system) < 200 and "final_answer(result)" in system
    # the closest example comes last, right before the task, in the reply format the grammar forces
    closest = call["messages"][-2].text
    assert "max(" in closest and closest.startswith("<code>\n# ")
    assert call["grammar"].startswith(
        'root ::= "<code>\\n# What is the biggest value in [4, 9, 2]?\\n" line{0,1} printline? answer'
    )


TASK = "What is 7 times 5?"


def _draft(line: str) -> str:
    return f"<code>\n# {TASK}\n{line}\n</code>"


def test_small_models_draft_three_answers_from_other_examples_and_keep_the_most_common():
    model = _small(
        ScriptedModel(
            [_draft("final_answer(7 % 5)"), _draft("final_answer(7 * 5)"), _draft("final_answer(35)")]
        )
    )
    agent = CodeAgent(
        tools=[], model=model, use_structured_outputs_internally=True, verbosity_level=LogLevel.OFF
    )
    with agent:
        assert agent.run(TASK) == 35
    assert len(model.calls) == 3
    shown = [[m.text for m in call["messages"][1:-1]] for call in model.calls]
    assert shown[0] != shown[1] != shown[2] and shown[0] != shown[2]  # each draft saw other examples
    step = next(s for s in agent.memory.steps if isinstance(s, ActionStep))
    assert step.code_action is not None and step.code_action.endswith(
        "final_answer(7 * 5)"
    )  # the first of the two
    assert step.token_usage is not None  # all three drafts are counted
    assert step.token_usage.input_tokens == sum(count_tokens(c["messages"]) for c in model.calls)
    assert step.model_input_messages == model.calls[1]["messages"]  # what the kept draft was written from
    # the next steps' context (and a saved run) show only the kept draft
    assert [m.role.value for m in step.to_messages()] == ["assistant", "tool-response"]


def test_drafts_that_fail_do_not_vote_and_all_failing_runs_one_reply_in_the_open():
    model = _small(
        ScriptedModel(
            [
                _draft("final_answer(undefined_name)"),
                "no code at all",
                _draft("final_answer(35)"),
            ]
        )
    )
    agent = CodeAgent(
        tools=[], model=model, use_structured_outputs_internally=True, verbosity_level=LogLevel.OFF
    )
    with agent:
        assert agent.run(TASK) == 35

    failing = _small(
        ScriptedModel([_draft("final_answer(undefined_name)")] * 4 + [_draft("final_answer(35)")] * 3)
    )
    agent = CodeAgent(
        tools=[], model=failing, use_structured_outputs_internally=True, verbosity_level=LogLevel.OFF
    )
    with agent:
        assert agent.run(TASK) == 35
    first, second = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    assert first.error is not None and "undefined_name" in str(first.error)  # the model is told why
    assert second.action_output == 35


def test_answer_drafts_setting():
    with pytest.raises(ValueError, match="at least 1"):
        CodeAgent(tools=[], model=ScriptedModel([]), answer_drafts=0)
    assert _drafts(CodeAgent(tools=[], model=_small(ScriptedModel([])))) == 3
    assert _drafts(CodeAgent(tools=[population], model=_small(ScriptedModel([])))) == 1
    with_tools = CodeAgent(tools=[population], model=_small(ScriptedModel([])))
    with_tools.task = "What is 6 times 7?"  # names nothing a tool is about: computed, and drafted
    assert _drafts(with_tools) == 3
    assert _drafts(CodeAgent(tools=[population], model=ScriptedModel([]), answer_drafts=3)) == 1
    assert _drafts(CodeAgent(tools=[], model=ScriptedModel([]))) == 1
    assert _drafts(CodeAgent(tools=[], model=ScriptedModel([]), answer_drafts=5)) == 5


def _drafts(agent: CodeAgent) -> int:
    """Answers drafted per step, as the verbose mode line says (none said: one)."""
    match = re.search(r"(\d+) answer drafts per step", agent.prompting_mode())
    return int(match.group(1)) if match else 1


def test_small_models_with_tools_see_the_tools_and_examples_that_call_them():
    model = _small(ScriptedModel([code("final_answer(population('Paris'))")]))
    agent = CodeAgent(
        tools=[population],
        model=model,
        use_structured_outputs_internally=True,
        verbosity_level=LogLevel.OFF,
    )
    with agent:
        agent.run("How many people live in Paris?")
    call = model.calls[0]
    # one worked example per tool (here one), made from the tool itself: no arithmetic-only examples
    assert [message.role.value for message in call["messages"]] == ["system", "user", "assistant", "user"]
    assert "def population(" in call["messages"][0].text
    assert "population('London')" in call["messages"][2].text
    # the block starts with a tool call and ends by answering (tests/core/test_small_model_tools.py)
    assert "firstcall line{0,1} printline? answer" in call["grammar"]


def test_a_custom_system_prompt_turns_the_small_model_prompting_off():
    model = _small(ScriptedModel([code("final_answer(1)")]))
    agent = CodeAgent(
        tools=[],
        model=model,
        prompt_templates={"system_prompt": "Solve it. {{tools}}"},
        verbosity_level=LogLevel.OFF,
    )
    with agent:
        agent.run("What is 1?")
    assert [message.role.value for message in model.calls[0]["messages"]] == ["system", "user"]


def test_with_tools_the_grammar_lets_the_model_look_before_answering():
    import dataclasses

    model = ScriptedModel([code('print(population("Paris"))'), code("final_answer(1)")])
    model.capabilities = dataclasses.replace(model.capabilities, grammar=True)
    agent = make_agent([], use_structured_outputs_internally=True)
    agent.model = model
    with agent:
        assert agent.run("x") == 1
    assert 'line{1,40} "</code>"' in model.calls[0]["grammar"]


def test_a_failed_step_shows_its_error_once_in_the_log():
    import io

    from smol_core.monitoring import AgentLogger

    stream = io.StringIO()
    model = ScriptedModel([code("len(items)"), code("final_answer(1)")])
    agent = CodeAgent(tools=[], model=model, logger=AgentLogger(LogLevel.INFO, stream=stream))
    with agent:
        agent.run("x")
    assert stream.getvalue().count("NameError: name 'items' is not defined") == 1
