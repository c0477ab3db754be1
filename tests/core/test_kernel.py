"""The kernel knows no feature: features sit above the agent loop, and the loop imports none of them.

Why: the design card asks for "a minimal core that defines the agent loop and hook specs", with
everything else registered through the entry points a third-party plugin uses. A feature the kernel
imports by name cannot be shipped, replaced or left uninstalled, and every agent pays for it as it
starts (a team of 64 agents pays it 64 times). So the kernel reaches a feature only through what the
feature registers (`smol_core.plugins.hookspecs`) and through tables of names resolved on first use
(`lazy_exports`, `lazy("module:attribute")`), never through an import statement.

What counts as an import: `import` and `from ... import` anywhere in the file, inside functions too
(a deferred import only hides the dependency), and `importlib.import_module` / `__import__` with a
literal name. Imports under `TYPE_CHECKING` are for annotations only and do not count.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "packages" / "core" / "src"

KERNEL: tuple[str, ...] = (
    # the agent loop, the run's door its extensions join, and the agent's settings, save and load
    # (smolagents' `save`/`from_folder`/`push_to_hub` API lives in agents/)
    "smol_core.agents",
    "smol_core.effects",
    # the hook specs, the registry that asks plugins, and the one module plugins import from
    "smol_core.plugins",
    "smol_core.plugin_api",
    "smol_core.loading",
    # memory, messages, logging and the values an agent hands back
    "smol_core.memory",
    "smol_core.messages",
    "smol_core.monitoring",
    "smol_core.agent_types",
    "smol_core.serialization",
    # the model, tool and executor protocols (and smolagents' names around them)
    "smol_core.models",
    "smol_core.tools",
    "smol_core.executors.base",
    "smol_core.executors.remote",
    "smol_core.executors.smolagents_support",
    "smol_core.executors",  # the package's __init__ only: its submodules are listed one by one
    # the front doors users import from, and the errors tree
    "smol_core",  # the package's __init__ only
    "smol_core.exceptions",
    "smol_core.errors",
    "smol_core.smolagents_names",
    "smol_core.lazy_exports",
    "smol_core.install_advice",
    "smol_core.instrumentation",
    "smol_core.version",
    # helpers that know nothing of agents
    "smol_core.json_limits",
    "smol_core.terminal",
    "smol_core.janitor",
    "smol_core.leftovers",
    "smol_core.type_hints",
    "smol_core.source_code",
    "smol_core.untrusted_files",
)
"""Modules (and the packages whose every module is kernel), as the issue "A minimal core" names the
kernel: the loop, hook specs, plugin API, memory, messages, the model/tool/executor protocols and
smolagents' save and load API."""

FEATURES: tuple[str, ...] = (
    "smol_core.durable",
    "smol_core.replay",
    "smol_core.teams",
    "smol_core.cli",
    "smol_core.testing",
    "smol_core.network",
    "smol_core.prompting",
    # the local sandbox: its host side, its worker, and smolagents' interpreter API over it
    "smol_core.executors.local",
    "smol_core.executors.host",
    "smol_core.executors.worker",
    "smol_core.executors.evaluate",
    "smol_core.executors.evaluate_failures",
    "smol_core.executors.local_plugin",
)
"""Features: each registers what it offers through the hooks, as a third-party plugin does."""

ALLOWED: dict[tuple[str, str], str] = {
    ("smol_core.agents.code_agent", "smol_core.prompting"): "prompting hook: next round",
    ("smol_core.agents.tool_calling_agent", "smol_core.prompting"): "prompting hook: next round",
}
"""(kernel module, feature) pairs still allowed, each with the reason: delete the entry with the seam."""

WHOLE_PACKAGES = {"smol_core", "smol_core.executors"}
"""Entries of KERNEL that name only the package's `__init__`, not everything below it."""


def module_name(path: Path) -> str:
    parts = path.relative_to(CORE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def feature_of(module: str) -> str | None:
    return next((feature for feature in FEATURES if _under(module, feature)), None)


def is_kernel(module: str) -> bool:
    if feature_of(module) is not None:
        return False
    return any(module == entry if entry in WHOLE_PACKAGES else _under(module, entry) for entry in KERNEL)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every module `path` imports outside `TYPE_CHECKING`, deferred ones too."""
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
            found.append((node.lineno, node.module))
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in {
            "importlib.import_module",
            "__import__",
        }:
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def kernel_sources() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(CORE.rglob("*.py")) if is_kernel(module_name(path))}


def test_every_core_module_is_kernel_or_a_feature() -> None:
    """A new module is placed on purpose: in the kernel (and held to this test) or in a feature."""
    unplaced = [
        module_name(path)
        for path in CORE.rglob("*.py")
        if not is_kernel(module_name(path)) and feature_of(module_name(path)) is None
    ]
    assert not unplaced, f"add these to KERNEL or FEATURES in {__file__}: {sorted(unplaced)}"


def test_the_kernel_imports_no_feature() -> None:
    reaching = []
    for name, path in kernel_sources().items():
        for line, target in imported_modules(path):
            feature = feature_of(target)
            if feature is not None and (name, feature) not in ALLOWED:
                reaching.append(f"{path.relative_to(CORE)}:{line} imports {feature}")
    assert not reaching, (
        "the kernel reaches a feature by name; register it through a hook instead "
        "(smol_core.plugins.hookspecs):\n" + "\n".join(sorted(set(reaching)))
    )


def test_each_allowance_is_still_needed() -> None:
    """An allowance whose import is gone is deleted, so the list only shrinks."""
    sources = kernel_sources()
    used = {
        (name, feature_of(target)) for name, path in sources.items() for _, target in imported_modules(path)
    }
    stale = sorted(f"{module} -> {feature}" for module, feature in ALLOWED if (module, feature) not in used)
    assert not stale, f"delete these from ALLOWED in {__file__}: {stale}"


RUN_AGENTS = textwrap.dedent(
    """
    import sys

    from smol_core import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction
    from smol_core import CodeAgent, ToolCallingAgent

    def code_model(messages, **options):
        return "<code>\\nfinal_answer(6 * 7)\\n</code>"

    def tool_calling_model(messages, **options):
        call = ChatMessageToolCall(ChatMessageToolCallFunction("final_answer", {"answer": "42"}), "call_1")
        return ChatMessage("assistant", "", tool_calls=[call])

    assert CodeAgent(tools=[], model=code_model, verbosity_level=0).run("6 * 7?") == 42
    assert ToolCallingAgent(tools=[], model=tool_calling_model, verbosity_level=0).run("6 * 7?") == "42"
    print("\\n".join(sorted(sys.modules)))
    """
)

UNUSED_FEATURES = (
    "sqlite3",
    "smol_core.durable",
    "smol_core.replay",
    "smol_core.teams",
    "smol_core.cli",
    "smol_core.testing",
)
"""What a plain run on a model the user wrote never needs (prompting is the kernel's until its hook
comes, next round)."""


def test_a_plain_run_loads_no_feature_it_does_not_use() -> None:
    ran = subprocess.run(
        [sys.executable, "-c", RUN_AGENTS], capture_output=True, text=True, timeout=120, check=False
    )
    assert ran.returncode == 0, ran.stderr
    loaded = ran.stdout.split()
    assert "smol_core.agents.code_agent" in loaded  # the run did run in that process
    unused = sorted(m for m in loaded if any(_under(m, feature) for feature in UNUSED_FEATURES))
    assert not unused, f"a plain CodeAgent and ToolCallingAgent run loaded features they do not use: {unused}"
