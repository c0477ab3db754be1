"""The command line: `smolagent --tools mcp:<server>`, `smol plugins`, `smol mcp serve` arguments."""

from __future__ import annotations

import sys

import pytest
from mcp_servers import DEMO, SMOL_TOOLS

from smol_core.errors import SmolError
from smol_core.testing import ScriptedModel


def code(body: str) -> str:
    return f"Thought: I use the tools.\n<code>\n{body}\n</code>"


def test_cli_mcp_tool_family(demo_http_url, monkeypatch):
    from smol_core.agents.settings import tools_from_names
    from smol_core.cli import smolagent
    from smol_core.plugins.registry import get_registry

    spec = get_registry().tool("mcp")
    assert spec.parametrized
    stdio_tools = tools_from_names([f"mcp:{sys.executable} {DEMO}"])
    assert {"add", "weather"} <= {tool.name for tool in stdio_tools}
    assert next(t for t in stdio_tools if t.name == "add")(a=1, b=2) == 3

    model = ScriptedModel([code("final_answer(add(a=19, b=23))")])
    monkeypatch.setattr(smolagent, "build_model", lambda args: model)
    assert (
        smolagent.main(["What is 19 + 23?", "--tools", f"mcp:{demo_http_url}", "--verbosity-level", "-1"])
        == 0
    )


def test_smol_plugins_lists_the_mcp_plugin(capsys):
    from smol_core.cli.smol import main

    main(["plugins"])
    out = capsys.readouterr().out
    block = out[out.index("smol-tool-mcp") :]
    assert "commands: mcp" in block.split("\n\n")[0] and "tools: mcp" in block


def test_cli_reports_a_missing_server_argument():
    from smol_tool_mcp.cli import server_parameters_from_text

    with pytest.raises(SmolError, match="needs a server"):
        server_parameters_from_text("  ")
    assert server_parameters_from_text("http://127.0.0.1:1/mcp")["transport"] == "streamable-http"
    assert server_parameters_from_text("uvx my-server --flag").args == ["my-server", "--flag"]


def test_smolagent_main_with_a_stdio_server_command(monkeypatch):
    from smol_core.cli import smolagent

    model = ScriptedModel([code("final_answer(add(a=1, b=2))")])
    monkeypatch.setattr(smolagent, "build_model", lambda args: model)
    command = f"mcp:env PYTHONUNBUFFERED=1 {sys.executable} {DEMO}"
    assert smolagent.main(["1 + 2?", "--tools", command, "--verbosity-level", "-1"]) == 0


def test_serve_tool_entries_resolve_files_modules_and_names():
    from smol_tool_mcp.cli import resolve_tool_entry

    assert {t.name for t in resolve_tool_entry(str(SMOL_TOOLS))} == {
        "greet",
        "multiply",
        "city_facts",
        "shout",
        "divide",
    }
    assert [t.name for t in resolve_tool_entry(f"{SMOL_TOOLS}:multiply")] == ["multiply"]
    assert [t.name for t in resolve_tool_entry("smol_tools:greet")] == ["greet"]
    assert [t.name for t in resolve_tool_entry("final_answer")] == ["final_answer"]
    with pytest.raises(SmolError, match="defines no 'nope'"):
        resolve_tool_entry(f"{SMOL_TOOLS}:nope")
    with pytest.raises(SmolError, match="neither a registered tool"):
        resolve_tool_entry("no_such_module_xyz:thing")


def test_discovery_imports_no_sdk():
    import subprocess

    probe = "import sys, smol_tool_mcp._plugin; print([m for m in ('mcp', 'anyio', 'uvicorn') if m in sys.modules])"
    assert (
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "[]"
    )


def test_smol_mcp_without_a_subcommand_says_how(capsys):
    from smol_core.cli.smol import main

    assert main(["mcp"]) == 2
    assert "smol mcp serve" in capsys.readouterr().err
