"""smol's MCP client against real servers written with the `mcp` SDK (stdio and streamable HTTP)."""

from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from mcp import StdioServerParameters
from mcp_servers import DEMO, free_port, wait_for_port
from smol_tool_mcp import MCPClient, MCPConnectionError, MCPToolError, tool_collection_from_mcp

from smol_core import CodeAgent
from smol_core.errors import AgentToolCallError
from smol_core.testing import ScriptedModel
from smol_core.tools.collection import ToolCollection


def test_lists_tools_as_smol_tools(demo_tools):
    assert {"add", "greet", "weather", "list_items", "fail", "red_pixel", "die", "sleep"} <= set(demo_tools)
    add = demo_tools["add"]
    assert add.inputs["a"]["type"] == "integer" and not add.inputs["a"].get("nullable")
    assert add.output_type == "integer"
    items = demo_tools["list_items"]
    assert items.remote_name == "list-items"
    assert items.inputs["count"]["nullable"] is True and "default: 2" in items.inputs["count"]["description"]
    assert items.inputs["tags"] == {
        "type": "array",
        "nullable": True,
        "items": {"type": "string"},
        "description": "Tags",
    }
    assert items.output_type == "array"
    weather = demo_tools["weather"]
    assert weather.output_type == "object"
    assert '"temperature": float' in weather.description
    prompt = weather.to_code_prompt()
    assert prompt.startswith("def weather(city: string) -> dict:")


def test_calls_return_python_values(demo_tools):
    assert demo_tools["add"](a=2, b=3) == 5
    assert demo_tools["greet"](name="Ada") == "Hello, Ada!"
    assert demo_tools["greet"](name="Ada", punctuation="?") == "Hello, Ada?"
    assert demo_tools["weather"](city="Paris") == {
        "city": "Paris",
        "temperature": 21.5,
        "conditions": "sunny",
    }
    assert demo_tools["list_items"](prefix="p", tags=["x"]) == ["p0", "p1", "x"]
    assert demo_tools["list_items"]("q", None, None) == ["q0", "q1"]  # positional; None means "default"
    image = demo_tools["red_pixel"]()
    assert image.size == (1, 1) and image.getpixel((0, 0))[:3] == (255, 0, 0)


def test_server_tool_error_is_a_clear_tool_error(demo_tools):
    with pytest.raises(MCPToolError, match=r"'fail' failed: .*the disk is full"):
        demo_tools["fail"](message="the disk is full")


def test_arguments_are_checked_before_anything_is_sent(demo_tools):
    with pytest.raises(AgentToolCallError, match=r"argument 'a' should be integer"):
        demo_tools["add"](a="two", b=3, sanitize_inputs_outputs=True)
    with pytest.raises(AgentToolCallError, match=r"missing argument 'b'"):
        demo_tools["add"](a=1, sanitize_inputs_outputs=True)
    with pytest.raises(AgentToolCallError, match=r"no argument 'c'"):
        demo_tools["add"](a=1, b=2, c=3, sanitize_inputs_outputs=True)


def test_text_only_when_structured_output_is_off(demo_params):
    with MCPClient(demo_params, structured_output=False) as tools:
        by_name = {tool.name: tool for tool in tools}
        assert by_name["add"].output_type == "object"  # smolagents' type for every such MCP tool
        assert by_name["add"](a=2, b=3) == "5"
        assert '"temperature": 21.5' in by_name["weather"](city="Paris")


def test_a_slow_tool_times_out_without_hanging(demo_params):
    client = MCPClient(demo_params, timeout=0.5)
    try:
        sleep = {tool.name: tool for tool in client.get_tools()}["sleep"]
        start = time.monotonic()
        with pytest.raises(MCPToolError, match=r"did not answer within 0.5 s"):
            sleep(seconds=2)
        assert time.monotonic() - start < 3
    finally:
        client.disconnect()


def test_a_server_that_dies_mid_call_fails_fast_and_clearly(demo_params):
    client = MCPClient(demo_params, timeout=30)
    try:
        tools = {tool.name: tool for tool in client.get_tools()}
        start = time.monotonic()
        with pytest.raises(MCPToolError, match=r"closed the connection while running the tool 'die'"):
            tools["die"]()
        with pytest.raises(MCPToolError, match=r"no longer connected.*'add' cannot run.*reconnect"):
            tools["add"](a=1, b=2)
        assert time.monotonic() - start < 5
        client.reconnect()  # starts the stdio server again; the tools handed out work again
        assert tools["add"](a=1, b=2) == 3
    finally:
        client.disconnect()


