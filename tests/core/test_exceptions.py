"""`smol_core.exceptions` gathers every error smol raises to its users, and its docstring's tree is
the real class hierarchy.

An error class added anywhere in the core fails here until it is exported and drawn in the tree, so
the one page a user reads to know what to catch stays whole.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import pkgutil
import re

import smol_core
import smol_core.exceptions as exceptions

# Raised inside the sandbox to the agent's code (a blocked import, a forbidden attribute, a tool's
# failure relayed to the code): the host sees them only as text, in an `InterpreterError`'s message.
# `exceptions` may still list one the host raises too (the shared frame codec's `ProtocolError`).
SANDBOX_SIDE = "smol_core.executors.worker."

TREE_LINE = re.compile(
    r"^(?P<indent>(?:[| ]   )*)(?:[|`]-- )?(?P<name>\w+)(?: \+ (?P<also>\w+(?:, \w+)*))?(?: {2,}(?P<doc>\S.*))?$"
)


def defined_errors() -> dict[str, type[Exception]]:
    """Every `Exception` subclass defined in a core module, by name (control-flow signals that derive
    from `BaseException` only, such as a stopped command or team member, are not errors)."""
    found: dict[str, type[Exception]] = {}
    for info in pkgutil.walk_packages(smol_core.__path__, "smol_core."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, Exception) and value.__module__ == info.name:
                assert found.get(value.__name__, value) is value, f"two error classes named {value.__name__}"
                found[value.__name__] = value
    return found


def host_side_errors() -> dict[str, type[Exception]]:
    return {
        name: cls for name, cls in defined_errors().items() if not cls.__module__.startswith(SANDBOX_SIDE)
    }


def drawn_tree() -> dict[str, tuple[str | None, list[str], str]]:
    """{class: (the class it is drawn under, the other bases after `+`, its description)}."""
    doc = exceptions.__doc__ or ""
    block = doc.split("```text\n", 1)[1].split("```", 1)[0]
    drawn: dict[str, tuple[str | None, list[str], str]] = {}
    parents: list[str] = []
    for line in block.splitlines():
        match = TREE_LINE.match(line)
        assert match, f"not a line of the tree: {line!r}"
        depth = len(match["indent"]) // 4 + (0 if line[0].isalpha() else 1)
        del parents[depth:]
        assert len(parents) == depth, f"{match['name']} is indented under nothing"
        assert match["name"] not in drawn, f"{match['name']} is drawn twice"
        also = match["also"].split(", ") if match["also"] else []
        drawn[match["name"]] = (parents[-1] if parents else None, also, match["doc"] or "")
        parents.append(match["name"])
    return drawn


def test_every_host_side_error_is_exported() -> None:
    missing = sorted(set(host_side_errors()) - set(exceptions.__all__))
    assert not missing, f"add these to smol_core.exceptions (its imports, __all__ and tree): {missing}"


def test_the_exports_are_the_core_error_classes() -> None:
    errors = defined_errors()
    for name in exceptions.__all__:
        assert getattr(exceptions, name) is errors.get(name), f"{name} is not a core error class"


def test_the_tree_draws_every_export_and_nothing_else() -> None:
    drawn = {name for name, (parent, _, _) in drawn_tree().items() if parent is not None}
    assert drawn == set(exceptions.__all__)


def test_the_tree_is_the_real_hierarchy() -> None:
    for name, (parent, also, doc) in drawn_tree().items():
        if parent is None:
            assert inspect.isclass(getattr(builtins, name, None)), f"the root {name} is not a built-in class"
            continue
        cls = getattr(exceptions, name)
        bases = [base.__name__ for base in cls.__bases__]
        assert [parent, *also] == bases, f"{name} is drawn as {[parent, *also]}; its bases are {bases}"
        assert doc, f"{name} says nothing of when it is raised"


def test_the_check_reads_a_tree() -> None:
    assert drawn_tree()["PluginNotFoundError"][:2] == ("SmolError", ["LookupError", "ValueError"])
    assert drawn_tree()["ToolTimeoutError"][0] == "AgentToolExecutionError"
    assert drawn_tree()["ProtocolError"][0] == "RuntimeError"


def test_the_package_exports_the_module() -> None:
    assert smol_core.exceptions is exceptions and "exceptions" in smol_core.__all__
    assert smol_core.SmolError is exceptions.SmolError
