"""The `app.py` of a saved agent, as smolagents' Jinja template `AGENT_GRADIO_APP_TEMPLATE` writes it.

Why: code that saves agents the smolagents way renders this template with the agent's settings
(`create_agent_gradio_app_template().render(agent_name=..., class_name=..., agent_dict=...,
tools=..., managed_agents=..., managed_agent_relative_path=...)`) and gets a script that rebuilds the
agent and serves it with Gradio. The script imports smol's names (`smol_core` resolves smolagents'
model class names to smol's plugins) and writes every setting with `repr`, so a value is a literal in
the script, never code. The template runs in Jinja's sandbox, and the tool classes it names are
read by a filter rather than through attributes of live objects.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AGENT_GRADIO_APP_TEMPLATE", "create_agent_gradio_app_template"]

AGENT_GRADIO_APP_TEMPLATE = """import yaml
import os
from smol_core import {{ class_name }}, {{ agent_dict['model']['class'] }}
from smol_ui_gradio import GradioUI

# Get current directory path
CURRENT_DIR = os.path.dirname(os.path.abspath(__file__))

{% for tool in tools.values() -%}
from {{managed_agent_relative_path}}tools.{{ tool.name }} import {{ tool | class_name }} as {{ tool.name | camelcase }}
{% endfor %}
{% for managed_agent in managed_agents.values() -%}
from {{managed_agent_relative_path}}managed_agents.{{ managed_agent.name }}.app import agent_{{ managed_agent.name }}
{% endfor %}

model = {{ agent_dict['model']['class'] }}(
{% for key in agent_dict['model']['data'] if key != 'class' -%}
    {{ key }}={{ agent_dict['model']['data'][key]|repr }},
{% endfor %})

{% for tool in tools.values() -%}
{{ tool.name }} = {{ tool.name | camelcase }}()
{% endfor %}

with open(os.path.join(CURRENT_DIR, "prompts.yaml"), 'r') as stream:
    prompt_templates = yaml.safe_load(stream)

{{ agent_name }} = {{ class_name }}(
    model=model,
    tools=[{% for tool_name in tools.keys() if tool_name != "final_answer" %}{{ tool_name }}{% if not loop.last %}, {% endif %}{% endfor %}],
    managed_agents=[{% for subagent_name in managed_agents.keys() %}agent_{{ subagent_name }}{% if not loop.last %}, {% endif %}{% endfor %}],
    {% for attribute_name, value in agent_dict.items() if attribute_name not in ["class", "model", "tools", "prompt_templates", "authorized_imports", "managed_agents", "requirements"] -%}
    {{ attribute_name }}={{ value|repr }},
    {% endfor %}prompt_templates=prompt_templates
)
if __name__ == "__main__":
    GradioUI({{ agent_name }}).launch()
""".strip()


def _camelcase(value: str) -> str:
    return "".join(word.capitalize() for word in str(value).split("_"))


def _class_name(value: Any) -> str:
    return type(value).__name__


def create_agent_gradio_app_template() -> Any:
    """The compiled `AGENT_GRADIO_APP_TEMPLATE` (a `jinja2.Template`): render it with the agent's
    settings to get the text of its `app.py`. Undefined names are errors, not empty strings."""
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    environment = SandboxedEnvironment(undefined=StrictUndefined)
    environment.filters["repr"] = repr
    environment.filters["camelcase"] = _camelcase
    environment.filters["class_name"] = _class_name
    return environment.from_string(AGENT_GRADIO_APP_TEMPLATE)
