"""`smol ui`: the page for the agent that smolagent's flags describe, started as a user would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from app_process import serve_process, stop
from browser_kit import free_port, wait_for
from ui_openai_standin import Standin

pytest.importorskip("gradio")
pytest.importorskip("smol_model_openai")

pytestmark = pytest.mark.slow

SMOL = [sys.executable, "-m", "smol_core.cli.smol"]


def test_smol_ui_serves_the_agent_the_flags_describe(
    browser: Any, tmp_path: Path, openai_standin: Standin
) -> None:
    from selenium.webdriver.common.by import By

    openai_standin.reply = "Thought: answer.\n```python\nfinal_answer('hello from smol ui')\n```"
    port = free_port()
    argv = [
        *SMOL,
        "ui",
        "--model-type",
        "OpenAIServerModel",  # smolagents' class name works, as for smolagent
        "--model-id",
        "standin",
        "--api-base",
        openai_standin.url,
        "--max-steps",
        "2",
        "--port",
        str(port),
        "--file-upload-folder",
        str(tmp_path / "uploads"),
        "--allowed-file-types",
        ".txt, png",
    ]
    process, url = serve_process(argv, tmp_path, {"OPENAI_API_KEY": "test-key"}, port=port)
    try:
        browser.get(url)
        box = wait_for(
            lambda: browser.find_element(By.CSS_SELECTOR, "#smol-task textarea"), what="the task box"
        )
        assert browser.find_elements(By.CSS_SELECTOR, "#smol-upload")  # --file-upload-folder turns uploads on
        chooser = browser.find_element(By.CSS_SELECTOR, "#smol-upload input[type=file]")
        assert chooser.get_attribute("accept") == ".png, .txt"  # --allowed-file-types
        box.send_keys("Say hello")
        browser.find_element(By.ID, "smol-run").click()
        wait_for(
            lambda: (
                "Final answer: hello from smol ui"
                in " ".join(browser.find_element(By.ID, "smol-chat").text.split())
            ),
            what="the answer",
        )
    finally:
        stop(process)


def test_smol_ui_shows_the_models_text_while_it_writes(
    browser: Any, tmp_path: Path, openai_standin: Standin
) -> None:
    """The model streams (OpenAI's chunks), so the page shows its first words before the step ends."""
    from selenium.webdriver.common.by import By

    openai_standin.reply = (
        "Thought: I will greet you, word by word.\n```python\nfinal_answer('streamed by smol ui')\n```"
    )
    openai_standin.hold_after = "greet you,"
    port = free_port()
    argv = [*SMOL, "ui", "--model-type", "OpenAIServerModel", "--model-id", "standin"]
    argv += ["--api-base", openai_standin.url, "--max-steps", "2", "--port", str(port)]
    process, url = serve_process(argv, tmp_path, {"OPENAI_API_KEY": "test-key"}, port=port)

    def chat() -> str:
        return " ".join(browser.find_element(By.ID, "smol-chat").text.split())

    try:
        browser.get(url)
        box = wait_for(
            lambda: browser.find_element(By.CSS_SELECTOR, "#smol-task textarea"), what="the task box"
        )
        box.send_keys("Say hello")
        browser.find_element(By.ID, "smol-run").click()
        wait_for(lambda: "I will greet you," in chat(), what="the model's first words")
        text = chat()
        assert "word by word" not in text  # the rest is not written yet: the text is streaming
        assert "Final answer" not in text
        openai_standin.release.set()
        wait_for(lambda: "Final answer: streamed by smol ui" in chat(), what="the answer")
    finally:
        openai_standin.release.set()
        stop(process)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--max-steps", "0"], "--max-steps must be at least 1"),
        (["--model-type", "no-such-model"], "no-such-model"),
        (["--executor", "no-such-executor"], "no-such-executor"),
        (["--file-upload-folder", "up", "--allowed-file-types", ".exe"], ".exe cannot be checked from"),
    ],
)
def test_smol_ui_refuses_bad_flags_with_one_clear_line(
    flags: list[str], message: str, tmp_path: Path
) -> None:
    done = subprocess.run(
        [*SMOL, "ui", *flags], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
