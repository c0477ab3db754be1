from __future__ import annotations

import pytest

from smol_core.errors import PluginConflictError, PluginNotFoundError
from smol_core.plugins.registry import PluginRegistry

MODEL_PLUGIN = """
from smol_core import hookimpl
from smol_core.plugins.specs import ModelSpec, lazy

@hookimpl
def smol_models():
    return [ModelSpec("echo", lazy("smol_core.testing.models:FunctionModel"), "Echo model.")]
"""


def test_builtins_register_through_the_hooks():
    registry = PluginRegistry(environ={"SMOL_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert "local" in registry.names("executors")
    assert {"final_answer", "python_interpreter", "user_input"} <= set(registry.names("tools"))
    assert {"plugins", "doctor"} <= set(registry.names("commands"))
    builtin = {p.name: p.registers for p in registry.plugins() if p.builtin}
    assert builtin["smol-core.executor-local"]["executors"] == ["local"]
    assert builtin["smol-core.durable"] == {
        "checkpoint_stores": ["sqlite"],
        "run_extensions": ["run_id"],
        "run_options": ["durable runs"],
    }
    assert builtin["smol-core.teams"] == {"transports": ["local"], "run_options": ["teams"]}


def test_a_feature_is_imported_only_when_a_kind_it_registers_is_asked_for():
    """Building a CodeAgent's executor registers the local sandbox and nothing of durable runs,
    teams or the CLI: a run imports no feature it does not use (tests/core/test_kernel.py)."""
    registry = PluginRegistry(environ={"SMOL_DISABLE_PLUGIN_AUTOLOAD": "1"})
    registry.executor("local")
    registered = {name for name, info in registry._plugins.items() if info.builtin}
    assert registered == {"smol-core", "smol-core.executor-local"}
    registry.checkpoint_store("sqlite")
    assert "smol-core.durable" in {name for name, info in registry._plugins.items() if info.builtin}


def test_unknown_name_lists_installed_and_names_the_package():
    registry = PluginRegistry(environ={"SMOL_DISABLE_PLUGIN_AUTOLOAD": "1"})
    with pytest.raises(PluginNotFoundError) as caught:
        registry.executor("docker")
    message = str(caught.value)
    assert "Installed executors: local" in message
    assert "provided by the package 'smol-executor-docker': install it: `" in message


def test_entry_point_plugin_is_loaded_only_when_needed(make_distribution):
    make_distribution("smol-model-echo", "smol_echo_plugin", MODEL_PLUGIN)
    registry = PluginRegistry(environ={})
    registry.executor("local")
    assert not registry._external_loaded  # the built-ins answered; nothing else was imported
    spec = registry.model("echo")
    assert spec.description == "Echo model."
    info = {p.name: p for p in registry.plugins()}["smol-model-echo"]
    assert info.distribution == "smol-model-echo"
    assert info.version == "1.0"
    assert info.registers == {"models": ["echo"]}


def test_broken_plugin_is_reported_and_does_not_take_others_down(make_distribution):
    make_distribution("smol-broken", "smol_broken_plugin", "raise RuntimeError('boom at import')\n")
    make_distribution("smol-model-echo", "smol_echo_plugin2", MODEL_PLUGIN)
    registry = PluginRegistry(environ={})
    assert registry.model("echo")
    broken = {p.name: p for p in registry.plugins()}["smol-broken"]
    assert "RuntimeError: boom at import" in broken.error


def test_hook_that_raises_is_isolated(make_distribution):
    make_distribution(
        "smol-bad-hook",
        "smol_bad_hook_plugin",
        """
        from smol_core import hookimpl

        @hookimpl
        def smol_tools():
            raise ValueError("cannot list tools")
        """,
    )
    registry = PluginRegistry(environ={})
    assert "final_answer" in registry.names("tools")
    bad = {p.name: p for p in registry.plugins()}["smol-bad-hook"]
    assert "cannot list tools" in bad.error


def test_name_claimed_twice_is_an_error_naming_both(make_distribution):
    make_distribution("smol-echo-a", "smol_echo_a", MODEL_PLUGIN)
    make_distribution("smol-echo-b", "smol_echo_b", MODEL_PLUGIN)
    registry = PluginRegistry(environ={})
    with pytest.raises(PluginConflictError) as caught:
        registry.model("echo")
    assert "smol-echo-a" in str(caught.value) and "smol-echo-b" in str(caught.value)
    # the conflict is that name's alone: every other lookup and the listing keep working
    assert registry.executor("local") and registry.tool("final_answer")
    assert "echo" not in registry.names("models")
    listed = {p.name: p for p in registry.plugins()}
    assert listed["smol-echo-a"].conflicts == ["model 'echo'"] == listed["smol-echo-b"].conflicts
    registry = PluginRegistry(environ={"SMOL_DISABLE_PLUGINS": "smol-echo-b"})
    assert registry.model("echo")


def test_environment_switches(make_distribution):
    make_distribution("smol-model-echo", "smol_echo_plugin3", MODEL_PLUGIN)
    assert "echo" not in PluginRegistry(environ={"SMOL_DISABLE_PLUGIN_AUTOLOAD": "1"}).names("models")
    assert "echo" not in PluginRegistry(environ={"SMOL_LOAD_PLUGINS": "something-else"}).names("models")
    assert "echo" in PluginRegistry(environ={"SMOL_LOAD_PLUGINS": "smol-model-echo"}).names("models")
    assert "echo" not in PluginRegistry(environ={"SMOL_DISABLE_PLUGINS": "smol-model-echo"}).names("models")


def test_programmatic_registration():
    registry = PluginRegistry(environ={"SMOL_DISABLE_PLUGIN_AUTOLOAD": "1"})

    class Plugin:
        from smol_core import hookimpl

        @hookimpl
        def smol_tools(self):
            from smol_core.plugins.specs import ToolSpec

            return [ToolSpec("clock", lambda: None, "A clock.")]

    registry.register(Plugin(), name="clock-plugin")
    assert "clock" in registry.names("tools")
    registry.unregister("clock-plugin")
    assert "clock" not in registry.names("tools")


def test_a_conflict_leaves_the_cli_working_and_shows_in_smol_plugins(make_distribution, capsys):
    from smol_core.cli import smol, smolagent
    from smol_core.plugins.registry import reset_registry

    make_distribution("smol-echo-c", "smol_echo_c", MODEL_PLUGIN)
    make_distribution("smol-echo-d", "smol_echo_d", MODEL_PLUGIN)
    previous = reset_registry(PluginRegistry(environ={}))
    try:
        assert smol.main(["plugins"]) == 1
        out = capsys.readouterr().out
        assert out.count("CONFLICT (another plugin registers the same name): model 'echo'") == 2
        assert smol.main(["doctor"]) == 0
        capsys.readouterr()
        assert smolagent.main(["x", "--model-type", "echo"]) == 2
        err = capsys.readouterr().err
        assert "Two plugins register the model name 'echo'" in err and "Traceback" not in err
    finally:
        reset_registry(previous)


@pytest.fixture
def no_process_registry():
    from smol_core.plugins import registry as module

    previous = module.reset_registry(None)
    yield module
    module._prebuilt = None
    module.reset_registry(previous)


def test_a_prebuilt_registry_is_taken_by_the_first_use_when_the_environment_selects_the_same_plugins(
    no_process_registry, monkeypatch
):
    """What a team's fork server builds once, each agent takes instead of registering the built-in
    plugins again."""
    monkeypatch.delenv("SMOL_DISABLE_PLUGINS", raising=False)
    no_process_registry.prebuild_registry()
    prebuilt = no_process_registry._prebuilt
    assert no_process_registry.get_registry() is prebuilt
    assert "local" in prebuilt.names("executors")
    assert no_process_registry._prebuilt is None  # taken once: a later reset builds afresh


def test_a_prebuilt_registry_is_not_taken_where_the_environment_selects_other_plugins(
    no_process_registry, monkeypatch
):
    """An agent whose host set SMOL_DISABLE_PLUGINS after its fork server started gets what it asked for."""
    monkeypatch.delenv("SMOL_DISABLE_PLUGINS", raising=False)
    no_process_registry.prebuild_registry()
    prebuilt = no_process_registry._prebuilt
    monkeypatch.setenv("SMOL_DISABLE_PLUGINS", "some-plugin")
    registry = no_process_registry.get_registry()
    assert registry is not prebuilt
    assert registry._disabled == {"some-plugin"}
