"""Steps and run events as chat messages: pure functions, checked without Gradio or a browser."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from smol_ui_gradio.chat_stream import ChatStream
from smol_ui_gradio.rendering import clean_model_output, format_code, step_messages

from smol_core import CodeAgent
from smol_core.agent_types import AgentAudio
from smol_core.errors import AgentError, AgentExecutionError
from smol_core.memory import ActionStep, FinalAnswerStep, PlanningStep, ToolCall
from smol_core.messages import ChatMessage, ChatMessageStreamDelta, MessageRole, Timing, TokenUsage
from smol_core.testing import ScriptedModel

PIL = pytest.importorskip("PIL.Image")


def texts(messages: list[dict]) -> list[str]:
    return [m["content"] for m in messages if isinstance(m["content"], str)]


def titles(messages: list[dict]) -> list[str]:
    return [m["metadata"]["title"] for m in messages if "title" in m.get("metadata", {})]


def test_an_action_step_shows_thought_code_logs_error_and_a_footnote() -> None:
    step = ActionStep(
        step_number=3,
        timing=Timing(start_time=10.0, end_time=12.5),
        model_output="I add.\n```python\nprint(1 + 1)\n```<end_code>",
        tool_calls=[ToolCall("python_interpreter", "print(1 + 1)", "call_1")],
        observations="Execution logs:\n2",
        error=AgentExecutionError("NameError: x is not defined"),
        token_usage=TokenUsage(1200, 34),
    )
    messages = step_messages(step)
    assert messages[0]["content"] == "**Step 3**"
    assert "<end_code>" not in messages[1]["content"]
    assert titles(messages) == ["🛠️ Used tool python_interpreter", "📝 Execution logs", "💥 Error"]
    code = next(m for m in messages if m["metadata"].get("title", "").startswith("🛠️"))
    assert code["content"] == "```python\nprint(1 + 1)\n```"
    logs = next(m for m in messages if m["metadata"].get("title") == "📝 Execution logs")
    assert logs["content"] == "```text\n2\n```"
    footnote = texts(messages)[-2]
    assert (
        "Input tokens: 1,200" in footnote
        and "Output tokens: 34" in footnote
        and "Duration: 2.50s" in footnote
    )


def test_streamed_steps_skip_the_model_output_already_shown() -> None:
    step = ActionStep(step_number=1, model_output="thinking", timing=Timing(0, 1))
    assert "thinking" not in texts(step_messages(step, skip_model_outputs=True))


def test_a_planning_step_shows_the_plan() -> None:
    reply = ChatMessage(MessageRole.ASSISTANT, "plan")
    step = PlanningStep(
        [], reply, "Here is the plan:\n1. look", timing=Timing(0, 1), token_usage=TokenUsage(5, 6)
    )
    assert "Here is the plan:\n1. look" in texts(step_messages(step))


def test_final_answers_are_text_images_or_audio() -> None:
    assert texts(step_messages(FinalAnswerStep(42))) == ["**Final answer:** 42"]
    image = step_messages(FinalAnswerStep(PIL.new("RGB", (8, 4))))[-1]["content"]
    assert image["mime_type"] == "image/png" and PIL.open(image["path"]).size == (8, 4)
    audio = step_messages(FinalAnswerStep(AgentAudio(np.zeros(160, dtype=np.float32), samplerate=8000)))
    assert audio[-1]["content"]["mime_type"] == "audio/wav"
    assert Path(audio[-1]["content"]["path"]).read_bytes()[:4] == b"RIFF"


def test_an_image_path_from_a_tool_is_re_encoded_never_served_as_is(tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_text("not an image at all", encoding="utf-8")
    step = ActionStep(step_number=1, observations_images=[str(secret)])
    with pytest.raises(ValueError, match="Not a PNG, JPEG or WEBP"):
        step_messages(step)
    real = tmp_path / "real.png"
    PIL.new("RGB", (3, 3)).save(real)
    shown = next(
        m
        for m in step_messages(ActionStep(step_number=1, observations_images=[str(real)]))
        if isinstance(m["content"], dict)
    )
    assert shown["content"]["path"] != str(real)


def test_code_with_backticks_gets_a_longer_fence_and_tags_are_cleaned() -> None:
    assert format_code("x = '```'").startswith("````python\n")
    assert clean_model_output("```python\nx\n```<end_code>") == "```python\nx\n```"


def test_chat_stream_shows_the_live_text_then_replaces_it_with_the_step() -> None:
    stream = ChatStream()
    assert stream.feed(ChatMessageStreamDelta(content="Thought: I ")) is True
    stream.feed(ChatMessageStreamDelta(content="compute"))
    assert stream.messages[-1]["content"] == "Thought: I compute"
    assert stream.messages[-1]["metadata"]["status"] == "pending"
    stream.feed(ToolCall("python_interpreter", "print(2)", "c1"))
    assert titles(stream.messages) == ["🛠️ Running python_interpreter"]
    assert (
        stream.messages[0]["content"] == "Thought: I compute"
    )  # the streamed text stays until the step lands
    stream.feed(ActionStep(step_number=1, model_output="Thought: I compute", timing=Timing(0, 1)))
    assert all(m["metadata"]["status"] == "done" for m in stream.messages)
    stream.feed(FinalAnswerStep("4"))
    assert stream.finished and stream.final_output == "4"


def test_chat_stream_says_why_a_run_ended_early() -> None:
    stream = ChatStream()
    stream.feed(ToolCall("python_interpreter", "slow()", "c1"))
    stream.fail(AgentError("Agent interrupted."))
    assert titles(stream.messages) == ["⏹️ Interrupted"]
    stream = ChatStream()
    stream.fail(RuntimeError("model server down"))
    assert "RuntimeError: model server down" in stream.messages[-1]["content"]


def test_a_real_run_renders_every_step_in_order() -> None:
    model = ScriptedModel(["```python\nx = 2 + 2\nprint(x)\n```", "```python\nfinal_answer(x)\n```"])
    stream = ChatStream()
    with CodeAgent(tools=[], model=model, verbosity_level=-1) as agent:
        for event in agent.run("Add two and two", stream=True):
            stream.feed(event)
    shown = texts(stream.messages)
    assert shown.index("**Step 1**") < shown.index("**Step 2**") < shown.index("**Final answer:** 4")


def test_an_image_a_tool_returns_mid_run_is_shown_in_its_step() -> None:
    from smol_core import ToolCallingAgent, tool

    @tool
    def draw() -> object:
        """Draws a small square."""
        return PIL.new("RGB", (9, 9), (0, 0, 255))

    model = ScriptedModel(
        [{"name": "draw", "arguments": {}}, {"name": "final_answer", "arguments": {"answer": "drawn"}}]
    )
    stream = ChatStream()
    for event in ToolCallingAgent(tools=[draw], model=model, verbosity_level=-1).run("draw", stream=True):
        stream.feed(event)
    files = [m["content"] for m in stream.messages if isinstance(m["content"], dict)]
    assert len(files) == 1 and PIL.open(files[0]["path"]).size == (9, 9)
    first_step_end = [m["content"] for m in stream.messages].index("-----")
    assert (
        stream.messages.index(next(m for m in stream.messages if isinstance(m["content"], dict)))
        < first_step_end
    )


def test_with_stream_outputs_the_text_grows_live_and_is_not_repeated() -> None:
    reply = "Thought: I will answer now.\n```python\nfinal_answer('streamed')\n```"
    stream = ChatStream(skip_model_outputs=True)
    live: list[str] = []
    with CodeAgent(tools=[], model=ScriptedModel([reply]), stream_outputs=True, verbosity_level=-1) as agent:
        for event in agent.run("answer", stream=True):
            if stream.feed(event) and stream.messages[-1]["metadata"].get("status") == "pending":
                live.append(stream.messages[-1]["content"])
    growing = [text for text in live if text.startswith("Thought")]
    assert len(growing) > 2 and growing == sorted(growing, key=len)  # each update longer than the last
    shown = texts(stream.messages)
    assert not any("I will answer now" in text for text in shown)  # the finished step skips it
    assert shown[-1] == "**Final answer:**\nstreamed\n"
