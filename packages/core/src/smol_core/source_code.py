"""The source code of classes and functions, wherever they were defined: files, notebooks, IPython.

Why: saving a tool or an agent writes its code to a file that is loaded somewhere else, so smol needs
the code of what the user wrote. `inspect.getsource` reads it from the module's file, which a class
defined in a notebook cell or an IPython session does not have: there the cells the shell keeps
(`In`) are searched instead, newest first, so the definition that is live is the one found.
`instance_to_source` writes an object's class out as a module (smolagents' function of that name).
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import sys
from pathlib import Path
from textwrap import dedent
from typing import Any

__all__ = ["get_source", "instance_to_source", "make_init_file"]


def get_source(obj: Any) -> str:
    """The dedented source of a class or callable.

    `__source__` when set (tools made by `@tool` carry generated source there), else what `inspect`
    finds, else, in IPython or Jupyter, the newest cell that defines an object of that name.

    Raises:
        TypeError: `obj` is neither a class nor a callable.
        OSError: no source anywhere (and no IPython session to look in).
        ValueError: an IPython session is running, but its cells do not define `obj`.
    """
    if not (isinstance(obj, type) or callable(obj)):
        raise TypeError(f"Expected class or callable, got {type(obj)}")
    try:
        source = getattr(obj, "__source__", None) or inspect.getsource(obj)
        return dedent(str(source)).strip()
    except (OSError, TypeError) as error:  # TypeError: a class of `__main__` in a session without a file
        inspect_error = error
    cells = _ipython_cells()
    if cells is None:
        raise OSError(f"The source of {getattr(obj, '__qualname__', obj)!r} cannot be read: {inspect_error}")
    try:
        return _definition_in_cells(cells, obj.__name__)
    except ValueError as error:
        raise error from inspect_error


def _ipython_cells() -> list[str] | None:
    """The input cells of the running IPython shell, or None when there is none (IPython is never
    imported here: a session that runs one has imported it already)."""
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    shell = get_ipython() if callable(get_ipython) else None
    if shell is None:
        return None
    cells = shell.user_ns.get("In", [])
    return [cell for cell in cells if isinstance(cell, str)]


def _definition_in_cells(cells: list[str], name: str) -> str:
    """The source of the newest definition of `name` among `cells` (a cell that does not parse, such
    as one with a magic IPython did not transform, is skipped)."""
    if not "\n".join(cells).strip():
        raise ValueError("No code cells found in IPython session")
    for cell in reversed(cells):
        try:
            tree = ast.parse(cell)
        except SyntaxError:
            continue
        found = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
        ]
        if found:
            node = max(found, key=lambda n: n.lineno)  # redefined in one cell: the last one counts
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines = cell.split("\n")[first - 1 : node.end_lineno]
            return dedent("\n".join(lines)).strip()
    raise ValueError(f"Could not find source code for {name} in IPython history")


def instance_to_source(instance: Any, base_cls: type | None = None) -> str:
    """`instance`'s class as the source of a module: an import of `base_cls`, imports of the packages
    its methods import, then the class with its attributes as literals and its own methods.

    Attributes and methods equal to `base_cls`'s are left out. Raises what `get_source` raises for a
    method whose source cannot be read.
    """
    cls = type(instance)
    lines = [f"class {cls.__name__}({base_cls.__name__}):" if base_cls else f"class {cls.__name__}:"]
    generated = _generated_class_body(cls)
    lines += generated if generated is not None else _class_body(cls, base_cls)
    header = [f"from {_public_module(base_cls)} import {base_cls.__name__}"] if base_cls else []
    header += [f"import {package}" for package in sorted(_imported_packages("\n".join(lines)))]
    if header:
        header.append("")
    return "\n".join(header + lines)


def _generated_class_body(cls: type) -> list[str] | None:
    """The body of a class whose source is generated (`__source__` on the class: the class `@tool`
    makes for a function, whose settings live on the instance), or None for a class written in code.
    That source holds the function's body as the class's `forward`, as smolagents writes it."""
    source = getattr(cls, "__source__", None)
    if not isinstance(source, str):
        return None
    return [*dedent(source).strip().split("\n")[1:], ""]


def _class_body(cls: type, base_cls: type | None) -> list[str]:
    """A class's docstring, attributes as literals and own methods (those equal to `base_cls`'s
    left out)."""
    lines: list[str] = []
    if cls.__doc__ and (base_cls is None or cls.__doc__ != base_cls.__doc__):
        lines.append(f'    """{cls.__doc__}"""')
    attributes = {
        name: value
        for name, value in vars(cls).items()
        if not name.startswith("__")
        and name != "_abc_impl"
        and not callable(value)
        and not (base_cls is not None and hasattr(base_cls, name) and getattr(base_cls, name) == value)
    }
    for name, value in attributes.items():
        if isinstance(value, str) and "\n" in value:
            escaped = value.replace('"""', r"\"\"\"")
            lines.append(f'    {name} = """{escaped}"""')
        elif isinstance(value, str):
            lines.append(f"    {name} = {json.dumps(value)}")
        else:
            lines.append(f"    {name} = {value!r}")
    if attributes:
        lines.append("")
    for method in _own_methods(cls, base_cls):
        method_lines = get_source(method).split("\n")
        indent = len(method_lines[0]) - len(method_lines[0].lstrip())
        lines.append(
            "\n".join("    " + line[indent:] if line.strip() else line[indent:] for line in method_lines)
        )
        lines.append("")
    return lines or ["    pass"]  # nothing of its own: still a class statement that parses


def _public_module(cls: type) -> str:
    """Where to import `cls` from: `smol_core` when it is one of smol's public names (its defining
    module is an implementation detail), else the module that defines it. The package is read from
    `sys.modules`: it is always loaded before any of its modules, and importing it here would make
    this floor depend on the front door above it."""
    smol_core = sys.modules["smol_core"]

    if cls.__name__ in smol_core.__all__ and getattr(smol_core, cls.__name__, None) is cls:
        return "smol_core"
    return cls.__module__


def _own_methods(cls: type, base_cls: type | None) -> list[Any]:
    """The callables `cls` defines itself that differ from `base_cls`'s (unwrapped from decorators)."""
    methods = []
    for name, value in vars(cls).items():
        if not inspect.isfunction(value) and not isinstance(value, staticmethod | classmethod):
            continue  # an object kept on the class (a tool, a model) is not a method to write out
        inherited = getattr(base_cls, name, None) if base_cls is not None else None
        if inherited is not None and not isinstance(value, staticmethod | classmethod):
            same_code = getattr(getattr(inherited, "__code__", None), "co_code", None) == getattr(
                getattr(value, "__code__", None), "co_code", object()
            )
            if same_code:
                continue
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        methods.append(getattr(value, "__wrapped__", value))
    return methods


def _imported_packages(code: str) -> set[str]:
    packages: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            packages.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            packages.add(node.module.split(".")[0])
    return packages


def make_init_file(folder: str | Path) -> None:
    """Make `folder` (and its parents) a package: create it with an empty `__init__.py`."""
    os.makedirs(folder, exist_ok=True)
    Path(folder, "__init__.py").touch()
