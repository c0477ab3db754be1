"""The seed system's `vision_web_browser` module, for code written against it.

What it offers, under the seed's names: `_escape_xpath_string` (text as an XPath literal, so a
searched string can never become XPath), the `search_item_ctrl_f`, `go_back` and `close_popups`
tools acting on the module's `driver`, `helium_instructions`, and `run_webagent(prompt, model_type,
model_id, ...)`, which browses with a model loaded by `load_model`.

One deliberate difference: the seed authorizes `helium` in the agent's sandbox and runs
`from helium import *` there, so the model's code drives the browser itself. Code that holds the
browser can open `file:///` pages or services on loopback, or start a browser of its own, and read
them back through the page: the sandbox's file and network walls would not hold. So here the
browser stays in the host, under smol's address policy, and the agent drives it through smol's
browser tools (`go_to`, `click`, `write`, `search_item_ctrl_f`, `go_back`, `close_popups`,
`scroll`), which `helium_instructions` describe. `run_webagent` is `webagent "task"` as a function.
"""

from __future__ import annotations

from typing import Any

import helium
from selenium.webdriver.common.by import By

from smol_core.plugin_api import CodeAgent, load_model, tool
from smol_ui_webagent.agent import WEB_INSTRUCTIONS
from smol_ui_webagent.browser import BrowserSession
from smol_ui_webagent.screenshots import ScreenshotCallback
from smol_ui_webagent.tools import _escape_xpath_string, browser_tools

__all__ = [
    "CodeAgent",
    "_escape_xpath_string",
    "close_popups",
    "driver",
    "go_back",
    "helium",
    "helium_instructions",
    "load_model",
    "run_webagent",
    "search_item_ctrl_f",
]

# The browser the module-level tools act on: set by `run_webagent`, or by the caller (a Selenium driver).
driver: Any = None

helium_instructions = "\n" + WEB_INSTRUCTIONS + "\n"


@tool
def search_item_ctrl_f(text: str, nth_result: int = 1) -> str:
    """
    Searches for text on the current page via Ctrl + F and jumps to the nth occurrence.
    Args:
        text: The text to search for
        nth_result: Which occurrence to jump to (default: 1)
    """
    elements = driver.find_elements(By.XPATH, f"//*[contains(text(), {_escape_xpath_string(text)})]")
    if nth_result > len(elements) or nth_result < 1:
        raise Exception(f"Match n°{nth_result} not found (only {len(elements)} matches found)")
    element = elements[nth_result - 1]
    driver.execute_script("arguments[0].scrollIntoView(true);", element)
    return f"Found {len(elements)} matches for '{text}'.Focused on element {nth_result} of {len(elements)}"


@tool
def go_back() -> None:
    """Goes back to previous page."""
    driver.back()


@tool
def close_popups() -> str:
    """
    Closes any visible modal or pop-up on the page. Use this to dismiss pop-up windows! This does not work on cookie consent banners.
    """
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    return "Pressed Escape to close pop-ups."


def run_webagent(
    prompt: str,
    model_type: str,
    model_id: str,
    provider: str | None = None,
    api_base: str | None = None,
    api_key: str | None = None,
) -> Any:
    """Load the model, start a browser (headless, under the address policy), run the agent on
    `prompt` and return its answer; the browser is closed afterwards."""
    global driver
    model = load_model(model_type, model_id, provider=provider, api_base=api_base, api_key=api_key)
    with BrowserSession() as session:
        driver = session.driver
        try:
            agent = CodeAgent(
                tools=browser_tools(session),
                model=model,
                step_callbacks=[ScreenshotCallback(session)],
                max_steps=20,
                verbosity_level=2,
            )
            return agent.run(prompt + helium_instructions)
        finally:
            driver = None
            helium.set_driver(None)
