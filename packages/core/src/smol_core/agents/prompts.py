"""Default prompt templates, and how templates are filled in.

Written for the smallest models first: short, concrete, one worked example per pattern, one action
format. Larger models follow them as well. Templates have smolagents' keys
(`system_prompt`, `planning`, `managed_agent`, `final_answer`) so custom templates written for it
work here; those may use Jinja2 syntax, which is rendered with Jinja2 when (and only when) a
template needs it. The defaults use plain `{{name}}` placeholders and render without it, but for the
planning templates, which list the tools and team members with a Jinja loop as smolagents' do (so a
planning template written for smolagents and ours get the same values).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypedDict


class PlanningPromptTemplate(TypedDict):
    initial_plan: str
    update_plan_pre_messages: str
    update_plan_post_messages: str


class ManagedAgentPromptTemplate(TypedDict):
    task: str
    report: str


class FinalAnswerPromptTemplate(TypedDict):
    pre_messages: str
    post_messages: str


class PromptTemplates(TypedDict):
    system_prompt: str
    planning: PlanningPromptTemplate
    managed_agent: ManagedAgentPromptTemplate
    final_answer: FinalAnswerPromptTemplate


EMPTY_PROMPT_TEMPLATES = PromptTemplates(
    system_prompt="",
    planning=PlanningPromptTemplate(
        initial_plan="", update_plan_pre_messages="", update_plan_post_messages=""
    ),
    managed_agent=ManagedAgentPromptTemplate(task="", report=""),
    final_answer=FinalAnswerPromptTemplate(pre_messages="", post_messages=""),
)

_SIMPLE_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def populate_template(template: str, variables: dict[str, Any]) -> str:
    """Fill `{{name}}` placeholders; templates with other Jinja2 syntax are rendered by Jinja2.

    A Jinja2 template sees plain values only (`smol_core.agents.template_values`): tools and agents
    as frozen views with their names, descriptions, inputs, output types and prompt texts."""
    if not isinstance(template, str):
        raise ValueError(
            f"Could not render the prompt template: it must be text, not {type(template).__name__}."
        )
    leftover = _SIMPLE_PLACEHOLDER.sub("", template)
    if "{%" in leftover or "{{" in leftover:
        return _render_jinja(template, variables)

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in variables:
            raise KeyError(f"The prompt template uses {{{{{name}}}}} but no value was given for it.")
        return str(variables[name])

    return _SIMPLE_PLACEHOLDER.sub(replace, template)


def _render_jinja(template: str, variables: dict[str, Any]) -> str:
    """Render in Jinja2's immutable sandbox over plain values (`template_values`): templates come from
    saved agents and the Hub; a plain `Template` lets `{{ lipsum.__globals__['os'].popen('id') }}`
    run commands on the host, and the sandbox alone still lets a template call `tool.forward(...)`."""
    from smol_core.agents.template_values import render_jinja

    return render_jinja(template, variables)


CODE_SYSTEM_PROMPT = """\
You solve tasks by writing Python code, step by step. In each step write a short thought, then one code block:

Thought: what you will do
{{code_block_opening_tag}}
# python code
{{code_block_closing_tag}}

The code runs and you see what it prints as the Observation. Variables and imports persist between steps. \
When you have the answer, call final_answer(answer).

Example 1
Task: What is 7 times the sum of 3 and 4?
Thought: I compute it with code.
{{code_block_opening_tag}}
result = 7 * (3 + 4)
final_answer(result)
{{code_block_closing_tag}}

Example 2
Task: Which city has more people, Paris or Lyon?
Thought: I look up both with the tool population.
{{code_block_opening_tag}}
print(population("Paris"), population("Lyon"))
{{code_block_closing_tag}}
Observation: 2100000 520000
Thought: Paris has more.
{{code_block_opening_tag}}
final_answer("Paris")
{{code_block_closing_tag}}

You can call these Python functions:
{{code_block_opening_tag}}
{{tools}}
{{code_block_closing_tag}}
{{managed_agents}}
Rules:
- Always write a thought, then a code block. Compute with code; do not guess.
- Use print() to see values. Call tools with the arguments they take.
- You may import: {{authorized_imports}}.
{{custom_instructions}}
Now begin!"""

# For small models (`ModelCapabilities.small`): a few hundred tokens of rules and examples drown a
# model of 135M parameters; worked examples picked for the task (`prompting/examples.py`) teach it more.
COMPACT_CODE_SYSTEM_PROMPT = """\
You solve tasks by writing Python code. Reply with the code in a block. End the code with \
final_answer(result).{{tools}}{{managed_agents}}
{{custom_instructions}}"""

TOOL_CALLING_SYSTEM_PROMPT = """\
You solve tasks by calling tools, step by step. In each step write a short thought, then one tool call as JSON:

Thought: what you will do
Action:
{"name": "tool_name", "arguments": {"arg": "value"}}

You then see the tool's result as the Observation. To give the answer, call the tool final_answer.

