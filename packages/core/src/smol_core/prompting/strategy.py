"""How a `CodeAgent` prompts its model: one strategy object, chosen from what the model can do.

A capable model follows the generic prompt: the rules, two fixed examples, every tool listed, a
thought line before each code block. A model of a few hundred million parameters does not: it copies
the nearest pattern, drifts in long blocks and calls any tool it was shown. For it, smol prompts
differently (`SmallModelPrompting`): a compact prompt, worked examples picked for the task (or made
from the agent's own tools) as earlier turns of the chat, a short block that opens with the task as
a comment, and several answers drafted and voted on where the code only computes.

The agent asks its strategy for each of those decisions and tells it what it needs in a
`PromptFacts` (its tools, whether it has a team, the task, its code tags, the user's draft setting):
the strategy never sees the agent, so it can change with every benchmark without reaching into it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from smol_core.memory import TaskStep
from smol_core.messages import ChatMessage, MessageRole
from smol_core.models.base import Model
from smol_core.prompting.examples import WorkedExample, example_sets
from smol_core.prompting.grammar import code_action_grammar, task_comment
from smol_core.prompting.mode import ActionFormat, describe_mode
from smol_core.prompting.tool_examples import task_needs_tools, tool_examples
from smol_core.prompting.tool_signatures import compact_code_prompt
from smol_core.prompting.unit_facts import unit_fact

__all__ = [
    "DEFAULT_ANSWER_DRAFTS",
    "PromptFacts",
    "PromptingStrategy",
    "SmallModelPrompting",
    "strategy_for",
]

# Answers drafted per step for a small model that answers directly, where it was measured to help.
DEFAULT_ANSWER_DRAFTS = 3


@dataclass(frozen=True)
class PromptFacts:
    """What a strategy knows of the agent it prompts for, given by the agent with each question."""

    tools: Mapping[str, Any]  # the agent's tools by name, final_answer included
    team: bool  # whether the agent has team members (managed agents) to call
    task: str | None  # the run's task; None before a run
    code_block_tags: tuple[str, str] = ("<code>", "</code>")
    answer_drafts: int | None = None  # the user's setting; None lets the strategy choose

    @property
    def only_final_answer(self) -> bool:
        return set(self.tools) == {"final_answer"}


class PromptingStrategy:
    """The generic prompt: the default templates with every tool listed, a thought line and a block
    of up to 40 lines under a grammar, no worked examples, one answer per step unless asked for more."""

    compact_prompt = False  # the agent's default templates: the compact ones, or the full ones

    def answers_directly(self, facts: PromptFacts) -> bool:
        """Each block ends by answering: there is nothing to observe (no tools but final_answer, no team)."""
        return not facts.team and facts.only_final_answer

    def calls_tools_then_answers(self, facts: PromptFacts) -> bool:
        """Each block calls a tool first and ends by answering with what it returned."""
        return False

    def drafts_per_step(self, facts: PromptFacts) -> int:
        """How many answers to draft per step and vote on: only for agents that answer directly (a
        draft that calls a tool is not run: its effects would repeat); `answer_drafts`, or the
        strategy's default (1: no drafting)."""
        if not self.answers_directly(facts):
            return 1
        return facts.answer_drafts if facts.answer_drafts is not None else self._default_drafts

    _default_drafts = 1

    def tool_prompt(self, tool: Any) -> str:
        """How one tool reads in the system prompt: smolagents' rendering, which prompts written
        for smolagents (and the models tuned on them) expect."""
        return str(tool.to_code_prompt())

    def tools_section(self, facts: PromptFacts, tools: str) -> str:
        """What the system prompt's `{{tools}}` becomes, given the tools' code prompts."""
        return tools

    def action_grammar(self, facts: PromptFacts) -> str:
        """The GBNF grammar each reply is decoded under, for a model that decodes under one."""
        return code_action_grammar(*facts.code_block_tags, require_final_answer=self.answers_directly(facts))

    def example_messages(self, facts: PromptFacts, example_set: int = 0) -> list[ChatMessage]:
        """Earlier turns of the chat that show how tasks like this one are solved (none here);
        `example_set` picks another choice of examples for each drafted answer."""
        return []

    def describe(
        self, facts: PromptFacts, actions: ActionFormat, reason: object = None, short: bool = False
    ) -> str:
        """The line that says how the model is prompted, and why (see `prompting/mode.py`); `short`:
        the few words a run opens with."""
        return describe_mode(
            small=self.compact_prompt,
            tools_used=self.calls_tools_then_answers(facts),
            has_tools=not facts.only_final_answer and not facts.team,
            actions=actions,
            drafts=self.drafts_per_step(facts),
            reason=reason,
            short=short,
        )


