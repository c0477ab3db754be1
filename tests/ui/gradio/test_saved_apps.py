"""The `app.py` files that `agent.save()` and `tool.save()` write run as they are.

Each is started with `python app.py` in its folder, as a user would, and its page is used through
the browser. The saved agent rebuilds its own model from `agent.json`: an OpenAI-compatible model,
whose requests go (through the OpenAI SDK's own `OPENAI_BASE_URL`, since a saved file never picks
an endpoint) to a stand-in server on 127.0.0.1 that answers with a scripted code action.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from app_process import serve_process, stop
from browser_kit import screenshot, wait_for
from saved_tools import Reverser, shout
from ui_openai_standin import Standin

from smol_core import CodeAgent

pytest.importorskip("gradio")
pytest.importorskip("selenium")
pytest.importorskip("smol_model_openai")

from selenium.webdriver.common.by import By  # noqa: E402
from smol_model_openai import OpenAIServerModel  # noqa: E402

pytestmark = pytest.mark.slow


def test_a_saved_agents_app_serves_a_page_that_runs_the_agent(
    browser: Any, tmp_path: Path, openai_standin: Standin
) -> None:
    model = OpenAIServerModel(model_id="standin", api_base=openai_standin.url, api_key="test-key")
    with CodeAgent(tools=[shout], model=model, name="shouter", verbosity_level=-1) as agent:
        agent.save(str(tmp_path / "saved"))
    folder = tmp_path / "saved"
    assert "GradioUI(agent).launch()" in (folder / "app.py").read_text(encoding="utf-8")
    process, url = serve_process(
        [sys.executable, "app.py"],
        folder,
        {"OPENAI_BASE_URL": openai_standin.url, "OPENAI_API_KEY": "test-key"},
    )
    try:
        browser.get(url)
        box = wait_for(
            lambda: browser.find_element(By.CSS_SELECTOR, "#smol-task textarea"), what="the task box"
        )
        assert "Shouter" in browser.title
        box.send_keys("Shout that the saved app works")
        browser.find_element(By.ID, "smol-run").click()
        wait_for(
            lambda: (
                "Final answer: SAVED APP WORKS"
                in " ".join(browser.find_element(By.ID, "smol-chat").text.split())
            ),
            what="the answer from the saved agent",
        )
        screenshot(browser, "gradio_saved_agent_app")
    finally:
        stop(process)


def test_a_saved_tools_app_serves_a_form_for_the_tool(browser: Any, tmp_path: Path) -> None:
    Reverser().save(str(tmp_path / "tool"))
    process, url = serve_process([sys.executable, "app.py"], tmp_path / "tool", {})
    try:
        browser.get(url)
        box = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "textarea"), what="the input box")
        box.send_keys("stressed")
        wait_for(
            lambda: browser.find_element(By.XPATH, "//button[normalize-space()='Submit']"), what="Submit"
        ).click()
        wait_for(
            lambda: any(
                element.get_attribute("value") == "desserts"
                for element in browser.find_elements(By.CSS_SELECTOR, "textarea")
            ),
            what="the tool's output",
        )
    finally:
        stop(process)
