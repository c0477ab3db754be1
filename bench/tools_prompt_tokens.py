"""Prompt cost of tools: how much one simple tool adds to the CodeAgent system prompt, smol vs smolagents.

The same functions are made tools by smol's `@tool` and smolagents' `@tool`; the growth
of `agent.system_prompt` from no tools to N tools, divided by N, is the cost per tool. Tokens are
counted with SmolLM2's real tokenizer (the embedded GGUF served by llama.cpp's `/tokenize`, through
smol-model-llamacpp's `LlamaServer`); without it, an estimate of characters / 4 is printed, labelled.
A tool converted from an MCP schema (pydantic-style, with titles) and from LangChain is measured too.

    python bench/tools_prompt_tokens.py
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from typing import Any

N_TOOLS = 8


TWO_ARGS = True  # set by main() for each shape


def _sources(index: int) -> str:
    if not TWO_ARGS:
        return f'''
def get_weather_{index}(city: str) -> str:
    """Get the current weather for a city.

    Args:
        city: The name of the city.
    """
    return "sunny"
'''
    return f'''
def get_weather_{index}(city: str, unit: str = "celsius") -> str:
    """Get the current weather for a city.

    Args:
        city: The name of the city.
        unit: The temperature unit, celsius or fahrenheit.
    """
    return "sunny"
'''


def _functions(n: int) -> list[Callable[..., Any]]:
    """The tool functions, from a real file: smolagents' `@tool` reads each function's source."""
    import importlib.util
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / f"weather_tools_{n}_{int(TWO_ARGS)}.py"
    path.write_text("".join(_sources(i) for i in range(n)))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [getattr(module, f"get_weather_{i}") for i in range(n)]


def smol_prompts(n: int) -> tuple[str, str]:
    from smol_core import CodeAgent, tool
    from smol_core.testing import ScriptedModel

    tools = [tool(f) for f in _functions(n)]
    empty = CodeAgent(tools=[], model=ScriptedModel([])).system_prompt
    return empty, CodeAgent(tools=tools, model=ScriptedModel([])).system_prompt


def smolagents_prompts(n: int) -> tuple[str, str] | None:
    try:
        from smolagents import CodeAgent, tool
        from smolagents.models import Model
    except ImportError:
        return None
    tools = [tool(f) for f in _functions(n)]
    empty = CodeAgent(tools=[], model=Model(model_id="x")).system_prompt
    return empty, CodeAgent(tools=tools, model=Model(model_id="x")).system_prompt


def smol_mcp_prompts(n: int) -> tuple[str, str] | None:
    """The same tool as an MCP server would list it (the `mcp` SDK's schema, titles included)."""
    try:
        import mcp_types
        from smol_tool_mcp.tool import MCPTool
    except ImportError:
        return None
    from smol_core import CodeAgent
    from smol_core.testing import ScriptedModel

    schema = {
        "type": "object",
        "title": "get_weatherArguments",
        "properties": {
            "city": {"title": "City", "type": "string", "description": "The name of the city."},
            **(
                {
                    "unit": {
                        "title": "Unit",
                        "type": "string",
                        "default": "celsius",
                        "description": "The temperature unit, celsius or fahrenheit.",
                    }
                }
                if TWO_ARGS
                else {}
            ),
        },
        "required": ["city"],
    }
    tools = [
        MCPTool(
            mcp_types.Tool(
                name=f"get_weather_{i}",
                description="Get the current weather for a city.",
                input_schema=schema,
            ),
            caller=lambda name, arguments: None,
            name=f"get_weather_{i}",
        )
        for i in range(n)
    ]
    empty = CodeAgent(tools=[], model=ScriptedModel([])).system_prompt
    return empty, CodeAgent(tools=tools, model=ScriptedModel([])).system_prompt


def smol_langchain_prompts(n: int) -> tuple[str, str] | None:
    """The same functions made LangChain tools (`langchain_core.tools.tool`), then `Tool.from_langchain`."""
    try:
        from langchain_core.tools import tool as lc_tool
        from smol_tool_langchain import tool_from_langchain
    except ImportError:
        return None
    from smol_core import CodeAgent
    from smol_core.testing import ScriptedModel

    tools = [tool_from_langchain(lc_tool(f)) for f in _functions(n)]
    empty = CodeAgent(tools=[], model=ScriptedModel([])).system_prompt
    return empty, CodeAgent(tools=tools, model=ScriptedModel([])).system_prompt


class Tokenizer:
    """SmolLM2's tokenizer through llama.cpp's `/tokenize`, or a labelled chars/4 estimate."""

    def __init__(self) -> None:
        self.server: Any = None
        self.label = "estimate: characters / 4"
        try:
            from smol_model_llamacpp.server import LlamaServer

            self.server = LlamaServer(n_ctx=2048).start()
            self.label = "SmolLM2 tokenizer (llama.cpp /tokenize)"
        except Exception as error:  # no plugin, no GGUF, no llama.cpp: fall back, and say so
            self.label += f" (SmolLM2 tokenizer unavailable: {type(error).__name__})"

    def count(self, text: str) -> float:
        if self.server is None:
            return len(text) / 4
        request = urllib.request.Request(
            self.server.url + "/tokenize",
            data=json.dumps({"content": text}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return len(json.load(response)["tokens"])

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()


def main() -> None:
    global TWO_ARGS
    tokenizer = Tokenizer()
    try:
        print(f"System-prompt growth per simple tool (average over {N_TOOLS} tools)")
        print(f"tokens: {tokenizer.label}")
        for two_args, shape in (
            (False, "get_weather(city: str) -> str"),
            (True, "get_weather(city: str, unit: str = 'celsius') -> str"),
        ):
            TWO_ARGS = two_args
            rows = []
            for label, prompts in (
                ("smol CodeAgent, @tool", smol_prompts(N_TOOLS)),
                ("smolagents CodeAgent, @tool", smolagents_prompts(N_TOOLS)),
                ("smol CodeAgent, tool from an MCP schema", smol_mcp_prompts(N_TOOLS)),
                ("smol CodeAgent, tool from LangChain", smol_langchain_prompts(N_TOOLS)),
            ):
                if prompts is None:
                    rows.append((label, "n/a", "n/a"))
                    continue
                empty, full = prompts
                chars = (len(full) - len(empty)) / N_TOOLS
                tokens = (tokenizer.count(full) - tokenizer.count(empty)) / N_TOOLS
                rows.append((label, f"{chars:.0f}", f"{tokens:.1f}"))
            print(f"\n{shape}")
            width = max(len(r[0]) for r in rows)
            print(f"{'agent, tool kind':<{width}}  {'chars/tool':>10}  {'tokens/tool':>11}")
            for label, chars, tokens in rows:
                print(f"{label:<{width}}  {chars:>10}  {tokens:>11}")
    finally:
        tokenizer.close()


if __name__ == "__main__":
    main()