class SmallModelPrompting(PromptingStrategy):
    """For a small model (`ModelCapabilities.small`) with smol's own system prompt: the compact
    prompt, worked examples picked for the task, short blocks that open with the task, answer drafts."""

    compact_prompt = True
    _default_drafts = DEFAULT_ANSWER_DRAFTS

    def answers_directly(self, facts: PromptFacts) -> bool:
        """Also when the task names nothing the tools are about (`tool_examples.task_needs_tools`):
        shown examples that call tools, a 135M model calls one for "What is 17 times 23?" too. With
        no task yet there is nothing to judge by, so the tools stay in view."""
        if facts.team:
            return False
        if facts.only_final_answer:
            return True
        return bool(facts.task) and not task_needs_tools(facts.task or "", facts.tools.values())

    def calls_tools_then_answers(self, facts: PromptFacts) -> bool:
        """With tools (no team), after worked examples made from the tools (`prompting/tool_examples.py`):
        a 135M model rarely comes back to an observation in a later step."""
        return not self.answers_directly(facts) and not facts.team

    def tool_prompt(self, tool: Any) -> str:
        """The signature the model should write, with Python's type names and the defaults
        (`prompting/tool_signatures.py`): a small model copies what it reads."""
        return compact_code_prompt(tool)

    def tools_section(self, facts: PromptFacts, tools: str) -> str:
        """Nothing for an agent that answers directly (final_answer alone is in the prompt's one
        sentence already), else the tools with a short line on how to use them."""
        if self.answers_directly(facts):
            return self._unit_fact(facts)
        opening, closing = facts.code_block_tags
        return f"\nYou can call these Python functions; print() what you need to see:\n{opening}\n{tools}\n{closing}"

    def _unit_fact(self, facts: PromptFacts) -> str:
        """For a unit conversion, the factor it needs (`prompting/unit_facts.py`); else nothing."""
        fact = unit_fact(facts.task or "")
        return f"\nUse: {fact}." if fact else ""

    def action_grammar(self, facts: PromptFacts) -> str:
        """No thought line (it mostly misreads the task), the task as the block's first line, and for
        agents that answer directly at most one line before the answer (and a print): measured on
        SmolLM2-135M (bench/agent_default_model.py), every longer block drifted into wrong code."""
        preamble = task_comment(facts.task or "")
        if self.calls_tools_then_answers(facts):
            return code_action_grammar(
                *facts.code_block_tags,
                thought_prefix=None,
                require_final_answer=True,
                max_code_lines=4,
                preamble=preamble,
                first_call=[name for name in facts.tools if name != "final_answer"],
            )
        answers = self.answers_directly(facts)
        return code_action_grammar(
            *facts.code_block_tags,
            thought_prefix=None,
            require_final_answer=answers,
            max_code_lines=3 if answers else 20,
            preamble=preamble,
        )

    def example_messages(self, facts: PromptFacts, example_set: int = 0) -> list[ChatMessage]:
        """Worked examples closest to the task (`prompting/examples.py`), another set for each draft;
        for an agent whose blocks call its tools, examples made from those tools instead."""
        if not facts.task:
            return []
        if self.answers_directly(facts):
            chosen = example_sets(facts.task, sets=example_set + 1, count=3)[example_set]
            return _example_turns(chosen, facts.code_block_tags)
        if self.calls_tools_then_answers(facts):
            return _example_turns(tool_examples(facts.task, facts.tools.values()), facts.code_block_tags)
        return []


def _example_turns(examples: Iterable[WorkedExample], tags: tuple[str, str]) -> list[ChatMessage]:
    """Each example as a task (worded as the real task will be) and a reply in the format the
    grammar forces: the block opens with the task as a comment."""
    opening, closing = tags
    messages: list[ChatMessage] = []
    for example in examples:
        reply = f"{opening}\n{task_comment(example.task)}{example.code}\n{closing}"
        messages += TaskStep(task=example.task).to_messages()
        messages.append(ChatMessage(MessageRole.ASSISTANT, [{"type": "text", "text": reply}]))
    return messages


_GENERIC = PromptingStrategy()
_SMALL = SmallModelPrompting()


def strategy_for(model: Model, custom_system_prompt: bool = False) -> PromptingStrategy:
    """The strategy for `model`, from its capabilities as known now (a server's report may come
    late): the small-model one for a small model, unless the user gave their own system prompt,
    which was written for the generic format."""
    return _SMALL if model.capabilities.small and not custom_system_prompt else _GENERIC