Example
Task: Which city has more people, Paris or Lyon?
Thought: I look up Paris first.
Action:
{"name": "population", "arguments": {"city": "Paris"}}
Observation: 2100000
Thought: Now Lyon.
Action:
{"name": "population", "arguments": {"city": "Lyon"}}
Observation: 520000
Thought: Paris has more.
Action:
{"name": "final_answer", "arguments": {"answer": "Paris"}}

Tools:
{{tools}}
{{managed_agents}}
Rules:
- Always call a tool; use the exact argument names.
- A result you got before can be passed by its name, for example "image_1".
{{custom_instructions}}
Now begin!"""

MANAGED_AGENTS_SECTION = """
You can also give tasks to team members. Call them like functions, with a task in plain words:
{{managed_agents_list}}
"""

# the planning prompts end with what the plan may use
_TOOLS_AND_TEAM = """\
Tools you can use:
{%- for tool in tools.values() %}
- {{ tool.name }}: {{ tool.description }}
{%- endfor %}
{%- if managed_agents %}
Team members you can give tasks to:
{%- for agent in managed_agents.values() %}
- {{ agent.name }}: {{ agent.description }}
{%- endfor %}
{%- endif %}"""


INITIAL_PLAN = (
    """\
Make a short plan for this task. List first the facts given, the facts to look up or compute, then \
the steps. Do not solve it yet; end the plan with <end_plan>.

Task:
{{task}}

"""
    + _TOOLS_AND_TEAM
)

UPDATE_PLAN_PRE = """\
You are working on this task:
{{task}}

Below is what was done so far. Then you will update the plan."""

UPDATE_PLAN_POST = (
    """\
Update the plan: what is known now, what is left, the next steps. \
You have {{remaining_steps}} steps left. End the plan with <end_plan>.

"""
    + _TOOLS_AND_TEAM
)

MANAGED_AGENT_TASK = """\
You are '{{name}}', a member of a team. Your manager gives you this task:
{{task}}

Give a complete answer with final_answer: what you found, and anything your manager should know."""

# smolagents' wording: a manager's prompt written for it reads its team's reports by this line
MANAGED_AGENT_REPORT = """Here is the final answer from your managed agent '{{name}}':
{{final_answer}}"""

FINAL_ANSWER_PRE = """\
An agent tried to solve a task and could not finish in time. Its memory follows. Give the best \
final answer you can from it."""

FINAL_ANSWER_POST = """\
Based on the above, answer this task directly:
{{task}}"""


def _templates(system_prompt: str) -> PromptTemplates:
    return PromptTemplates(
        system_prompt=system_prompt,
        planning=PlanningPromptTemplate(
            initial_plan=INITIAL_PLAN,
            update_plan_pre_messages=UPDATE_PLAN_PRE,
            update_plan_post_messages=UPDATE_PLAN_POST,
        ),
        managed_agent=ManagedAgentPromptTemplate(task=MANAGED_AGENT_TASK, report=MANAGED_AGENT_REPORT),
        final_answer=FinalAnswerPromptTemplate(
            pre_messages=FINAL_ANSWER_PRE, post_messages=FINAL_ANSWER_POST
        ),
    )


def code_agent_templates() -> PromptTemplates:
    return _templates(CODE_SYSTEM_PROMPT)


def compact_code_agent_templates() -> PromptTemplates:
    return _templates(COMPACT_CODE_SYSTEM_PROMPT)


def tool_calling_agent_templates() -> PromptTemplates:
    return _templates(TOOL_CALLING_SYSTEM_PROMPT)


def merge_templates(base: PromptTemplates, custom: dict[str, Any] | None) -> PromptTemplates:
    """Custom templates override the defaults key by key (nested dicts merged), as in smolagents.

    Templates come from files too, so their shape is checked here, once: a template is text, and a
    group (`planning`, `managed_agent`, `final_answer`) is a mapping of texts; anything else is one
    `ValueError` that names the key, rather than a `TypeError` from deep inside a run."""
    if not custom:
        return base
    if not isinstance(custom, Mapping):
        raise ValueError(f"prompt_templates must be a mapping of templates, not {type(custom).__name__}.")
    merged: dict[str, Any] = {
        key: (dict(value) if isinstance(value, dict) else value) for key, value in base.items()
    }
    for key, value in custom.items():
        if isinstance(merged.get(key), dict):
            if not isinstance(value, Mapping):
                raise ValueError(
                    f"prompt_templates[{key!r}] must be a mapping of templates, not {type(value).__name__}."
                )
            for name, text in value.items():
                _check_text(f"prompt_templates[{key!r}][{name!r}]", text)
            merged[key].update(value)
        else:
            if key in merged:
                _check_text(f"prompt_templates[{key!r}]", value)
            merged[key] = value
    return merged  # type: ignore[return-value]


def _check_text(where: str, value: Any) -> None:
    if not isinstance(value, str):
        raise ValueError(f"{where} must be text, not {type(value).__name__}.")
