"""Small models with tools: worked examples made from the agent's own tools, a block that starts with a
tool call and ends by answering, and a verbose line that says which mode was chosen and why."""

from __future__ import annotations

import dataclasses

from smol_core import CodeAgent, LogLevel, tool
from smol_core.prompting.examples import rank_examples
from smol_core.prompting.grammar import code_action_grammar
from smol_core.prompting.tool_examples import task_needs_tools, tool_examples
from smol_core.testing import ScriptedModel


@tool
def get_price(item: str) -> int:
    """Gets the price of one item at the market, in euros.

    Args:
        item: The item's name, e.g. 'pear'.
    """
    return {"pear": 2, "fig": 5}[item]


@tool
def get_height(mountain: str) -> int:
    """Returns the height of a mountain in metres.

    Args:
        mountain: The mountain's name.
    """
    return {"Etna": 3357}[mountain]


def small(model: ScriptedModel) -> ScriptedModel:
    model.capabilities = dataclasses.replace(model.capabilities, grammar=True, small=True)
    return model


def test_examples_call_the_closest_tool_last_and_answer_with_its_result() -> None:
    examples = tool_examples("How much does a fig cost?", [get_height, get_price])
    assert [e.code.split("(")[0] for e in examples] == ["result = get_height", "result = get_price"]
    closest = examples[-1]
    assert closest.task == "What is the price of one item at the market, in euros, for 'pear'?"
    answers: list[object] = []
    exec(closest.code, {"get_price": get_price, "final_answer": answers.append})  # noqa: S102 - built from our tool
    assert answers == [2]
    assert "get_height('example')" in examples[0].code  # no example value given: a placeholder


def test_grammar_can_require_a_tool_call_first() -> None:
    grammar = code_action_grammar(
        thought_prefix=None, require_final_answer=True, max_code_lines=4, first_call=["get_price"]
    )
    assert 'root ::= "<code>\\n" firstcall line{0,1} printline? answer "</code>"' in grammar
    assert 'firstcall ::= name " = " ( "get_price(" ) rest "\\n"' in grammar


def test_a_small_model_with_tools_sees_tool_examples_and_answers_in_one_block() -> None:
    task = "How much does a fig cost?"
    model = small(
        ScriptedModel([f"<code>\n# {task}\nresult = get_price('fig')\nfinal_answer(result)\n</code>"])
    )
    agent = CodeAgent(tools=[get_price, get_height], model=model, verbosity_level=LogLevel.OFF)
    with agent:
        assert agent.run(task) == 5
    call = model.calls[0]
    assert [m.role.value for m in call["messages"]] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert "get_price('pear')" in call["messages"][-2].text
    assert "firstcall" in call["grammar"] and '"get_price("' in call["grammar"]
    assert '"final_answer("' in call["grammar"]


def test_operations_the_task_does_not_ask_for_move_down() -> None:
    ranked = rank_examples("What is 144 divided by 12?")
    division = next(i for i, e in enumerate(ranked) if e.code.endswith("96 / 8\nfinal_answer(result)"))
    remainder = next(i for i, e in enumerate(ranked) if "%" in e.code)
    assert division < remainder and remainder >= 3  # out of the first draft's three examples


def test_the_mode_and_its_reason_are_said() -> None:
    model = small(ScriptedModel([]))
    model.capabilities_reason = "a test said so"  # type: ignore[attr-defined]
    line = CodeAgent(tools=[], model=model, verbosity_level=LogLevel.OFF).prompting_mode()
    assert line.startswith("Model mode: small-model prompt") and "GBNF" in line
    assert "3 answer drafts" in line and "because: a test said so" in line
    generic = CodeAgent(tools=[], model=ScriptedModel([]), verbosity_level=LogLevel.OFF).prompting_mode()
    assert "generic prompt" in generic and "unconstrained" in generic


def test_a_task_that_names_no_tool_subject_needs_no_tool() -> None:
    tools = [get_price, get_height]
    assert task_needs_tools("How much does a fig cost?", tools)  # 'cost' is a price
    assert task_needs_tools("How high is Etna in metres?", tools)
    assert not task_needs_tools("What is 17 times 23?", tools)
    assert not task_needs_tools("How many numbers are in the list [1, 2]?", tools)  # generic words only
    assert not task_needs_tools("Reverse the string 'hello'.", [])


def test_a_small_model_with_tools_computes_a_task_that_needs_none() -> None:
    """Before: made to call a tool first, it answered "What is 17 times 23?" with a price."""
    task = "What is 17 times 23?"
    model = small(ScriptedModel([f"<code>\n# {task}\nresult = 17 * 23\nfinal_answer(result)\n</code>"] * 3))
    agent = CodeAgent(tools=[get_price, get_height], model=model, verbosity_level=LogLevel.OFF)
    with agent:
        assert agent.run(task) == 391
    call = model.calls[0]
    assert "firstcall" not in call["grammar"]  # no tool call is forced
    assert "get_price" not in call["messages"][0].text  # nor listed: the prompt stays short
    assert all("get_price(" not in message.text for message in call["messages"][1:])  # arithmetic examples


