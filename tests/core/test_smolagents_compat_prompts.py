"""Tools read in prompts as smolagents 1.26 writes them: prompts written for smolagents quote this
text, and a capable model is shown what it was shown under smolagents. A small model reads its own
compact signature, and a ToolCallingAgent's own prompt one JSON line per tool, each measured
(`prompting/tool_signatures.py`)."""

from __future__ import annotations

import dataclasses

from smol_core import CodeAgent, Tool, ToolCallingAgent, tool
from smol_core.testing import ScriptedModel


class Count(Tool):
    name = "count"
    description = "Counts words."
    inputs = {
        "text": {"type": "string", "description": "Text input"},
        "limit": {"type": "integer", "description": "At most this many", "nullable": True},
    }
    output_type = "object"

    def forward(self, text: str, limit: int | None = None) -> dict[str, int]:
        return {"words": len(text.split()[:limit])}


class Multiline(Tool):
    name = "multiline"
    description = "A tool with\nseveral lines"
    inputs: dict[str, dict[str, str]] = {}
    output_type = "string"

    def forward(self) -> str:
        return "x"


@tool
def lookup(query: str, limit: int = 3) -> list[str]:
    """Looks things up.

    Args:
        query: What to look for.
        limit: How many results.
    """
    return [query] * limit


def test_code_prompt_is_smolagents_stub() -> None:
    assert Count().to_code_prompt() == (
        'def count(text: string, limit: integer) -> object:\n    """Counts words.\n\n    Args:\n'
        '        text: Text input\n        limit: At most this many\n    """'
    )
    assert (
        Multiline().to_code_prompt()
        == 'def multiline() -> string:\n    """A tool with\n    several lines\n    """'
    )


def test_code_prompt_of_a_structured_tool_shows_its_schema() -> None:
    counter = Count()
    counter.output_schema = {"type": "object", "properties": {"words": {"type": "integer"}}}  # type: ignore[misc]
    prompt = counter.to_code_prompt()
    assert prompt.startswith("def count(text: string, limit: integer) -> dict:")
    assert "Important: This tool returns structured output!" in prompt
    assert '            "properties": {' in prompt  # indented JSON, as smolagents writes it


def test_tool_calling_prompt_is_smolagents_text() -> None:
    assert Count().to_tool_calling_prompt() == (
        "count: Counts words.\n    Takes inputs: {'text': {'type': 'string', 'description': 'Text input'}, "
        "'limit': {'type': 'integer', 'description': 'At most this many', 'nullable': True}}\n"
        "    Returns an output of type: object"
    )


def test_agents_show_a_capable_model_smolagents_text() -> None:
    code_agent = CodeAgent(tools=[lookup], model=ScriptedModel([]))
    assert lookup.to_code_prompt() in code_agent.system_prompt
    assert "def lookup(query: string, limit: integer) -> array:" in code_agent.system_prompt


def test_a_tool_calling_agent_lists_tools_as_json_lines() -> None:
    # measured: SmolLM2 calls the tool with this line, and copies smolagents' dict into its answer
    # (tests/models/openai/test_tool_calling_llama_server.py)
    calling_agent = ToolCallingAgent(tools=[lookup], model=ScriptedModel([]))
    assert (
        'lookup: Looks things up. Takes inputs: {"query": {"type": "string", "description": '
        '"What to look for."}' in calling_agent.system_prompt
    )
    assert "Takes inputs: {'query'" not in calling_agent.system_prompt


def test_a_small_model_reads_the_compact_signature() -> None:
    model = ScriptedModel([])
    model.capabilities = dataclasses.replace(model.capabilities, small=True)
    agent = CodeAgent(tools=[lookup], model=model)
    agent.memory.steps.clear()
    agent.task = "Look up how many moons Mars has."
    prompt = agent.initialize_system_prompt()
    assert "def lookup(query: str, limit: int = 3) -> list:" in prompt
    assert "query: string" not in prompt
