"""The prompting strategy: chosen from the model's capabilities, told what it needs, never the agent."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from smol_core import tool
from smol_core.prompting.strategy import (
    PromptFacts,
    PromptingStrategy,
    SmallModelPrompting,
    strategy_for,
)
from smol_core.testing import ScriptedModel

PROMPTING = Path(__file__).resolve().parents[2] / "packages" / "core" / "src" / "smol_core" / "prompting"


@tool
def get_price(item: str) -> int:
    """Gets the price of one item at the market, in euros.

    Args:
        item: The item's name, e.g. 'pear'.
    """
    return 2


FINAL_ONLY = {"final_answer": object()}
WITH_PRICE = {"get_price": get_price, "final_answer": object()}


def small_model() -> ScriptedModel:
    model = ScriptedModel([])
    model.capabilities = dataclasses.replace(model.capabilities, small=True)
    return model


def test_the_strategy_follows_the_model_and_a_custom_prompt_turns_small_model_prompting_off() -> None:
    assert type(strategy_for(ScriptedModel([]))) is PromptingStrategy
    assert isinstance(strategy_for(small_model()), SmallModelPrompting)
    assert type(strategy_for(small_model(), custom_system_prompt=True)) is PromptingStrategy


def test_small_models_answer_directly_unless_the_task_names_what_a_tool_is_about() -> None:
    small = SmallModelPrompting()
    price = PromptFacts(WITH_PRICE, team=False, task="How much does a fig cost?")
    arithmetic = dataclasses.replace(price, task="What is 6 times 7?")
    assert small.calls_tools_then_answers(price) and not small.answers_directly(price)
    assert small.answers_directly(arithmetic) and small.drafts_per_step(arithmetic) == 3
    assert not small.answers_directly(dataclasses.replace(arithmetic, team=True))
    assert small.example_messages(price)[-1].text.startswith("<code>\n# What is the price")
    assert small.tools_section(arithmetic, "def get_price(...)") == ""
    assert "def get_price(...)" in small.tools_section(price, "def get_price(...)")


def test_the_generic_strategy_shows_no_examples_and_drafts_only_when_asked() -> None:
    generic = PromptingStrategy()
    facts = PromptFacts(FINAL_ONLY, team=False, task="What is 6 times 7?")
    assert generic.example_messages(facts) == [] and generic.drafts_per_step(facts) == 1
    assert generic.drafts_per_step(dataclasses.replace(facts, answer_drafts=4)) == 4
    assert generic.tools_section(facts, "tools") == "tools"
    assert generic.action_grammar(facts).startswith('root ::= "Thought: " thought')


def test_the_prompting_package_stands_below_agents() -> None:
    above = ("smol_core.agents", "smol_core.teams", "smol_core.cli", "smol_core.durable")
    for path in PROMPTING.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            assert not [name for name in names if name.startswith(above)], path.name
