"""Save a tool as source code and load it back: the format behind `Tool.save` and agent export.

Loading runs the saved code, so callers that load from anywhere but their own disk must pass
`trust_remote_code=True` first (the Hub loaders enforce that).
"""

from __future__ import annotations

import inspect
import json
import os
import textwrap
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from smol_core.tools.tool import Tool

_APP_TEMPLATE = """from smol_ui_gradio import launch_gradio_demo
from tool import {class_name}

tool = {class_name}()
launch_gradio_demo(tool)
"""
# a `@tool` function's module already holds the tool object itself: calling it would run the tool
_FUNCTION_APP_TEMPLATE = """from smol_ui_gradio import launch_gradio_demo
from tool import {name} as tool

launch_gradio_demo(tool)
"""


def tool_source(tool: Tool) -> str:
    """Self-contained source for a tool: its class or decorated function, with the imports it needs."""
    function = tool.source_function
    if function is not None:
        body = textwrap.dedent(inspect.getsource(function))
        if not body.lstrip().startswith("@"):
            body = "@tool\n" + body
        header = "from smol_core import tool\n"
    else:
        body = textwrap.dedent(inspect.getsource(type(tool)))
        header = "from smol_core import Tool\n"
    module = inspect.getmodule(function if function is not None else type(tool))
    imports = []
    if module is not None:
        try:
            for line in inspect.getsource(module).splitlines():
                if (
                    line.startswith(("import ", "from "))
                    and "smol_core" not in line
                    and "__future__" not in line
                ):
                    imports.append(line)
        except (OSError, TypeError):
            pass
    return header + "\n".join(dict.fromkeys(imports)) + "\n\n" + body


def tool_to_dict(tool: Tool) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "inputs": tool.inputs,
        "output_type": tool.output_type,
        "code": tool_source(tool),
        "requirements": [],
    }


def save_tool(
    tool: Tool, output_dir: str, tool_file_name: str = "tool", make_gradio_app: bool = True
) -> None:
    os.makedirs(output_dir, exist_ok=True)
    data = tool_to_dict(tool)
    with open(os.path.join(output_dir, f"{tool_file_name}.py"), "w", encoding="utf-8") as f:
        f.write(data["code"])
    with open(os.path.join(output_dir, "tool.json"), "w", encoding="utf-8") as f:
        json.dump({k: v for k, v in data.items() if k != "code"}, f, indent=2)
    with open(os.path.join(output_dir, "requirements.txt"), "w", encoding="utf-8") as f:
        f.write("smol-core\n")
    if make_gradio_app:
        with open(os.path.join(output_dir, "app.py"), "w", encoding="utf-8") as f:
            f.write(
                _FUNCTION_APP_TEMPLATE.format(name=tool.name)
                if tool.source_function is not None
                else _APP_TEMPLATE.format(class_name=type(tool).__name__)
            )


LOADED_TOOL_MODULE = "smol_loaded_tool"
"""The `__module__` of what tool source defines when it is run here."""


def run_tool_code(tool_code: str) -> dict[str, Any]:
    """The namespace that running a tool's source leaves (`Tool.from_code` picks the tool from it).

    This runs the code on this machine: callers load only code the user chose to trust."""
    namespace: dict[str, Any] = {"__name__": LOADED_TOOL_MODULE}
    exec(compile(tool_code, "<tool>", "exec"), namespace)
    return namespace
