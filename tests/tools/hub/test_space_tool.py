"""`Tool.from_space` through the real `gradio_client`, against a real Gradio app on 127.0.0.1."""

from __future__ import annotations

import pytest
from smol_tool_hub import SpaceError, SpaceTool, tool_from_space

from smol_core import CodeAgent, Tool, ToolCallingAgent
from smol_core.errors import AgentToolCallError, AgentToolExecutionError
from smol_core.testing import ScriptedModel

# gradio's own queue code trips pandas deprecations: not ours to fix
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*no_silent_downcasting:Warning", "ignore:The copy keyword is deprecated:Warning"
)


def test_inputs_and_output_come_from_the_app(gradio_app: str) -> None:
    greeter = Tool.from_space(gradio_app, name="greeter", description="Greets people.", api_name="/greet")
    assert isinstance(greeter, SpaceTool)
    assert greeter.inputs == {
        "name": {"type": "string", "description": "Name of the person to greet"},
        "times": {"type": "integer", "description": "How many times", "nullable": True},
    }
    assert greeter.output_type == "string"
    assert greeter("Ada", 2) == "Hello Ada! Hello Ada!"
    assert greeter(name="Bob") == "Hello Bob!"
    assert "def greeter(name: string, times: integer) -> string:" in greeter.to_code_prompt()


def test_api_name_without_slash_and_default_endpoint(gradio_app: str) -> None:
    assert tool_from_space(gradio_app, "g", "", api_name="greet").api_name == "/greet"
    with pytest.warns(UserWarning, match="/greet"):
        first = tool_from_space(gradio_app, "g", "")
    assert first.api_name == "/greet"
    assert first.description.startswith("Calls /greet")


def test_unknown_endpoint_lists_the_real_ones(gradio_app: str) -> None:
    with pytest.raises(SpaceError, match=r"no endpoint '/nope'.*/greet.*/square"):
        tool_from_space(gradio_app, "x", "", api_name="/nope")


def test_image_output_and_input(gradio_app: str) -> None:
    square = tool_from_space(gradio_app, "square", "Draws a red square.", api_name="/square")
    assert square.output_type == "image"
    assert square.inputs["size"]["type"] == "number"
    assert "between 1 and 64" in square.inputs["size"]["description"]
    image = square(5)
    red, green, blue = image.convert("RGB").getpixel((2, 2))
    assert image.size == (5, 5) and red > 200 and green < 30 and blue < 30  # red, through a lossy webp

    measure = tool_from_space(gradio_app, "measure", "Measures a picture.", api_name="/measure")
    assert measure.inputs["picture"]["type"] == "image"
    assert measure(image) == "5x5"  # a PIL image goes up as a file


def test_several_outputs_become_a_list(gradio_app: str) -> None:
    pair = tool_from_space(gradio_app, "pair", "Reverses and counts.", api_name="/pair")
    assert pair.output_type == "array"
    assert pair("abc") == ["cba", 3]


def test_app_errors_become_tool_errors(gradio_app: str) -> None:
    broken = tool_from_space(gradio_app, "broken", "Fails.", api_name="/broken")
    with pytest.raises(AgentToolExecutionError, match="out of memory"):
        broken("x")


def test_unreachable_space_is_a_clear_error() -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(SpaceError, match="Cannot reach the Space"):
        tool_from_space(f"http://127.0.0.1:{port}/", "x", "")


def test_agents_call_the_space(gradio_app: str) -> None:
    greeter = tool_from_space(gradio_app, "greeter", "Greets people.", api_name="/greet")
    code = CodeAgent(
        tools=[greeter],
        model=ScriptedModel(['```python\nfinal_answer(greeter("Ada", times=2))\n```']),
        verbosity_level=-1,
    )
    assert code.run("Greet Ada twice") == "Hello Ada! Hello Ada!"
    code.cleanup()

    calling = ToolCallingAgent(
        tools=[greeter],
        model=ScriptedModel(
            [
                {"name": "greeter", "arguments": {"name": 3}},
                {"name": "greeter", "arguments": {"name": "Ada"}},
                {"name": "final_answer", "arguments": {"answer": "done"}},
            ]
        ),
        verbosity_level=-1,
    )
    assert calling.run("Greet Ada") == "done"
    observations = [
        getattr(s, "observations", None) or str(getattr(s, "error", "")) for s in calling.memory.steps
    ]
    assert any("argument 'name' should be string" in o for o in observations)
    assert any("Hello Ada!" in o for o in observations)


def test_argument_check_names_the_argument(gradio_app: str) -> None:
    greeter = tool_from_space(gradio_app, "greeter", "Greets.", api_name="/greet")
    with pytest.raises(AgentToolCallError, match="missing argument 'name'"):
        greeter(times=2, sanitize_inputs_outputs=True)


def test_space_and_hub_by_name_for_the_command_line(gradio_app: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from smol_tool_hub import RemoteCodeNotTrustedError

    from smol_core.agents.settings import tools_from_names as build_tools

    with pytest.warns(UserWarning, match="first endpoint"):
        (tool,) = build_tools([f"space:{gradio_app}"])
    assert tool.name.startswith("space_127_0_0_1_") and tool.api_name == "/greet"
    monkeypatch.delenv("SMOL_TRUST_REMOTE_CODE", raising=False)
    with pytest.raises(RemoteCodeNotTrustedError):
        build_tools(["hub:alice/tool"])
