"""A ToolCallingAgent calls a tool through a real llama.cpp server, driven by the openai SDK.

SmolLM2's chat template knows no tools, so the server cannot read tool calls out of its replies;
`tool_calling="json_schema"` holds each reply to a call of one of the tools instead.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("openai")

from smol_model_openai import OpenAIServerModel

from smol_core import ToolCallingAgent
from smol_core.messages import ChatMessage, MessageRole
from smol_core.monitoring import LogLevel

pytestmark = [pytest.mark.llama, pytest.mark.slow]


@pytest.fixture(scope="module")
def model(llama_server: Any) -> OpenAIServerModel:
    return OpenAIServerModel(
        llama_server.model_id,
        api_base=llama_server.base_url,
        tool_calling="json_schema",
        max_tokens=128,
        temperature=0,
    )


def test_without_tools_the_reply_is_plain_text(model: OpenAIServerModel) -> None:
    reply = model.generate([ChatMessage(MessageRole.USER, "Say hello.")])
    assert reply.tool_calls is None and reply.text


def test_tool_calling_agent_calls_a_tool_through_the_server(
    model: OpenAIServerModel, weather_tool: Any, assert_called_weather: Any
) -> None:
    agent = ToolCallingAgent(tools=[weather_tool], model=model, max_steps=2, verbosity_level=LogLevel.OFF)
    agent.run("Is it raining in London?")
    assert_called_weather(agent, "London")


def test_tool_calling_mode_is_checked_and_saved(llama_server: Any) -> None:
    with pytest.raises(ValueError, match="tool_calling must be one of"):
        OpenAIServerModel("m", api_base=llama_server.base_url, tool_calling="xml")
    model = OpenAIServerModel("m", api_base=llama_server.base_url, tool_calling="json_schema")
    assert OpenAIServerModel.from_dict(model.to_dict()).tool_calling == "json_schema"  # type: ignore[attr-defined]
