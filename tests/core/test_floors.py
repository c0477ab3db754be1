"""The core is built in floors: a module imports only from its own floor and the floors below it.

Why: a newcomer reads the core from the bottom up (errors, then messages and memory, then models,
tools and executors, then the agent loop, then teams, then the front doors) and never has to hold a
floor above in mind to understand one below; and a floor can be tested, replaced or shipped (the
sandbox worker is shipped whole into containers) without the floors above it. An import deferred
into a function still counts: it only hides the dependency. Imports under `TYPE_CHECKING` are for
annotations and do not count.

`from smol_core import instrumentation` imports the submodule, not the package's front door, so it
counts as an import of `smol_core.instrumentation`.
"""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "packages" / "core" / "src"

# Lowest first. The name is the first component under smol_core (a module or a package).
FLOORS: list[tuple[str, set[str]]] = [
    (
        "foundation: errors, limits and helpers that know nothing of agents",
        {
            "errors",
            "json_limits",
            "terminal",
            "janitor",
            "leftovers",
            "type_hints",
            "source_code",
            "untrusted_files",
            "network",
            "lazy_exports",
            "version",
            "install_advice",
        },
    ),
    (
        "plumbing: the plugin registry, tracing, smolagents' names resolved by string",
        {"plugins", "instrumentation", "smolagents_names"},
    ),
    (
        "data: messages, memory, logging, agent types",
        {"messages", "memory", "monitoring", "agent_types", "serialization"},
    ),
    ("capabilities: models, tools, executors", {"models", "tools", "executors", "loading"}),
    ("the run's door: every effect of a run, and the extensions that join it", {"effects"}),
    (
        "what a run uses: prompting for small models, checkpoints, record and replay",
        {"prompting", "durable", "replay"},
    ),
    ("the agent loop", {"agents"}),
    ("teams of agent processes", {"teams"}),
    (
        "front doors: the CLI, the plugin API, the testing kits, the package itself",
        {"cli", "plugin_api", "testing", "exceptions", ""},
    ),
]


def floor_of(module: str) -> int:
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else ""
    for number, (_, names) in enumerate(FLOORS):
        if name in names:
            return number
    raise AssertionError(f"{module} is on no floor: add {name!r} to FLOORS in {__file__}")


def module_name(path: Path) -> str:
    parts = path.relative_to(CORE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, modules: set[str]) -> list[tuple[int, str]]:
    """(line, module) for each core module `path` imports outside `TYPE_CHECKING`."""
    tree = ast.parse(path.read_text(), str(path))
    annotations_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in annotations_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            submodules = [f"{node.module}.{alias.name}" for alias in node.names]
            named = [name for name in submodules if name in modules]
            # `from pkg import submodule` imports the submodule; `from pkg import name` the package
            if len(named) < len(submodules) and node.module in modules:
                found.append((node.lineno, node.module))
            found.extend((node.lineno, name) for name in named)
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names if alias.name in modules)
    return found


def test_every_import_stays_on_its_floor_or_goes_down() -> None:
    paths = {module_name(path): path for path in CORE.rglob("*.py")}
    modules = set(paths)
    upward = []
    for name, path in sorted(paths.items()):
        here = floor_of(name)
        for line, target in imports(path, modules):
            if floor_of(target) > here:
                upward.append(
                    f"{path.relative_to(CORE)}:{line} imports {target} "
                    f"({FLOORS[floor_of(target)][0].split(':')[0]}, above {FLOORS[here][0].split(':')[0]})"
                )
    assert not upward, "imports that climb a floor:\n" + "\n".join(upward)
