"""The chat page, served by the real Gradio server on 127.0.0.1, driven by headless Chromium.

Scripted models make every run deterministic; a tool that waits on an event holds a run between
two steps, so "the first step shows before the answer" and "Stop" are tested without any timing.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from browser_kit import screenshot, wait_for

from smol_core import CodeAgent, ToolCallingAgent, tool
from smol_core.agent_types import AgentAudio
from smol_core.messages import ChatMessageStreamDelta
from smol_core.models.request import ModelRequest
from smol_core.testing import FunctionModel, ScriptedModel

pytest.importorskip("gradio")
pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from smol_ui_gradio import GradioUI  # noqa: E402

pytestmark = pytest.mark.slow


def code(text: str) -> str:
    return f"Thought: next.\n```python\n{text}\n```"


def open_page(browser: Any, url: str) -> None:
    browser.get(url)
    wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#smol-task textarea"), what="the task box")


def chat_text(browser: Any) -> str:
    """The chat's text, white space collapsed (an answer sits on a line of its own under its heading)."""
    return " ".join(str(browser.find_element(By.ID, "smol-chat").text).split())


def submit(browser: Any, task: str) -> None:
    box = browser.find_element(By.CSS_SELECTOR, "#smol-task textarea")
    box.clear()
    box.send_keys(task)
    browser.find_element(By.ID, "smol-run").click()


def test_a_task_streams_its_steps_then_the_answer(browser: Any, serve: Callable[[GradioUI], str]) -> None:
    release = threading.Event()

    @tool
    def checkpoint() -> str:
        """Waits until the test lets the run go on."""
        release.wait(60)
        return "released"

    model = ScriptedModel(
        [
            code("print('six times seven')\nresult = 6 * 7\nprint(result)"),
            code("checkpoint()"),
            code("final_answer(result)"),
        ]
    )
    agent = CodeAgent(tools=[checkpoint], model=model, verbosity_level=-1)
    with agent:
        open_page(browser, serve(GradioUI(agent)))
        submit(browser, "What is 6 times 7?")
        # step 1 is on the page while step 2 is still running: the steps stream
        wait_for(lambda: "Step 1" in chat_text(browser), what="step 1 on the page")
        text = chat_text(browser)
        assert "What is 6 times 7?" in text
        assert "Running python_interpreter" in text
        assert "Final answer" not in text
        release.set()
        wait_for(lambda: "Final answer: 42" in chat_text(browser), what="the final answer")
        text = chat_text(browser)
        for expected in ("Step 1", "Step 2", "Step 3", "Used tool python_interpreter", "Execution logs"):
            assert expected in text
        assert re.search(r"Input tokens: [\d,]+ \| Output tokens: [\d,]+ \| Duration: [\d.]+s", text)
        shot = screenshot(browser, "gradio_chat_answer")
        assert shot.stat().st_size > 0


