"""smolagents' command-line API in Python: `run_smolagent(prompt, tools, model_type, model_id, ...)`.

Why: scripts written for smolagents call `smolagents.cli.run_smolagent` and `load_model` directly
(a web UI that starts runs, a batch job). The same call works here: the model comes from
`smol_core.load_model`, which takes smolagents' class names, and the tools are named as smol's
plugins register them (`web_search`, `visit_webpage`, ...) or, with a `/`, a Hugging Face Space.
The `smolagent` command itself (smol_core.cli.smolagent) has more flags and checks; this module is
the smolagents-shaped function, and imports the agent classes up front for that reason.
"""

from __future__ import annotations

from typing import Any

from smol_core.agents.code_agent import CodeAgent
from smol_core.agents.tool_calling_agent import ToolCallingAgent
from smol_core.loading import load_model, load_tools
from smol_core.tools.tool import Tool

__all__ = ["leopard_prompt", "load_model", "run_smolagent"]

leopard_prompt = "How many seconds would it take for a leopard at full speed to run through Pont des Arts?"
"""smolagents' example task."""


def _tools(names: list[str]) -> list[Any]:
    tools: list[Any] = []
    for name in names:
        if "/" in name:  # a Space, as smolagents reads it
            space_name = name.split("/")[-1].lower().replace("-", "_").replace(".", "_")
            tools.append(
                Tool.from_space(
                    space_id=name, name=space_name, description=f"Tool loaded from Hugging Face Space: {name}"
                )
            )
        else:
            tools.extend(load_tools(name))
    return tools


def run_smolagent(
    prompt: str,
    tools: list[str],
    model_type: str,
    model_id: str,
    api_base: str | None = None,
    api_key: str | None = None,
    imports: list[str] | None = None,
    provider: str | None = None,
    action_type: str = "code",
) -> Any:
    """Run one agent on `prompt`, as smolagents' CLI does, and return its answer.

    Args:
        prompt: the task.
        tools: tool names (smol's registered names) or Hugging Face Space ids (`owner/space`).
        model_type: a model plugin name or smolagents class name (`InferenceClientModel`, `LiteLLMModel`...).
        model_id: the model's id.
        api_base, api_key, provider: passed to the model.
        imports: modules the code may import (a CodeAgent).
        action_type: "code" (CodeAgent) or "tool_calling" (ToolCallingAgent).
    """
    model = load_model(model_type, model_id, api_base=api_base, api_key=api_key, provider=provider)
    available_tools = _tools(tools)
    agent: Any
    if action_type == "code":
        agent = CodeAgent(
            tools=available_tools, model=model, additional_authorized_imports=imports, stream_outputs=True
        )
    elif action_type == "tool_calling":
        agent = ToolCallingAgent(tools=available_tools, model=model, stream_outputs=True)
    else:
        raise ValueError(f"Unsupported action type: {action_type}")
    return agent.run(prompt)
