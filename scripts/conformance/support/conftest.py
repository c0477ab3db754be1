"""smolagents' tests/conftest.py, which its sdist does not ship: the fixtures its tests ask for by name.

Why: smolagents runs its suite with these in its own repository; without them the tests that use them
error on both sides and say nothing. The run copies this file (and fixtures/, data/) into the unpacked
suite on both sides, so both run the same helpers. See NOTICE.
"""

import functools

import pytest
from smolagents.agents import MultiStepAgent
from smolagents.monitoring import LogLevel
from tests.fixtures.agents import get_agent_dict  # noqa: F401  (a fixture, found by name)
from tests.fixtures.tools import (  # noqa: F401  (fixtures, found by name)
    boolean_default_tool_class,
    boolean_default_tool_function,
    example_tool,
    multi_input_tool,
    multiline_description_tool,
    no_input_tool,
    optional_input_tool_class,
    optional_input_tool_function,
    single_input_tool,
    test_tool,
)


@pytest.fixture(autouse=True)
def agents_log_nothing_by_default(monkeypatch):
    """An agent made without `verbosity_level` logs nothing, as in smolagents' own test run.

    `test_instantiation_disables_logging_to_terminal` checks this fixture is in place; a test that
    passes `verbosity_level` keeps it."""
    original = MultiStepAgent.__init__

    @functools.wraps(original)
    def init_quietly(self, *args, verbosity_level=LogLevel.OFF, **kwargs):
        original(self, *args, verbosity_level=verbosity_level, **kwargs)

    monkeypatch.setattr(MultiStepAgent, "__init__", init_quietly)


@pytest.fixture(autouse=True)
def mcp_servers_listen_before_their_test_connects(request, monkeypatch):
    """See server_start.py: smolagents' two tests that serve MCP over HTTP go on once it listens."""
    if request.node.name.startswith("test_integration_from_mcp_with_"):
        import subprocess

        from tests.server_start import popen_until_listening

        monkeypatch.setattr(subprocess, "Popen", popen_until_listening("127.0.0.1", 8000, "FastMCP"))
