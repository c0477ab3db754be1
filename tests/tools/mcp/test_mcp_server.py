"""smol's server mode, driven by the real `mcp` client and by smol's own MCPClient (a round trip)."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from mcp import Client, StdioServerParameters
from mcp_servers import AUTH, SMOL_TOOLS
from PIL import Image
from smol_tool_mcp import MCPClient, MCPToolError, agent_as_tool, build_server
from smol_tool_mcp.results import result_value

from smol_core import CodeAgent, tool
from smol_core.testing import ScriptedModel

SMOL = [sys.executable, "-m", "smol_core.cli.smol"]


def code(body: str) -> str:
    return f"Thought: I compute.\n<code>\n{body}\n</code>"


async def _session(server, calls):
    async with Client(server, read_timeout_seconds=20) as client:
        listing = await client.list_tools()
        results = {name: await client.call_tool(name, arguments) for name, arguments in calls}
        return {tool.name: tool for tool in listing.tools}, results


def test_tools_served_over_stdio_to_the_real_mcp_client():
    params = StdioServerParameters(
        command=SMOL[0], args=[*SMOL[1:], "mcp", "serve", "--tools", str(SMOL_TOOLS)]
    )
    calls = [
        ("multiply", {"a": 6, "b": 7}),
        ("greet", {"name": "Ada", "excited": True}),
        ("city_facts", {"city": "Paris"}),
        ("shout", {"text": "hi"}),
        ("divide", {"a": 1, "b": 0}),
        ("multiply", {"a": "six", "b": 7}),
        ("nope", {}),
    ]
    listing, results = asyncio.run(_session(params, calls))
    assert set(listing) == {"greet", "multiply", "city_facts", "shout", "divide"}
    greet = listing["greet"]
    assert greet.input_schema["required"] == ["name"]
    assert greet.input_schema["properties"]["excited"]["type"] == "boolean"
    assert greet.output_schema is None
    assert listing["multiply"].output_schema["properties"]["result"] == {"type": "integer"}
    assert results["multiply"].is_error  # the last call under this name: a wrong argument type
    assert "argument 'a' should be integer" in results["multiply"].content[0].text
    assert results["greet"].content[0].text == "Hello, Ada!"  # what the tool printed went to stderr
    assert results["city_facts"].structured_content == {
        "city": "Paris",
        "population": 2100000,
        "tags": ["capital"],
    }
    assert results["shout"].content[0].text == "HI"
    assert results["divide"].is_error and "ZeroDivisionError" in results["divide"].content[0].text
    assert results["nope"].is_error and "Unknown tool 'nope'" in results["nope"].content[0].text


def test_round_trip_through_smol_http_server_and_mcp_client(smol_http_url):
    from smol_tools import city_facts, greet, multiply

    with MCPClient({"url": smol_http_url, "transport": "streamable-http", "headers": AUTH}) as tools:
        by_name = {tool.name: tool for tool in tools}
        assert by_name["multiply"](a=6, b=7) == 42
        assert by_name["divide"](a=1, b=4) == 0.25
        assert by_name["greet"](name="Ada") == "Hello, Ada."
        assert by_name["city_facts"](city="Oslo")["city"] == "Oslo"
        for original in (greet, multiply, city_facts):
            mirrored = by_name[original.name]
            assert mirrored.description == original.description
            for arg, entry in original.inputs.items():
                assert mirrored.inputs[arg]["type"] == entry["type"]
                assert mirrored.inputs[arg].get("nullable", False) == entry.get("nullable", False)
        assert by_name["multiply"].output_type == "integer"
        with pytest.raises(MCPToolError, match="ZeroDivisionError"):
            by_name["divide"](a=1, b=0)


def test_an_agent_served_as_one_run_tool():
    agent = CodeAgent(
        tools=[],
        model=ScriptedModel([code("final_answer(6 * 7)")], repeat_last=True),
        name="calculator",
        description="Does arithmetic.",
    )
    run_tool = agent_as_tool(agent)
    assert run_tool.name == "run" and run_tool.description == "Does arithmetic."
    server = build_server([run_tool])
    with agent:
        listing, results = asyncio.run(_session(server, [("run", {"task": "What is 6 times 7?"})]))
    assert listing["run"].input_schema["required"] == ["task"]
    assert results["run"].content[0].text == "42"


def test_a_saved_agent_served_by_smol_mcp_serve(tmp_path):
    agent = CodeAgent(tools=[], model=ScriptedModel([]), name="calc", description="Answers arithmetic.")
    agent.save(str(tmp_path))
    agent_file = tmp_path / "agent.json"
    data = json.loads(agent_file.read_text())
    data["model"]["data"].update(replies=[code("final_answer(7 * 6)")], repeat_last=True)
    agent_file.write_text(json.dumps(data))
    params = StdioServerParameters(
        command=SMOL[0], args=[*SMOL[1:], "mcp", "serve", "--agent-folder", str(tmp_path)]
    )
    listing, results = asyncio.run(_session(params, [("run", {"task": "7 times 6?"})]))
    assert listing["run"].description == "Answers arithmetic."
    assert results["run"].content[0].text == "42"


def test_smol_mcp_serve_grants_a_saved_agent_imports_only_from_its_command_line(tmp_path):
    """The folder asks for `fractions`; only `--imports fractions` on the command line grants it."""
    agent = CodeAgent(
        tools=[], model=ScriptedModel([]), name="calc", additional_authorized_imports=["fractions"]
    )
    agent.save(str(tmp_path))
    agent_file = tmp_path / "agent.json"
    data = json.loads(agent_file.read_text())
    data["model"]["data"].update(
        replies=[code("import fractions\nfinal_answer(str(fractions.Fraction(2, 4)))")], repeat_last=True
    )
    data["max_steps"] = 1
    agent_file.write_text(json.dumps(data))
    serve = [*SMOL[1:], "mcp", "serve", "--agent-folder", str(tmp_path)]
    granted = StdioServerParameters(command=SMOL[0], args=[*serve, "--imports", "fractions"])
    _, results = asyncio.run(_session(granted, [("run", {"task": "half"})]))
    assert results["run"].content[0].text == "1/2"
    asked_only = StdioServerParameters(command=SMOL[0], args=serve)
    _, results = asyncio.run(_session(asked_only, [("run", {"task": "half"})]))
    assert results["run"].content[0].text != "1/2"


def test_duplicate_tool_names_are_refused():
    from smol_tools import greet

    with pytest.raises(ValueError, match="Two tools are named 'greet'"):
        build_server([greet, greet])


@tool
def swatch(color: str) -> Image.Image:
    """A 2x2 swatch of a color.

    Args:
        color: A color name, e.g. "red".
    """
    return Image.new("RGB", (2, 2), color)


def test_images_travel_as_png_image_content():
    _, results = asyncio.run(_session(build_server([swatch]), [("swatch", {"color": "blue"})]))
    block = results["swatch"].content[0]
    assert block.type == "image" and block.mime_type == "image/png"
    image = result_value(results["swatch"], None, structured=True)
    assert image.size == (2, 2) and image.getpixel((0, 0)) == (0, 0, 255)