class HeldStreamModel(ScriptedModel):
    """Streams its first reply in parts, each when the test sets the part's gate; later replies at once."""

    def __init__(self, parts: list[str], gates: list[threading.Event], later: list[str]) -> None:
        super().__init__(["".join(parts), *later])
        self.parts, self.gates = parts, gates

    def request_stream(self, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        if self.position > 0:
            yield from super().request_stream(request)
            return
        reply = self.request(request)  # the first reply, recorded as any call is
        for part, gate in zip(self.parts, self.gates, strict=True):
            gate.wait(60)
            yield ChatMessageStreamDelta(content=part)
        yield ChatMessageStreamDelta(token_usage=reply.token_usage)


def test_a_step_in_progress_says_what_it_does_and_streams_the_models_text(
    browser: Any, serve: Callable[[GradioUI], str]
) -> None:
    speak, go_on, release = threading.Event(), threading.Event(), threading.Event()

    @tool
    def checkpoint() -> str:
        """Waits until the test lets the run go on."""
        release.wait(60)
        return "released"

    parts = ["Thought: I will count the sheep", " one by one.\n```python\ncheckpoint()\n```"]
    model = HeldStreamModel(parts, [speak, go_on], [code("final_answer('counted')")])
    agent = CodeAgent(tools=[checkpoint], model=model, stream_outputs=True, verbosity_level=-1)
    try:
        with agent:
            open_page(browser, serve(GradioUI(agent)))
            submit(browser, "Count the sheep")
            wait_for(lambda: "Step 1 — waiting for the model…" in chat_text(browser), what="the wait")
            speak.set()
            wait_for(lambda: "I will count the sheep" in chat_text(browser), what="the first words")
            text = chat_text(browser)
            assert "Step 1 — the model is writing…" in text
            assert "one by one" not in text  # the rest is not written yet: this is the text streaming
            go_on.set()
            wait_for(lambda: "Step 1 — running code…" in chat_text(browser), what="the code running")
            text = chat_text(browser)
            assert "one by one" in text and "Running python_interpreter" in text
            screenshot(browser, "gradio_step_in_progress")
            release.set()
            wait_for(lambda: "Final answer: counted" in chat_text(browser), what="the final answer")
            text = chat_text(browser)
            assert "Used tool python_interpreter" in text and "Step 1 | Input tokens" in text
            for gone in ("waiting for the model", "the model is writing", "running code"):
                assert gone not in text  # the finished steps replaced the line
    finally:
        for gate in (speak, go_on, release):
            gate.set()


def test_an_uploaded_file_reaches_the_agent_and_a_bad_one_is_refused(
    browser: Any, serve: Callable[[GradioUI], str], tmp_path: Path
) -> None:
    def answer_with_the_files(messages: list[Any], **_: Any) -> str:
        task = next(m.text for m in reversed(messages) if "New task" in m.text)
        files = re.findall(r"'([^']+)'", task.split("provided with these files:")[-1])
        names = [Path(f).name for f in files]
        return code(f"final_answer('files: ' + {' '.join(names)!r})")

    agent = CodeAgent(tools=[], model=FunctionModel(answer_with_the_files), verbosity_level=-1)
    uploads = tmp_path / "uploads"
    notes = tmp_path / "notes.txt"
    notes.write_text("the meeting is at noon", encoding="utf-8")
    program = tmp_path / "tool.exe"
    program.write_bytes(b"MZ\x90\x00")
    with agent:
        open_page(browser, serve(GradioUI(agent, file_upload_folder=uploads)))
        file_input = browser.find_element(By.CSS_SELECTOR, "#smol-upload input[type=file]")
        assert file_input.get_attribute("accept") == ".docx, .pdf, .txt"  # the file chooser offers these
        file_input.send_keys(str(program))  # a script can still send another type: Gradio refuses it
        wait_for(lambda: "Invalid file type" in browser.page_source, what="the refusal")
        assert not list(uploads.rglob("*.exe"))

        browser.find_element(By.CSS_SELECTOR, "#smol-upload input[type=file]").send_keys(str(notes))
        wait_for(
            lambda: "Uploaded notes.txt" in browser.find_element(By.ID, "smol-status").text, what="the upload"
        )
        saved = [path for path in uploads.rglob("*") if path.is_file()]
        assert len(saved) == 1 and saved[0].read_text(encoding="utf-8") == "the meeting is at noon"
        submit(browser, "What is in my file?")
        wait_for(
            lambda: "Final answer: files: notes.txt" in chat_text(browser), what="the answer naming the file"
        )
        screenshot(browser, "gradio_upload")


def test_a_follow_up_sees_the_earlier_task_until_reset(
    browser: Any, serve: Callable[[GradioUI], str]
) -> None:
    model = ScriptedModel([code("final_answer('first')"), code("final_answer('second')")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    with agent:
        ui = GradioUI(agent)
        open_page(browser, serve(ui))
        submit(browser, "Say first")
        wait_for(lambda: "Final answer: first" in chat_text(browser), what="the first answer")
        submit(browser, "Now say second")
        wait_for(lambda: "Final answer: second" in chat_text(browser), what="the second answer")
        text = chat_text(browser)
        assert text.index("Say first") < text.index("Final answer: first") < text.index("Now say second")
        assert "Say first" in " ".join(m.text for m in model.calls[1]["messages"])  # memory was kept
        (session,) = [ui.sessions[key] for key in ui.sessions.keys()]
        assert (
            session.agent.memory.steps[0].task == "Say first"
        )  # the session's agent, not the configured one
        browser.find_element(By.ID, "smol-reset").click()
        wait_for(lambda: "Final answer" not in chat_text(browser), what="an empty chat")
        assert len(ui.sessions) == 0  # Reset ended the session: the next task starts a fresh agent
        assert agent.memory.steps == []


def test_stop_interrupts_the_run_before_its_next_step(browser: Any, serve: Callable[[GradioUI], str]) -> None:
    release = threading.Event()

    @tool
    def slow_work() -> str:
        """Works until the test lets it finish."""
        release.wait(60)
        return "done"

    model = ScriptedModel([code("slow_work()"), code("final_answer('never')")])
    agent = CodeAgent(tools=[slow_work], model=model, verbosity_level=-1)
    with agent:
        ui = GradioUI(agent)
        open_page(browser, serve(ui))
        submit(browser, "Work, then answer")
        wait_for(lambda: "Running python_interpreter" in chat_text(browser), what="the running step")
        (session,) = [ui.sessions[key] for key in ui.sessions.keys()]
        browser.find_element(By.ID, "smol-stop").click()
        wait_for(lambda: session.agent.interrupt_switch, what="the interrupt")
        release.set()
        wait_for(lambda: "Interrupted" in chat_text(browser), what="the interruption")
        assert "never" not in chat_text(browser)
        assert model.position == 1  # the second step never asked the model


def test_images_and_audio_in_answers_are_shown(browser: Any, serve: Callable[[GradioUI], str]) -> None:
    @tool
    def draw() -> object:
        """Draws a red rectangle."""
        from PIL import Image

        return Image.new("RGB", (120, 80), (200, 30, 30))

    @tool
    def beep() -> object:
        """A short beep."""
        t = np.linspace(0, 0.25, 4000, dtype=np.float32)
        return AgentAudio(0.3 * np.sin(2 * np.pi * 440 * t), samplerate=16000)

    painter = CodeAgent(tools=[draw], model=ScriptedModel([code("final_answer(draw())")]), verbosity_level=-1)
    with painter:
        open_page(browser, serve(GradioUI(painter)))
        submit(browser, "Draw me something")
        image = wait_for(
            lambda: browser.find_element(By.CSS_SELECTOR, "#smol-chat img[src*='.png']"), what="the image"
        )
        wait_for(
            lambda: browser.execute_script("return arguments[0].naturalWidth", image) == 120, what="decoding"
        )
        screenshot(browser, "gradio_image_answer")

    singer = ToolCallingAgent(
        tools=[beep],
        model=ScriptedModel(
            [
                {"name": "beep", "arguments": {}},
                {"name": "final_answer", "arguments": {"answer": "agentaudio_1"}},
            ]
        ),
        verbosity_level=-1,
    )
    open_page(browser, serve(GradioUI(singer)))
    submit(browser, "Beep")
    # Gradio 6 shows a small player of its own (no <audio> element until played) and a download link
    wait_for(
        lambda: browser.find_element(By.CSS_SELECTOR, "#smol-chat [data-testid='waveform-Audio']"),
        what="the audio player",
    )
    link = browser.find_element(By.CSS_SELECTOR, "#smol-chat a[href*='.wav']")
    assert "/gradio_api/file=" in link.get_attribute("href")
