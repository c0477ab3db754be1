"""Check that a tool's source can stand on its own, as `smolagents.tool_validation` does.

Why: `Tool.save` and `Tool.to_dict` write the tool as source code that is loaded back somewhere
else (another process, a Space, an agent folder), with none of the module it came from. A name the
code uses but never defines (a module-level import or helper), an `__init__` argument with no
default (the loader calls `ToolClass()`), or a class attribute built by code (its value is written
out with `repr`) would only fail there; these checks make them fail at save time, naming the cause.
"""

from __future__ import annotations

import ast
import builtins
import keyword
from itertools import zip_longest
from typing import Any

from smol_core.executors.base import BASE_BUILTIN_MODULES
from smol_core.source_code import get_source  # also in notebooks: a tool defined in a cell can be saved

__all__ = ["MethodChecker", "get_source", "is_valid_name", "validate_tool_attributes"]

_BUILTIN_NAMES = set(vars(builtins))
_LITERAL_NODES = (ast.Constant, ast.Dict, ast.List, ast.Set)


def is_valid_name(name: Any) -> bool:
    """True for a string that is a Python identifier and not a keyword (tool and argument names)."""
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)


class MethodChecker(ast.NodeVisitor):
    """Collects the names a method uses without defining them (arguments, assignments, imports,
    builtins, class attributes and smolagents' always-available modules count as defined)."""

    def __init__(self, class_attributes: set[str], check_imports: bool = True) -> None:
        self.undefined_names: set[str] = set()
        self.imports: dict[str, str] = {}
        self.from_imports: dict[str, tuple[str, str]] = {}
        self.assigned_names: set[str] = set()
        self.arg_names: set[str] = set()
        self.class_attributes = class_attributes
        self.errors: list[str] = []
        self.check_imports = check_imports
        self.typing_names = {"Any"}
        self.defined_classes: set[str] = set()

    def _known(self, name: str) -> bool:
        return (
            name in _BUILTIN_NAMES
            or name in BASE_BUILTIN_MODULES
            or name in self.arg_names
            or name == "self"
            or name in self.class_attributes
            or name in self.imports
            or name in self.from_imports
            or name in self.assigned_names
            or name in self.defined_classes
        )

    def _add_targets(self, target: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.assigned_names.add(target.id)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._add_targets(element)
        elif isinstance(target, ast.Starred):
            self._add_targets(target.value)

    def visit_arguments(self, node: ast.arguments) -> None:
        self.arg_names = {arg.arg for arg in [*node.posonlyargs, *node.args, *node.kwonlyargs]}
        if node.kwarg:
            self.arg_names.add(node.kwarg.arg)
        if node.vararg:
            self.arg_names.add(node.vararg.arg)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.imports[alias.asname or alias.name.split(".")[0]] = alias.name

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            self.from_imports[alias.asname or alias.name] = (node.module or "", alias.name)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._add_targets(target)
        self.visit(node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._add_targets(node.target)
        if node.value:
            self.visit(node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._add_targets(node.target)
        self.visit(node.value)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._add_targets(node.target)
        self.visit(node.value)

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            if item.optional_vars is not None:
                self._add_targets(item.optional_vars)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.assigned_names.add(node.name)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        self._add_targets(node.target)
        self.generic_visit(node)

    def _visit_comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
    ) -> None:
        for generator in node.generators:
            self._add_targets(generator.target)
        self.generic_visit(node)

    visit_ListComp = _visit_comprehension
    visit_SetComp = _visit_comprehension
    visit_DictComp = _visit_comprehension
    visit_GeneratorExp = _visit_comprehension

    def visit_Lambda(self, node: ast.Lambda) -> None:
        saved = set(self.arg_names)
        self.visit(node.args)
        self.assigned_names |= self.arg_names
        self.arg_names = saved
        self.visit(node.body)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        # a nested function's name and arguments are defined for what follows and inside it
        self.assigned_names.add(node.name)
        saved = set(self.arg_names)
        self.visit(node.args)
        self.arg_names |= saved
        for statement in [*node.decorator_list, *node.body]:
            self.visit(statement)
        if node.returns is not None:
            self.visit(node.returns)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
            self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.defined_classes.add(node.name)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and not (self._known(node.id) or node.id in self.typing_names):
            self._undefined(node.id)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and not self._known(node.func.id):
            self._undefined(node.func.id)
        self.generic_visit(node)

    def _undefined(self, name: str) -> None:
        if name not in self.undefined_names:
            self.undefined_names.add(name)
            self.errors.append(f"Name '{name}' is undefined.")


class _ClassLevelChecker(ast.NodeVisitor):
    """Class attributes (which must be literals) and `__init__`'s parameters (which need defaults)."""

    def __init__(self) -> None:
        self.complex_attributes: list[str] = []
        self.class_attributes: set[str] = set()
        self.non_defaults: list[str] = []
        self.non_literal_defaults: list[str] = []
        self.in_method = False
        self.invalid_attributes: list[str] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.name == "__init__":
            self._check_init_parameters(node)
        old_context, self.in_method = self.in_method, True
        self.generic_visit(node)
        self.in_method = old_context

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node: ast.Assign) -> None:
        if self.in_method:
            return
        names = [target.id for target in node.targets if isinstance(target, ast.Name)]
        self.class_attributes.update(names)
        if not all(isinstance(value, _LITERAL_NODES) for value in ast.walk(node.value)):
            self.complex_attributes += [name for name in names if name not in self.complex_attributes]
        if "name" in names:
            value = node.value
            if not isinstance(value, ast.Constant):
                self.invalid_attributes.append(
                    f"Class attribute 'name' must be a constant, found '{ast.unparse(value)}'"
                )
            elif not isinstance(value.value, str):
                self.invalid_attributes.append(
                    f"Class attribute 'name' must be a string, found {value.value!r}"
                )
            elif not is_valid_name(value.value):
                self.invalid_attributes.append(
                    "Class attribute 'name' must be a valid Python identifier and not a reserved keyword, "
                    f"found '{value.value}'"
                )

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if self.in_method or not isinstance(node.target, ast.Name):
            return
        self.class_attributes.add(node.target.id)
        if node.value is not None and not all(
            isinstance(value, _LITERAL_NODES) for value in ast.walk(node.value)
        ):
            self.complex_attributes.append(node.target.id)

    def _check_init_parameters(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        positional = [*node.args.posonlyargs, *node.args.args]
        pairs = zip_longest(reversed(positional), reversed(node.args.defaults))
        keyword_only = zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True)
        for arg, default in [*reversed(list(pairs)), *keyword_only]:
            if arg is None:
                continue
            if default is None:
                if arg.arg != "self":
                    self.non_defaults.append(arg.arg)
            elif not isinstance(default, _LITERAL_NODES):
                self.non_literal_defaults.append(arg.arg)


def validate_tool_attributes(cls: type, check_imports: bool = True) -> None:
    """Raise ValueError listing every reason the source of Tool class `cls` cannot be saved and
    loaded back on its own; return None when there is none.

    - `__init__`'s parameters all need literal defaults: the loader calls the class with no
      arguments, and values given at construction are not in the source.
    - Class attributes must be literals (strings, numbers, dicts, lists): they are written back with
      `repr`; build anything else in `__init__`.
    - Every method may use only names it defines or imports itself, builtins, class attributes and
      the always-available modules (math, re, datetime...): module-level imports and helpers are
      not saved with the tool.
    """
    tree = ast.parse(get_source(cls))
    class_node = tree.body[0] if tree.body else None
    if not isinstance(class_node, ast.ClassDef):
        raise ValueError("Source code must define a class")
    class_checker = _ClassLevelChecker()
    class_checker.visit(class_node)

    errors = list(class_checker.invalid_attributes)
    if class_checker.complex_attributes:
        errors.append(
            "Complex attributes should be defined in __init__, not as class attributes: "
            + ", ".join(class_checker.complex_attributes)
        )
    if class_checker.non_defaults:
        errors.append(
            "Parameters in __init__ must have default values, found required parameters: "
            + ", ".join(class_checker.non_defaults)
        )
    if class_checker.non_literal_defaults:
        errors.append(
            "Parameters in __init__ must have literal default values, found non-literal defaults: "
            + ", ".join(class_checker.non_literal_defaults)
        )
    for node in class_node.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            checker = MethodChecker(class_checker.class_attributes, check_imports=check_imports)
            checker.visit(node)
            errors += [f"- {node.name}: {error}" for error in checker.errors]
    if errors:
        raise ValueError(f"Tool validation failed for {cls.__name__}:\n" + "\n".join(errors))