def test_a_draft_that_calls_a_tool_is_not_run() -> None:
    """Drafts run only for their answers; a tool called by a losing draft would still have had its effect."""
    calls: list[str] = []

    @tool
    def order_pizza(size: str) -> str:
        """Orders a pizza.

        Args:
            size: 'small' or 'large'.
        """
        calls.append(size)
        return "ordered"

    task = "What is 6 times 7?"
    model = small(
        ScriptedModel(
            [
                f"<code>\n# {task}\nresult = order_pizza('large')\nfinal_answer(result)\n</code>",
                f"<code>\n# {task}\nfinal_answer(6 * 7)\n</code>",
                f"<code>\n# {task}\nfinal_answer(6 * 7)\n</code>",
            ]
        )
    )
    agent = CodeAgent(tools=[order_pizza], model=model, verbosity_level=LogLevel.OFF)
    with agent:
        assert agent.run(task) == 42
    assert calls == []


@tool
def get_capital(country: str) -> str:
    """Gets the capital city of a country.

    Args:
        country: The country's name, e.g. 'Peru'.
    """
    return {"Peru": "Lima"}[country]


@tool
def get_rainfall(city: str) -> int:
    """Gets the yearly rainfall of a city, in millimetres.

    Args:
        city: The city's name, e.g. 'Lima'.
    """
    return {"Lima": 16}[city]


def _run_example(example: object) -> list[object]:
    answers: list[object] = []
    namespace = {"get_capital": get_capital, "get_rainfall": get_rainfall, "final_answer": answers.append}
    exec(example.code, namespace)  # type: ignore[attr-defined]  # noqa: S102 - built from our tools
    return answers


def test_a_task_about_two_tools_gets_an_example_that_feeds_one_into_the_other() -> None:
    examples = tool_examples("What is the rainfall in the capital of Peru?", [get_capital, get_rainfall])
    chained = examples[-1]
    assert chained.code.splitlines()[:2] == [
        "capital = get_capital('Peru')",
        "result = get_rainfall(capital)",
    ]
    assert _run_example(chained) == [16]


def test_a_number_in_the_task_gets_an_example_that_computes_with_the_result() -> None:
    times = tool_examples("What is the rainfall of 3 years in Lima?", [get_rainfall])[-1]
    assert "get_rainfall('Lima') * 7" in times.code and _run_example(times) == [112]
    plus = tool_examples("What is the rainfall in Lima plus 7?", [get_rainfall])[-1]
    assert "get_rainfall('Lima') + 6" in plus.code  # never the task's own number


def test_together_gets_an_example_that_adds_two_calls() -> None:
    example = tool_examples("What is the rainfall of Lima and Quito together?", [get_rainfall])[-1]
    assert example.code.startswith("a = get_rainfall('Lima')\nb = get_rainfall(") and "a + b" in example.code


def test_a_task_with_one_call_keeps_single_call_examples() -> None:
    examples = tool_examples("What is the rainfall in Lima?", [get_capital, get_rainfall])
    assert all(example.code.count("(") == 2 for example in examples)  # the call and final_answer


def test_the_mode_line_says_whether_the_tools_are_used() -> None:
    agent = CodeAgent(tools=[get_price], model=small(ScriptedModel([])), verbosity_level=LogLevel.OFF)
    agent.task = "How much does a fig cost?"
    assert "each block calling a tool first" in agent.prompting_mode()
    agent.task = "What is 6 times 7?"
    assert "no tool call (the task names nothing the tools are about)" in agent.prompting_mode()


def test_a_run_opens_with_a_short_mode_line_and_the_reason_only_in_verbose_output() -> None:
    import io

    from smol_core.monitoring import AgentLogger

    for level, expected in (
        (LogLevel.INFO, "Model: small, grammar, 3 drafts\n"),
        (LogLevel.DEBUG, "because: a test"),
    ):
        model = small(ScriptedModel(["<code>\nfinal_answer(1)\n</code>"] * 3))
        model.capabilities_reason = "a test said so"  # type: ignore[attr-defined]
        stream = io.StringIO()
        with CodeAgent(tools=[], model=model, logger=AgentLogger(level=level, stream=stream)) as agent:
            agent.run("What is 1?")
        lines = stream.getvalue()
        assert expected in lines
        if level == LogLevel.INFO:
            assert "because" not in lines and all(len(line) <= 120 for line in lines.splitlines())
