"""A final answer that is an image is shown once, as the file alone, last in the chat (as smolagents
shows it): not also among the images of the step that gave it, nor under a heading of its own."""

from __future__ import annotations

import pytest

PIL = pytest.importorskip("PIL.Image")

from smol_ui_gradio import stream_to_gradio  # noqa: E402

from smol_core import ToolCallingAgent  # noqa: E402
from smol_core.messages import ChatMessage  # noqa: E402
from smol_core.testing import ScriptedModel  # noqa: E402
from smol_core.testing.models import tool_call  # noqa: E402


def test_an_image_answer_is_shown_once_as_the_last_message() -> None:
    reply = ChatMessage(
        role="assistant", content="I answer.", tool_calls=[tool_call("final_answer", {"answer": "image"})]
    )
    agent = ToolCallingAgent(tools=[], model=ScriptedModel([reply]), max_steps=1, verbosity_level=-1)
    image = PIL.new("RGB", (8, 8))
    messages = list(stream_to_gradio(agent, task="Show the image.", additional_args={"image": image}))
    files = [m for m in messages if isinstance(m.content, dict)]
    assert len(files) == 1 and messages[-1] is files[0]
    assert files[0].content["mime_type"] == "image/png"
    assert not any(isinstance(m.content, str) and m.content.startswith("**Final answer:**") for m in messages)
