"""Save a tool as source code and load it back: the format behind `Tool.save` and agent export.

Loading runs the saved code, so callers that load from anywhere but their own disk must pass
`trust_remote_code=True` first (the Hub loaders enforce that).
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import inspect
import json
import os
import sys
import textwrap
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from smol_core.tools.tool import Tool

_APP_TEMPLATE = """from smol_ui_gradio import launch_gradio_demo
from {module} import {class_name}

tool = {class_name}()
launch_gradio_demo(tool)
"""
# a `@tool` function's module already holds the tool object itself: calling it would run the tool


_HEADER = (
    "from __future__ import annotations\n\nfrom typing import Any, Optional\n\nfrom smol_core import Tool\n"
)
"""What every saved tool starts with. Postponed annotations let a signature name a type (from a
module-level import) that the saved file does not import: it is never evaluated on load."""


def tool_source(tool: Tool) -> str:
    """Self-contained source of a class named after the tool's, as smolagents writes it: its
    `name`, `description`, `inputs` (with `nullable`, defaults...) and `output_type` as literals, and
    its methods; a `@tool` function becomes the `forward` of a `SimpleTool` class.

    The tool is checked first (`validate_tool_attributes`): the file is loaded with none of the
    module the tool came from, so a name it uses but does not define is a ValueError here that
    names it, not a NameError where it is loaded. OSError when the source cannot be read."""
    from smol_core.tools.validation import MethodChecker, get_source, validate_tool_attributes

    function = tool.source_function
    if function is not None:
        forward_source = function_tool_source(tool)
        checker = MethodChecker(set())
        checker.visit(ast.parse(forward_source))
        if checker.errors:
            raise ValueError(
                f"SimpleTool validation failed for {tool.name}:\n"
                + "\n".join(f"- {e}" for e in checker.errors)
            )
        return _module_source("SimpleTool", None, function_tool_class_lines(tool), [])
    cls = type(tool)
    base = _tool_base(cls)
    validate_tool_attributes(cls)
    class_node = ast.parse(get_source(cls)).body[0]
    assert isinstance(class_node, ast.ClassDef)  # validate_tool_attributes checked it
    source_lines = get_source(cls).splitlines()
    methods = []
    for node in class_node.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            text = "\n".join(source_lines[first - 1 : node.end_lineno])
            methods.append(textwrap.indent(textwrap.dedent(text), "    "))
    values = {
        key: value
        for key, value in vars(cls).items()
        if not key.startswith("__")
        and key != "_abc_impl"
        and not callable(value)
        and not isinstance(value, property | staticmethod | classmethod)
        and not (hasattr(base, key) and getattr(base, key) == value)
    }
    doc = cls.__doc__ if cls.__doc__ != base.__doc__ else None
    return _module_source(cls.__name__, doc, _attribute_lines(values), methods)


def function_tool_source(tool: Tool) -> str:
    """The `def forward(self, ...)` source of a `@tool` (OSError when the function's source cannot be read)."""
    forward_source = getattr(getattr(tool, "forward", None), "__source__", None)
    if not isinstance(forward_source, str):
        raise OSError(f"The source of tool {tool.name!r} cannot be read, so it cannot be saved.")
    return forward_source


def function_tool_class_lines(tool: Tool) -> list[str]:
    """The body of the `SimpleTool` class a `@tool` is saved as: its attributes, then its forward."""
    attributes = _attribute_lines(
        {
            "name": tool.name,
            "description": textwrap.dedent(tool.description).strip(),
            "inputs": tool.inputs,
            "output_type": tool.output_type,
            "output_schema": tool.output_schema,
        }
    )
    return [*attributes, "", textwrap.indent(function_tool_source(tool), "    ")]


def _tool_base(cls: type) -> type:
    """The `Tool` base class, found in `cls`'s bases (tool.py imports this module, not the reverse)."""
    return next(c for c in cls.__mro__ if c.__module__ == "smol_core.tools.tool" and c.__name__ == "Tool")


def _attribute_lines(values: dict[str, Any]) -> list[str]:
    lines = []
    for key, value in values.items():
        if value is None and key == "output_schema":
            continue
        literal = json.dumps(value) if isinstance(value, str) else repr(value)
        lines.append(f"    {key} = {literal}")
    return lines


def _module_source(class_name: str, doc: str | None, attributes: list[str], methods: list[str]) -> str:
    """The file: header, imports of the always-available modules the class uses unimported, class."""
    from smol_core.executors.base import BASE_BUILTIN_MODULES

    body: list[str] = []
    if doc:
        body.append("    " + json.dumps(inspect.cleandoc(doc)))
    body += attributes
    for method in methods:
        body += ["", method]
    class_source = f"class {class_name}(Tool):\n" + "\n".join(body or ["    pass"]) + "\n"
    used = {n.id for n in ast.walk(ast.parse(class_source)) if isinstance(n, ast.Name)}
    imports = "".join(f"import {module}\n" for module in BASE_BUILTIN_MODULES if module in used)
    return _HEADER + imports + "\n\n" + class_source


def tool_to_dict(tool: Tool) -> dict[str, Any]:
    code = tool_source(tool)
    data = {
        "name": tool.name,
        "description": tool.description,
        "inputs": tool.inputs,
        "output_type": tool.output_type,
        "code": code,
        "requirements": code_requirements(code),
    }
    if tool.output_schema is not None:
        data["output_schema"] = tool.output_schema
    return data


def code_requirements(code: str) -> list[str]:
    """The distributions `code` imports (standard library left out), smol-core always among them.

    Read from the code's import statements, as smolagents does, and named as pip knows them
    (`PIL` is `pillow`) where an installed distribution provides the module."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    modules -= set(sys.stdlib_module_names) | {"__future__"}
    return sorted({_distribution_of(module) for module in modules} | {"smol-core"})


@functools.cache
def _distribution_of(module: str) -> str:
    """The distribution that installs `module`: from the installed distributions' file lists, or
    one named like the module (`smol_core` is `smol-core`, also in an editable install), or the
    module's own name."""
    providers = importlib.metadata.packages_distributions().get(module)
    if providers:
        return providers[0]
    try:
        return importlib.metadata.distribution(module.replace("_", "-")).metadata["Name"]
    except importlib.metadata.PackageNotFoundError:
        return module


def save_tool(
    tool: Tool, output_dir: str | os.PathLike[str], tool_file_name: str = "tool", make_gradio_app: bool = True
) -> None:
    """What smolagents' `Tool.save` writes: `{tool_file_name}.py`, and with `make_gradio_app` an
    `app.py` that serves the tool with Gradio and the `requirements.txt` a Space installs."""
    os.makedirs(output_dir, exist_ok=True)
    data = tool_to_dict(tool)
    with open(os.path.join(output_dir, f"{tool_file_name}.py"), "w", encoding="utf-8") as f:
        f.write(data["code"])
    if make_gradio_app:
        with open(os.path.join(output_dir, "app.py"), "w", encoding="utf-8") as f:
            f.write(_APP_TEMPLATE.format(module=tool_file_name, class_name=saved_class_name(tool)))
        requirements = sorted({*data["requirements"], "smol-ui-gradio"})
        with open(os.path.join(output_dir, "requirements.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(requirements) + "\n")


def saved_class_name(tool: Tool) -> str:
    """The name of the class a tool's saved source defines (`SimpleTool` for a `@tool`, as in smolagents)."""
    return "SimpleTool" if tool.source_function is not None else type(tool).__name__


LOADED_TOOL_MODULE = "smol_loaded_tool"
"""The `__module__` of what tool source defines when it is run here."""


def run_tool_code(tool_code: str) -> dict[str, Any]:
    """The namespace that running a tool's source leaves (`Tool.from_code` picks the tool from it).

    This runs the code on this machine: callers load only code the user chose to trust."""
    namespace: dict[str, Any] = {"__name__": LOADED_TOOL_MODULE}
    exec(compile(tool_code, "<tool>", "exec"), namespace)
    return namespace
