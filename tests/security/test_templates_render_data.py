"""Prompt templates render data, never objects.

A saved agent's `prompt_templates` come from a file. Jinja's sandbox stops `__globals__` and other
underscore tricks, but not ordinary method calls on the objects a template is given: handed the live
tools and managed agents, a template from a file called `tool.forward(...)` (files written on the
host), read `agent.model.api_key` and sent it out through a tool. Templates now get frozen views with
precomputed strings and plain dicts (`smol_core.agents.template_values`), in every path: the system
prompt of both agent kinds, planning, the managed-agent task and report, the final answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2
import pytest

from smol_core import CodeAgent, MultiStepAgent, Tool, ToolCallingAgent, populate_template
from smol_core.monitoring import LogLevel
from smol_core.testing import ScriptedModel

SECRET = "sk-canary-template-0123456789"


class Recorder(Tool):
    """A tool with an effect: every call writes the file it is given, and is recorded."""

    name = "recorder"
    description = "Records a value."
    inputs = {"path": {"type": "string", "description": "Where to write."}}
    output_type = "string"
    calls: list[str] = []  # noqa: RUF012 - shared on purpose: any instance's call is recorded

    def forward(self, path: str) -> str:
        Recorder.calls.append(path)
        Path(path).write_text("pwned")
        return "written"


class KeyedModel(ScriptedModel):
    """A model holding a credential, as API models do."""

    api_key = SECRET


@pytest.fixture(autouse=True)
def _clear_calls() -> None:
    Recorder.calls.clear()


def _member() -> CodeAgent:
    return CodeAgent(
        tools=[Recorder()],
        model=KeyedModel(["final_answer('done')"], repeat_last=True),
        name="member",
        description="Does things.",
        verbosity_level=LogLevel.OFF,
    )


def _manager(
    templates: dict[str, Any], kind: type[MultiStepAgent] = CodeAgent, member: CodeAgent | None = None
) -> MultiStepAgent:
    member = member or _member()
    return kind(
        tools=[Recorder()],
        model=KeyedModel(["final_answer('ok')"], repeat_last=True),
        managed_agents=[member],
        prompt_templates=templates,
        verbosity_level=LogLevel.OFF,
    )


def _attacks(marker: Path) -> list[str]:
    return [
        "{% set t = tools.values()|first %}{{ t.forward('" + str(marker) + "') }}",
        "{% for t in tools.values() %}{{ t.forward('" + str(marker) + "') }}{% endfor %}",
        "{% for t in tools.values() %}{{ t('" + str(marker) + "') }}{% endfor %}",
        "{% set a = managed_agents.values()|first %}{{ a.model.api_key }}",
        "{% set a = managed_agents.values()|first %}{{ a.run('x') }}",
        "{% set a = managed_agents.values()|first %}{{ (a.tools.values()|first).forward('"
        + str(marker)
        + "') }}",
        "{% set a = managed_agents.values()|first %}{{ a.memory.reset() }}{{ a.model.generate([]) }}",
        "{% set t = tools.values()|first %}{{ t.__class__ }}{{ t.setup() }}",
        "{% set t = tools.values()|first %}{{ t.to_code_prompt.__self__ }}",
        "{% set t = tools.values()|first %}{{ t.to_code_prompt.__func__.__globals__ }}",
        "{% set a = managed_agents.values()|first %}{{ a.python_executor }}",
        "{{ model.api_key }}{% if 1 %}{% endif %}",
    ]


def _render_or_refuse(render: Any) -> str:
    try:
        return str(render())
    except ValueError as error:  # the one refusal a template gets: a clear message, on one line
        assert str(error).startswith("Could not render the prompt template")
        return ""


@pytest.mark.parametrize("kind", [CodeAgent, ToolCallingAgent])
@pytest.mark.parametrize("attack", range(12))
def test_a_system_prompt_template_gets_no_live_object(tmp_path, kind, attack):
    marker = tmp_path / "pwned"
    template = _attacks(marker)[attack]
    member = _member()
    text = _render_or_refuse(lambda: _manager({"system_prompt": template}, kind, member).system_prompt)
    assert SECRET not in text
    assert "<function" not in text and "object at 0x" not in text
    assert not marker.exists()
    assert Recorder.calls == []
    assert member.model.position == 0  # never asked anything  # type: ignore[attr-defined]


@pytest.mark.parametrize("attack", range(12))
@pytest.mark.parametrize("key", ["initial_plan", "update_plan_pre_messages", "update_plan_post_messages"])
def test_a_planning_template_gets_no_live_object(tmp_path, attack, key):
    marker = tmp_path / "pwned"
    template = _attacks(marker)[attack]
    agent = _manager({"planning": {key: template}})
    agent.planning_interval = 1
    first = key == "initial_plan"
    try:
        list(agent._planning_step("task", is_first_step=first, max_steps=5))
    except Exception as error:  # noqa: BLE001 - the refusal, surfaced as the agent's error
        assert "prompt template" in str(error) or "prompt template" in str(error.__cause__)
    assert not marker.exists()
    assert Recorder.calls == []
    for call in agent.model.calls:  # type: ignore[attr-defined]
        assert SECRET not in str(call["messages"])


@pytest.mark.parametrize("key", ["task", "report"])
def test_a_managed_agent_template_gets_no_live_object(tmp_path, key):
    marker = tmp_path / "pwned"
    # the report's final answer is what the run returned: an object with methods of its own
    template = "{{ final_answer.__class__ }}{{ final_answer.save('" + str(marker) + "') }}{{ name.upper() }}"
    member = CodeAgent(
        tools=[],
        model=ScriptedModel(["```py\nfinal_answer(dict(a=1))\n```"], repeat_last=True),
        name="member",
        description="Does things.",
        prompt_templates={"managed_agent": {key: template}},
        verbosity_level=LogLevel.OFF,
    )
    with pytest.raises(ValueError, match="prompt template"):
        member("do it")
    assert not marker.exists()


def test_populate_template_gives_jinja_plain_values(tmp_path):
    """The public function is the checkpoint: callers passing live objects are covered too."""
    marker = tmp_path / "pwned"
    tool = Recorder()
    with pytest.raises(ValueError, match="prompt template"):
        populate_template(
            "{% for t in tools.values() %}{{ t.forward(p) }}{% endfor %}",
            {"tools": {"r": tool}, "p": str(marker)},
        )
    with pytest.raises(ValueError, match="prompt template"):
        populate_template("{{ obj.write_text('x') }}{% if 1 %}{% endif %}", {"obj": marker})
    assert not marker.exists()
    assert Recorder.calls == []


def test_a_saved_agent_file_cannot_reach_live_objects(tmp_path, registry):
    marker = tmp_path / "pwned"
    agent = ToolCallingAgent(tools=[], model=ScriptedModel([]), verbosity_level=LogLevel.OFF)
    folder = tmp_path / "saved"
    agent.save(str(folder))
    for name in ("agent.json", "prompts.yaml"):  # the attack in both places a loader may read
        data = json.loads((folder / name).read_text())
        templates = data["prompt_templates"] if name == "agent.json" else data
        templates["system_prompt"] = _attacks(marker)[0]
        (folder / name).write_text(json.dumps(data))
    with pytest.raises(ValueError, match="prompt template"):
        ToolCallingAgent.from_folder(str(folder), model=ScriptedModel([]), tools=[Recorder()]).system_prompt  # noqa: B018
    assert not marker.exists()
    assert Recorder.calls == []


# --- the templates people use still render as before --------------------------------------------

SMOLAGENTS_STYLE_CODE = """\
Tools:
{%- for tool in tools.values() %}
{{ tool.to_code_prompt() }}
{% endfor %}
{%- if managed_agents and managed_agents.values() | list %}
Team:
{%- for agent in managed_agents.values() %}
def {{ agent.name }}(task: str, additional_args: dict[str, Any]) -> str:
    \"\"\"{{ agent.description }}\"\"\"
{% endfor %}
{%- endif %}
Imports: {{authorized_imports}}
{%- if custom_instructions %}
{{custom_instructions}}
{%- endif %}"""

SMOLAGENTS_STYLE_TOOL_CALLING = """\
{%- for tool in tools.values() %}
- {{ tool.to_tool_calling_prompt() }} | {{ tool.name }} {{ tool.description }} {{ tool.inputs }} {{ tool.output_type }}
{%- endfor %}
{%- if managed_agents and managed_agents.values() | list %}
{%- for agent in managed_agents.values() %}
- {{ agent.name }}: {{ agent.description }}
  - Takes inputs: {{agent.inputs}}
  - Returns an output of type: {{agent.output_type}}
{%- endfor %}
{%- endif %}"""


def _trusted_render(template: str, agent: MultiStepAgent, **extra: Any) -> str:
    """What the template gave when it rendered the live objects (a template written in code)."""
    for member in agent.managed_agents.values():  # smolagents sets these on managed agents
        member.inputs = {  # type: ignore[attr-defined]
            "task": {"type": "string", "description": "Long detailed description of the task."},
            "additional_args": {
                "type": "object",
                "description": "Dictionary of extra inputs to pass to the managed agent, e.g. images, "
                "dataframes, or any other contextual data it may need.",
                "nullable": True,
            },
        }
        member.output_type = "string"  # type: ignore[attr-defined]
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
    return environment.from_string(template).render(
        tools=agent.tools, managed_agents=agent.managed_agents, **extra
    )


def test_smolagents_style_code_template_renders_as_with_live_objects():
    agent = _manager({"system_prompt": SMOLAGENTS_STYLE_CODE})
    agent.instructions = "Be brief."
    expected = _trusted_render(
        SMOLAGENTS_STYLE_CODE,
        agent,
        authorized_imports=", ".join(agent.authorized_imports),
        custom_instructions="Be brief.",  # type: ignore[attr-defined]
    )
    assert agent.system_prompt == expected
    assert "def recorder(path: string) -> string:" in expected and "def member(task" in expected


def test_smolagents_style_tool_calling_template_renders_as_with_live_objects():
    agent = _manager({"system_prompt": SMOLAGENTS_STYLE_TOOL_CALLING}, ToolCallingAgent)
    template = SMOLAGENTS_STYLE_TOOL_CALLING
    rendered = agent.system_prompt
    # agents do not carry `inputs` in smol; the view gives smolagents', as its managers set them
    assert rendered == _trusted_render(template, agent)
    assert "Takes inputs: {'task':" in rendered


@pytest.mark.parametrize("kind", [CodeAgent, ToolCallingAgent])
def test_default_templates_render_unchanged(kind):
    agent = _manager({}, kind)
    plain = kind(
        tools=[Recorder()],
        model=ScriptedModel([]),
        managed_agents=[agent.managed_agents["member"]],
        verbosity_level=LogLevel.OFF,
    )
    assert agent.system_prompt == plain.system_prompt
    assert "recorder" in agent.system_prompt and "member" in agent.system_prompt


SMOLAGENTS_STYLE_PLAN = """\
Task: {{task}}
{%- for tool in tools.values() %}
{{ tool.to_code_prompt() }}
{% endfor %}
{%- if managed_agents and managed_agents.values() | list %}
{%- for agent in managed_agents.values() %}
def {{ agent.name }}(task: str) -> str: \"\"\"{{ agent.description }}\"\"\"
{% endfor %}
{%- endif %}"""


def test_smolagents_style_planning_template_renders_as_with_live_objects():
    agent = _manager({"planning": {"initial_plan": SMOLAGENTS_STYLE_PLAN}})
    step = list(agent._planning_step("the task", is_first_step=True, max_steps=5))[-1]
    prompt = step.model_input_messages[0].content[0]["text"]  # type: ignore[attr-defined]
    assert prompt == _trusted_render(SMOLAGENTS_STYLE_PLAN, agent, task="the task")
    assert "def recorder(path: string) -> string:" in prompt


def test_a_template_cannot_build_huge_values():
    for template in (
        "{{ 'x' * 10**10 }}",
        "{{ [1] * 10**9 }}",
        "{{ 2 ** 1000000 }}",
        "{{ ((10**60)**60)**60 }}",
        "{% for i in range(99999) %}{% for j in range(99999) %}xxxxxxxxxx{% endfor %}{% endfor %}",
    ):
        with pytest.raises(ValueError, match="^Could not render the prompt template"):
            populate_template(template, {})
    assert populate_template("{{ 'ab' * 3 }}{{ 2 ** 10 }}", {}) == "ababab1024"


@pytest.mark.parametrize(
    "template",
    [
        "{{ 'x'|center(10**9) }}",
        "{{ 'a\\nb'|indent(10**9) }}",
        "{{ [1]|batch(10**9, 0)|list }}",
        "{{ [1]|slice(10**9)|list }}",
        "{{ 'x'.ljust(10**9) }}",
        "{{ '{:>999999999}'.format('x') }}",
        "{{ '{:>{w}}'.format('x', w=10**9) }}",
        "{{ '%999999999s' % 'x' }}",
        "{{ '%*s' % (10**9, 'x') }}",
        "{{ '%999999999s'|format('x') }}",
        "{{ lipsum(10**6) }}",
        "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
        "{% macro m(n) %}{{ m(n) }}{% endmacro %}{{ m(1) }}",
    ],
)
def test_a_template_cannot_take_the_hosts_memory_or_time(template):
    with pytest.raises(ValueError, match="^Could not render the prompt template"):
        populate_template(template, {})


def test_ordinary_widths_counts_and_formats_still_render():
    rendered = populate_template(
        "{{ '%d items' % 123456 }} {{ '{:,}'.format(1234567) }} {{ 'ab'|center(6) }}|{{ '%5.2f'|format(3.14159) }}"
        "{% for b in [1, 2, 3]|batch(2) %}{{ b }}{% endfor %}",
        {},
    )
    assert rendered == "123456 items 1,234,567   ab  | 3.14[1, 2][3]"


class _NoPrompt(Tool):
    name = "noprompt"
    description = "A tool whose prompt text fails."
    inputs = {"x": {"type": "string", "description": "x"}}
    output_type = "string"

    def forward(self, x: str) -> str:
        return x

    def to_code_prompt(self) -> str:
        raise RuntimeError("broken")


def test_a_tool_whose_prompt_fails_breaks_only_templates_that_use_it():
    tools = {"noprompt": _NoPrompt()}
    assert (
        populate_template("{% for t in tools.values() %}{{ t.name }}{% endfor %}", {"tools": tools})
        == "noprompt"
    )
    with pytest.raises(ValueError, match="to_code_prompt\\(\\) of noprompt failed"):
        populate_template(
            "{% for t in tools.values() %}{{ t.to_code_prompt() }}{% endfor %}", {"tools": tools}
        )


@pytest.mark.parametrize(
    ("templates", "says"),
    [
        ({"system_prompt": 5}, r"prompt_templates\['system_prompt'\] must be text, not int"),
        ({"system_prompt": ["a"]}, r"must be text, not list"),
        ({"planning": "x"}, r"prompt_templates\['planning'\] must be a mapping of templates, not str"),
        (
            {"managed_agent": {"task": {"a": 1}}},
            r"prompt_templates\['managed_agent'\]\['task'\] must be text",
        ),
    ],
)
def test_a_template_of_the_wrong_shape_is_one_clear_error(templates, says):
    with pytest.raises(ValueError, match=says):
        CodeAgent(tools=[], model=ScriptedModel([]), prompt_templates=templates, verbosity_level=LogLevel.OFF)
    with pytest.raises(ValueError, match="must be text, not int"):
        populate_template(5, {})  # type: ignore[arg-type]
