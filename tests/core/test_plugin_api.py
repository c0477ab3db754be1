"""`smol_core.plugin_api` is the one module plugins import from, and it says what it exports.

A plugin that reaches into a core submodule ties itself to code the core is free to move; the
failure here names the file, the line and the import to use instead.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

import smol_core.plugin_api as plugin_api
from smol_core.executors.base import InterpreterError

ROOT = Path(__file__).resolve().parents[2]
API_FILE = ROOT / "packages" / "core" / "src" / "smol_core" / "plugin_api.py"
ALLOWED = "smol_core.plugin_api"

# Files that are not host-side plugin code, and why.
EXEMPT = {
    # Runs inside the Pyodide sandbox, not on the host: it boots the worker from the modules the
    # worker bundle ships (policy, worker), which is exactly what the sandbox must run.
    Path("packages/executors/wasm/src/smol_executor_wasm/boot.py"),
}


def plugin_sources() -> list[Path]:
    return sorted(
        path.relative_to(ROOT)
        for path in (ROOT / "packages").glob("*/*/src/**/*.py")
        if path.relative_to(ROOT).parts[1] != "src"
    )


def core_imports(path: Path) -> list[tuple[int, str]]:
    """Every smol_core module `path` imports, with its line."""
    tree = ast.parse((ROOT / path).read_text(), str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] == "smol_core":
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found.extend(
                (node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == "smol_core"
            )
    return found


def test_there_are_plugins_to_check() -> None:
    assert len(plugin_sources()) > 50


def test_plugins_import_the_core_only_through_the_plugin_api() -> None:
    wrong = [
        f"{path}:{line}: imports {module}; import from {ALLOWED} instead (add the name there if it is missing)"
        for path in plugin_sources()
        if path not in EXEMPT
        for line, module in core_imports(path)
        if module != ALLOWED
    ]
    assert not wrong, "\n".join(wrong)


def test_the_exempt_files_exist() -> None:
    assert all((ROOT / path).is_file() for path in EXEMPT)


def test_every_export_resolves_to_the_object_in_its_module() -> None:
    import importlib

    for name, module in plugin_api._EXPORTS.items():
        assert getattr(plugin_api, name) is getattr(importlib.import_module(module), name), name


def test_the_typed_imports_match_the_table() -> None:
    """The TYPE_CHECKING block is what mypy sees: it must name the same objects as the runtime table."""
    tree = ast.parse(API_FILE.read_text())
    typed: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "_TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module
                for alias in statement.names:
                    typed[alias.asname or alias.name] = statement.module
    assert typed == plugin_api._EXPORTS


def test_an_unknown_name_says_where_to_add_it() -> None:
    with pytest.raises(AttributeError, match="add it to _EXPORTS"):
        plugin_api.nosuchname  # noqa: B018
    assert "ModelSpec" in dir(plugin_api)


def test_importing_it_loads_no_agent_code() -> None:
    """A plugin's `_plugin.py` imports hook markers from here during discovery: that must stay cheap."""
    code = (
        "import sys\n"
        "from smol_core.plugin_api import hookimpl, ModelSpec, lazy\n"
        "print(sorted(m for m in sys.modules if m.startswith(('smol_core.agents', 'smol_core.executors', "
        "'smol_core.models'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --- the runnable example in each hook's contract ----------------------------------------------


def hook_example(hook: str) -> dict[str, Any]:
    """Run the example in `hook`'s docstring (the block after its `::`) and return its names."""
    from smol_core.plugins import hookspecs

    doc = getattr(hookspecs, hook).__doc__
    assert doc and "::\n\n" in doc, f"{hook} has no example"
    code = textwrap.dedent(doc.split("::\n\n", 1)[1])
    namespace: dict[str, Any] = {"__name__": f"example_{hook}"}
    exec(compile(code, f"<{hook} example>", "exec"), namespace)
    return namespace


def only_spec(namespace: dict[str, Any], hook: str) -> Any:
    (spec,) = namespace[hook]()
    return spec


def test_the_model_example_answers_an_agent() -> None:
    from smol_core import CodeAgent

    spec = only_spec(hook_example("smol_models"), "smol_models")
    model = spec.factory(model_id=spec.default_model_id)
    with CodeAgent(tools=[], model=model, max_steps=2) as agent:
        assert agent.run("say hello").endswith("say hello")


def test_the_executor_example_runs_code_in_its_sandbox() -> None:
    spec = only_spec(hook_example("smol_executors"), "smol_executors")
    executor = spec.factory(["math"], timeout_seconds=10)
    try:
        assert executor("import math\nprint(math.factorial(5))").logs.strip() == "120"
        assert any(name == "seccomp" or name == "rlimits" for name, _, _ in executor.protections)
        with pytest.raises(InterpreterError):
            executor("import os\nos.system('true')")
    finally:
        executor.close()


def test_the_tool_example_is_a_tool() -> None:
    spec = only_spec(hook_example("smol_tools"), "smol_tools")
    assert spec.factory()(text="hey") == "HEY!"


def test_the_command_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    spec = only_spec(hook_example("smol_commands"), "smol_commands")
    parser = argparse.ArgumentParser()
    spec.configure(parser)
    assert spec.run(parser.parse_args(["Ada"])) == 0
    assert capsys.readouterr().out == "Hello, Ada!\n"


def test_the_transport_example_carries_checked_messages() -> None:
    from smol_core import Message
    from smol_core.teams.errors import UnknownRecipientError
    from smol_core.teams.message import encode

    spec = only_spec(hook_example("smol_transports"), "smol_transports")
    transport = spec.factory(num_agents=2)
    message = Message(sender=0, recipient=1, body={"n": 1})
    transport.send(message)
    transport.queues[1].put("not a message")
    transport.queues[1].put(encode(message))  # a redelivery: seen once
    transport.queues[1].put(encode(Message(sender=1, recipient=0, body="misaddressed")))
    assert [m.body for m in transport.receive(1, timeout=1)] == [{"n": 1}]
    assert len(transport.refused) == 2
    assert transport.receive(1, timeout=0) == []
    with pytest.raises(UnknownRecipientError):
        transport.send(Message(sender=0, recipient=7, body="?"))


def test_the_run_extension_example_joins_a_run_given_its_keyword() -> None:
    """`run_id` reaches whatever plugin registers it: another engine of durable runs replaces smol's."""
    from smol_core import CodeAgent
    from smol_core.plugin_api import RunExtensionSpec, hookimpl
    from smol_core.plugins.registry import PluginRegistry, reset_registry

    spec = only_spec(hook_example("smol_run_extensions"), "smol_run_extensions")
    made: list[Any] = []

    def noted(agent: Any, run_id: str, resume: bool) -> Any:
        made.append(spec.factory(agent, run_id, resume))
        return made[-1]

    class StepLogPlugin:
        @hookimpl
        def smol_run_extensions(self) -> list[RunExtensionSpec]:
            return [RunExtensionSpec(spec.name, noted)]

    registry = PluginRegistry(environ={"SMOL_DISABLE_PLUGIN_AUTOLOAD": "1"})
    registry.unregister("smol-core.durable")
    registry.register(StepLogPlugin(), "step-log")
    previous = reset_registry(registry)
    try:
        model = lambda messages: "<code>\nfinal_answer(42)\n</code>"  # noqa: E731
        with CodeAgent(tools=[], model=model, verbosity_level=0) as agent:
            assert agent.run("answer", run_id="run-1") == 42
    finally:
        reset_registry(previous)
    assert [log.steps for log in made] == [["run-1: step 1"]]


def test_a_run_keyword_no_installed_plugin_owns_says_what_to_install() -> None:
    from smol_core import CodeAgent
    from smol_core.plugins.lazy import MissingPluginError
    from smol_core.plugins.registry import PluginRegistry, reset_registry

    registry = PluginRegistry(environ={"SMOL_DISABLE_PLUGIN_AUTOLOAD": "1"})
    registry.unregister("smol-core.durable")  # as if durable runs were not installed
    previous = reset_registry(registry)
    try:
        model = lambda messages: "<code>\nfinal_answer(42)\n</code>"  # noqa: E731
        with (
            CodeAgent(tools=[], model=model, verbosity_level=0) as agent,
            pytest.raises(MissingPluginError) as caught,
        ):
            agent.run("answer", run_id="run-1")
    finally:
        reset_registry(previous)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("run(run_id=...) needs a package that registers the run extension 'run_id'")
    assert "install it: `" in message


def test_the_run_option_example_adds_its_flag_to_smolagent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A feature's flags reach `smolagent` through the hook: listed in `--help`, applied to the run."""
    from smol_core.cli import smolagent
    from smol_core.plugins.registry import PluginRegistry, reset_registry

    example = hook_example("smol_run_options")
    registry = PluginRegistry(environ={"SMOL_DISABLE_PLUGIN_AUTOLOAD": "1"})
    registry.register(types.SimpleNamespace(smol_run_options=example["smol_run_options"]), "run-notes")
    previous = reset_registry(registry)
    notes = tmp_path / "notes.txt"
    try:
        with pytest.raises(SystemExit):
            smolagent.main(["--help"])
        assert "--note-to FILE" in capsys.readouterr().out
        args = smolagent.build_parser().parse_args(["task", "--note-to", str(notes)])
        run = smolagent.command_run(args, smolagent._raise_mistake)
        model = lambda messages: "<code>\nfinal_answer(42)\n</code>"  # noqa: E731
        from smol_core import CodeAgent

        with CodeAgent(tools=[], model=model, verbosity_level=0) as agent, run.wrapped(agent):
            assert agent.run("answer") == 42
    finally:
        reset_registry(previous)
    assert notes.read_text() == "agent ran 1 step(s)\n"


def test_discovering_every_installed_plugin_imports_only_their_plugin_modules() -> None:
    """`smolagent --help` lists every installed plugin's options, so it discovers them all: each
    plugin's package `__init__` and `_plugin.py` are imported, and must import nothing else of
    the plugin (its model, executor or SDK), or every command pays for every plugin (0.7 s here
    before the docker, bedrock and hub packages named their exports lazily)."""
    code = (
        "import sys\n"
        "from smol_core.plugins.registry import PluginRegistry\n"
        "registry = PluginRegistry()\n"
        "registry.load_entry_points()\n"
        "registry.plugins()\n"
        "loaded = [m for m in sys.modules if m.startswith('smol_') and not m.startswith('smol_core')]\n"
        "print(sorted(m for m in loaded if '.' in m and not m.endswith('._plugin')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