def test_an_http_server_that_goes_away_fails_fast(demo_params):
    port = free_port()
    process = subprocess.Popen([sys.executable, str(DEMO), "http", str(port)], stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        client = MCPClient(f"http://127.0.0.1:{port}/mcp", timeout=30)
        add = {tool.name: tool for tool in client.get_tools()}["add"]
        assert add(a=1, b=2) == 3
        process.kill()
        process.wait()
        start = time.monotonic()
        for _ in range(2):
            with pytest.raises(MCPToolError, match=r"MCP server 'http://127.0.0.1:\d+/mcp'"):
                add(a=1, b=2)
        assert time.monotonic() - start < 5
        client.disconnect()
    finally:
        process.kill()


def test_concurrent_calls_share_one_session(demo_tools):
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda i: demo_tools["add"](a=i, b=i), range(16)))
    assert results == [2 * i for i in range(16)]


def test_streamable_http_and_several_servers_at_once(demo_params, demo_http_url):
    with MCPClient([demo_params, {"url": demo_http_url, "transport": "streamable-http"}]) as tools:
        names = [tool.name for tool in tools]
        assert names.count("add") == 2  # each server's tool keeps its name, as in smolagents
        over_http = [tool for tool in tools if tool.server_label == demo_http_url]
        by_name = {tool.name: tool for tool in over_http}
        assert by_name["add"](a=20, b=22) == 42
        assert by_name["weather"](city="Oslo")["city"] == "Oslo"
        with pytest.raises(ValueError, match="unique name"):  # smolagents' refusal, where it refuses
            CodeAgent(tools=tools, model=ScriptedModel([]))
        for tool in over_http:  # the fix the error asks for
            tool.name = f"{tool.name}_over_http"
        agent = CodeAgent(tools=tools, model=ScriptedModel([]))
        assert {"add", "add_over_http"} <= set(agent.tools)


def test_a_client_stays_open_across_uses_until_disconnected(demo_http_url):
    client = MCPClient(demo_http_url)
    add = {tool.name: tool for tool in client.get_tools()}["add"]
    assert [add(a=i, b=1) for i in range(3)] == [1, 2, 3]
    client.disconnect()
    client.disconnect()  # twice is fine
    assert not client.is_connected
    with pytest.raises(MCPToolError, match="disconnected"):
        add(a=1, b=1)
    with pytest.raises(MCPConnectionError):
        client.get_tools()


def test_tool_collection_from_mcp_needs_trust_and_closes(demo_params):
    with pytest.raises(ValueError, match=r"runs code you did not write.*trust_remote_code=True"):
        with ToolCollection.from_mcp(demo_params):
            pass
    with ToolCollection.from_mcp(demo_params, trust_remote_code=True) as collection:
        assert isinstance(collection, ToolCollection)
        add = next(tool for tool in collection if tool.name == "add")
        assert add(a=1, b=1) == 2
    with pytest.raises(MCPToolError, match="disconnected"):
        add(a=1, b=1)
    assert tool_collection_from_mcp is not None


def test_unreachable_servers_fail_with_a_clear_error():
    start = time.monotonic()
    with pytest.raises(
        MCPConnectionError, match=r"Could not connect to the MCP server 'http://127.0.0.1:\d+/mcp'"
    ):
        MCPClient({"url": f"http://127.0.0.1:{free_port()}/mcp"}, connect_timeout=5)
    bad = StdioServerParameters(command=sys.executable, args=["-c", "import sys; sys.exit(1)"])
    with pytest.raises(MCPConnectionError, match=r"MCP server"):
        MCPClient(bad, connect_timeout=5)
    assert time.monotonic() - start < 12


def test_unknown_parameters_are_refused():
    with pytest.raises(MCPConnectionError, match="must be a StdioServerParameters, a URL, or a dict"):
        MCPClient(42, connect_timeout=5)
    with pytest.raises(MCPConnectionError, match="Unknown MCP transport"):
        MCPClient({"url": "http://127.0.0.1:1/mcp", "transport": "carrier-pigeon"}, connect_timeout=5)


def test_demo_server_file_exists():
    assert DEMO.is_file()
