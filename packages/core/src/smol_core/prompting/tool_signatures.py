"""How a small model reads a tool: what it should write, in one compact form.

smolagents' rendering (`Tool.to_code_prompt`, what a capable model reads) writes the JSON schema's
type names (`string`, `integer`) and no defaults. A model of a few hundred million parameters copies
what it reads into its code, so for it (`SmallModelPrompting`) the signature is the one it should
write: `def search(query: str, limit: int = 3) -> list:`, with a one-paragraph docstring.

A `ToolCallingAgent`'s own prompt lists each tool on one line with its inputs as JSON, the form its
calls take: SmolLM2-135M, served by llama.cpp and held to tool-call JSON, calls the tool when it reads
that line, and copies the input schema into a `final_answer` call when it reads smolagents' Python
dict (tests/models/openai/test_tool_calling_llama_server.py, tests/models/llamacpp).
"""

from __future__ import annotations

import json
from typing import Any

from smol_core.tools.checks import input_type_names

__all__ = ["compact_code_prompt", "compact_tool_calling_prompt"]

_PYTHON_NAMES = {
    "string": "str",
    "boolean": "bool",
    "integer": "int",
    "number": "float",
    "array": "list",
    "object": "dict",
    "any": "Any",
    "null": "None",
    "image": "Image",
    "audio": "Audio",
}


def compact_code_prompt(tool: Any) -> str:
    """The tool as a Python signature with Python's type names, its defaults and a short docstring."""
    parameters = [_parameter(name, entry) for name, entry in tool.inputs.items()]
    returns = _PYTHON_NAMES.get(tool.output_type, "Any")
    arguments = "".join(f"\n        {name}: {entry['description']}" for name, entry in tool.inputs.items())
    doc = tool.description.strip()
    if arguments:
        doc += f"\n\n    Args:{arguments}"
    return f'def {tool.name}({", ".join(parameters)}) -> {returns}:\n    """{doc}"""'


def compact_tool_calling_prompt(tool: Any) -> str:
    """The tool on one line: name, description, inputs as JSON (the form of a call), output type."""
    return f"{tool.name}: {tool.description} Takes inputs: {json.dumps(tool.inputs)}. Returns {tool.output_type}."


def _parameter(name: str, entry: dict[str, Any]) -> str:
    hint = " | ".join(_PYTHON_NAMES.get(kind, "Any") for kind in input_type_names(entry))
    if "default" in entry:
        return f"{name}: {hint} = {entry['default']!r}"
    return f"{name}: {hint} = None" if entry.get("nullable") else f"{name}: {hint}"
