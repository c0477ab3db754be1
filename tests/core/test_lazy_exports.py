"""`smol_core.lazy_exports`: the one way a package imports its public names on first use.

Every front door of the core and every plugin package builds its `__getattr__`, `__dir__` and
`__all__` with it, and names the same objects under `TYPE_CHECKING` for mypy and IDEs; a hand-written
module `__getattr__` (a copy that drifts) fails here.
"""

from __future__ import annotations

import ast
import types
from pathlib import Path

import pytest

from smol_core.lazy_exports import lazy_exports

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(ROOT.glob("packages/**/src/**/*.py"))


def fake_module(name: str = "fake_pkg") -> dict[str, object]:
    """A module's globals, as the helper sees them (the module is not imported anywhere)."""
    return vars(types.ModuleType(name))


def test_a_name_is_imported_on_first_read_and_kept() -> None:
    namespace = fake_module()
    getattr_, dir_, all_ = lazy_exports(namespace, {"dumps": "json", "OrderedDict": "collections"})
    import json

    assert all_ == ["OrderedDict", "dumps"]
    assert "dumps" not in namespace
    assert getattr_("dumps") is json.dumps
    assert namespace["dumps"] is json.dumps  # the next read is an ordinary one
    assert set(all_) <= set(dir_()) and "__name__" in dir_()


def test_an_unknown_name_raises_the_usual_error_with_the_hint() -> None:
    namespace = fake_module()
    getattr_, _, _ = lazy_exports(namespace, {}, hint="Add it to _EXPORTS.")
    with pytest.raises(
        AttributeError, match=r"^module 'fake_pkg' has no attribute 'nope'\. Add it to _EXPORTS\.$"
    ):
        getattr_("nope")
    getattr_, _, _ = lazy_exports(namespace, {})
    with pytest.raises(AttributeError, match=r"^module 'fake_pkg' has no attribute 'nope'$") as caught:
        getattr_("nope")
    assert caught.value.name == "nope"


def test_an_unknown_name_goes_to_otherwise_when_given() -> None:
    getattr_, _, _ = lazy_exports(fake_module(), {}, otherwise=lambda name: name.upper())
    assert getattr_("smolagents_name") == "SMOLAGENTS_NAME"


def test_a_submodule_of_its_own_name_is_exported_whole() -> None:
    import email.mime

    getattr_, _, _ = lazy_exports(fake_module("email"), {"mime": "email.mime"})
    assert getattr_("mime") is email.mime


def test_the_package_front_doors_resolve_and_hide_their_helpers() -> None:
    import smol_core
    import smol_core.plugin_api as plugin_api
    import smol_core.testing as testing

    assert plugin_api.lazy_exports is lazy_exports
    assert testing.ScriptedModel.__name__ == "ScriptedModel"
    for module in (smol_core, plugin_api, testing):
        assert not [name for name in dir(module) if name.startswith("_") and not name.startswith("__")]


# --- every lazy module uses the helper, and mypy sees the same names -------------------------------


def lazy_tables() -> dict[Path, tuple[dict[str, str], dict[str, str]]]:
    """{file: (its `_EXPORTS` table, what its TYPE_CHECKING block imports)} for each user of the helper."""
    found: dict[Path, tuple[dict[str, str], dict[str, str]]] = {}
    for path in SOURCES:
        tree = ast.parse(path.read_text(), str(path))
        if not any(
            isinstance(node, ast.Assign) and "__getattr__" in ast.unparse(node.targets[0])
            for node in tree.body
        ):
            continue
        table: dict[str, str] = {}
        typed: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and "_EXPORTS" in ast.unparse(node).split("=")[0]:
                assert node.value is not None
                table = ast.literal_eval(node.value)
            elif isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "_TYPE_CHECKING"):
                for statement in node.body:
                    assert isinstance(statement, ast.ImportFrom) and statement.module, ast.unparse(statement)
                    for alias in statement.names:
                        name = alias.asname or alias.name
                        submodule = f"{statement.module}.{alias.name}"
                        typed[name] = submodule if table.get(name) == submodule else statement.module
        found[path.relative_to(ROOT)] = (table, typed)
    return found


def test_the_front_doors_use_the_helper() -> None:
    users = {str(path) for path in lazy_tables()}
    assert "packages/core/src/smol_core/__init__.py" in users
    assert "packages/core/src/smol_core/plugin_api.py" in users
    assert len(users) >= 15


def test_every_table_is_what_mypy_sees() -> None:
    for path, (table, typed) in lazy_tables().items():
        assert table, f"{path}: no _EXPORTS table"
        assert typed == table, f"{path}: the TYPE_CHECKING imports must name the _EXPORTS table's objects"


def test_no_module_writes_its_own_getattr() -> None:
    """A module-level `def __getattr__` is a copy of the helper (class-level ones are proxies, fine)."""
    copies = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in SOURCES
        for node in ast.parse(path.read_text(), str(path)).body
        if isinstance(node, ast.FunctionDef) and node.name in ("__getattr__", "__dir__")
    ]
    assert not copies, f"use smol_core.lazy_exports (plugin_api.lazy_exports in a plugin): {copies}"
