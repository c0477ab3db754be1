"""Transports are plugins: the built-in `local` one and a third party's go through the same hook."""

from __future__ import annotations

import pytest

from smol_core import load_transport
from smol_core.cli import smol
from smol_core.errors import PluginNotFoundError
from smol_core.plugins.registry import PluginRegistry, reset_registry
from smol_core.teams import LocalTransport, Message, Transport

THIRD_PARTY = """
from smol_core import hookimpl
from smol_core.plugins.specs import TransportSpec, lazy

@hookimpl
def smol_transports():
    return [TransportSpec("pigeon", lazy("smol_core.teams.local:LocalTransport"), "Carrier pigeons.",
                          aliases=("birds",))]
"""


@pytest.fixture
def builtins_only():
    fresh = PluginRegistry(environ={"SMOL_DISABLE_PLUGIN_AUTOLOAD": "1"})
    previous = reset_registry(fresh)
    yield fresh
    reset_registry(previous)


def test_local_is_a_builtin_transport_plugin(builtins_only):
    assert builtins_only.names("transports") == ["local"]
    teams = {p.name: p for p in builtins_only.plugins() if p.builtin}["smol-core.teams"]
    assert teams.registers["transports"] == ["local"]
    made = load_transport("local", num_agents=2)
    assert isinstance(made, LocalTransport) and isinstance(made, Transport)
    made.send(Message(sender=0, recipient=1, body="hi"))
    assert [m.body for m in made.receive(1, timeout=10)] == ["hi"]


def test_an_unknown_transport_names_the_package_that_provides_it(builtins_only):
    with pytest.raises(PluginNotFoundError) as caught:
        builtins_only.transport("ray")
    assert "Installed transports: local" in str(caught.value)
    assert "provided by the package 'smol-transport-ray': install it: `" in str(caught.value)
    assert "packages/transports/ray" in str(caught.value)  # this checkout's folder, editable


def test_a_third_party_transport_is_found_listed_and_used(make_distribution, capsys):
    make_distribution("smol-transport-pigeon", "smol_transport_pigeon_plugin", THIRD_PARTY)
    fresh = PluginRegistry()
    previous = reset_registry(fresh)
    try:
        assert "pigeon" in fresh.names("transports")
        made = load_transport("birds", num_agents=1)
        assert isinstance(made, LocalTransport)
        smol.main(["plugins"])
        out = capsys.readouterr().out
        assert "transports: pigeon" in out and "transports: local" in out
    finally:
        reset_registry(previous)


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["task", "--num-agents", "0"], "--num-agents must be from 1 to 64"),
        (["task", "--num-agents", "2", "--transport", "pigeon-post"], "No transport named 'pigeon-post'"),
        (["task", "--num-agents", "2", "--deadline", "0"], "--deadline must be positive"),
        (["task", "--num-agents", "2", "--transport-url", "redis://x"], "`local` needs none"),
    ],
)
def test_team_flags_are_checked_before_anything_runs(argv, error, builtins_only, capsys):
    from smol_core.cli.smolagent import main

    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert error in capsys.readouterr().err
