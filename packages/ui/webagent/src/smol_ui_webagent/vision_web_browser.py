"""smolagents' `vision_web_browser` module, for code written against it.

What it offers, under smolagents' names: `_escape_xpath_string` (text as an XPath literal, so a
searched string can never become XPath), the tools `search_item_ctrl_f`, `go_back`, `close_popups`
(and `go_to`, `click`) acting on the module's `driver`, `save_screenshot`, `helium_instructions`,
`initialize_driver`, `initialize_agent` and `run_webagent(prompt, model_type, model_id, ...)`,
which browses with a model loaded by `load_model`, as in smolagents.

Where smolagents lets the agent's code drive the browser (`from helium import *` in its executor),
smol's sandbox holds no browser and cannot start one (it may not open sockets), so helium's names
there only say that no browser window exists. The browser stays in the host, under smol's address
policy (a proxy for every request, `file:` and non-public addresses refused, each page landed on
re-checked), and the model navigates with the tools: `go_to` and `click` here take the place of
smolagents' in-sandbox helium calls, and of its web search tool.
"""

from __future__ import annotations

from typing import Any

import helium
from selenium.webdriver.common.by import By

from smol_core.plugin_api import (
    ActionStep,
    AgentToolExecutionError,
    CodeAgent,
    load_model,
    refusal_message,
    tool,
)
from smol_ui_webagent.browser import BrowserSession
from smol_ui_webagent.screenshots import ScreenshotCallback
from smol_ui_webagent.tools import Click, GoTo, _escape_xpath_string, landing_refusal

__all__ = [
    "CodeAgent",
    "_escape_xpath_string",
    "click",
    "close_popups",
    "driver",
    "go_back",
    "go_to",
    "helium",
    "helium_instructions",
    "initialize_agent",
    "initialize_driver",
    "load_model",
    "run_webagent",
    "save_screenshot",
    "search_item_ctrl_f",
]

# The browser the module's tools act on: set by `run_webagent` (or by the caller, a Selenium driver).
driver: Any = None
_session: BrowserSession | None = None

helium_instructions = """
You control a web browser through tools; after each step you see a screenshot of the page and its URL.
Go to a page with go_to("https://example.com"); click what you see by its text with click("Top products").
Find text on the page with search_item_ctrl_f("Price"), go back with go_back().
When a pop-up is in the way, call close_popups(). Stop after each click to look at the new screenshot.
Only public web pages can be opened. Never try to log in.
Proceed in several steps rather than trying to solve the task in one shot.
When you have your answer, return it with final_answer("YOUR_ANSWER_HERE").
"""


def _current_session() -> BrowserSession:
    """The session the tools act on: `run_webagent`'s, or one around a driver the caller set."""
    if _session is not None and _session.driver is driver:
        return _session
    session = BrowserSession()
    session.driver = driver
    return session


def _leave_refused_page() -> None:
    """A page the address policy refuses (reached by a redirect, a link, history) is blanked."""
    url = str(driver.current_url)
    reason = landing_refusal(_current_session(), url)
    if reason is not None:
        driver.get("about:blank")
        raise AgentToolExecutionError(refusal_message(url, reason, "open", "the browser tools"))


@tool
def go_to(url: str) -> str:
    """
    Opens a web page in the browser (public internet addresses only).
    Args:
        url: The page's URL, e.g. 'https://example.com/shop'
    """
    return str(GoTo(_current_session())(url=url))


@tool
def click(text: str) -> str:
    """
    Clicks the button, link or other element that shows this text, as a user would.
    Args:
        text: The visible text of the element to click
    """
    return str(Click(_current_session())(text=text))


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
    _leave_refused_page()


@tool
def close_popups() -> str:
    """
    Closes any visible modal or pop-up on the page. Use this to dismiss pop-up windows! This does not work on cookie consent banners.
    """
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    return "Pressed Escape to close pop-ups."


def save_screenshot(memory_step: ActionStep, agent: Any = None) -> None:
    """The step callback: a screenshot of the page (never of a refused one) and its URL on the step."""
    if driver is not None:
        ScreenshotCallback(_current_session())(memory_step, agent)


def initialize_driver() -> Any:
    """Start Chromium under the address policy, through helium as smolagents does; returns the driver."""
    global _session
    session = BrowserSession(
        headless=False, launcher=lambda options: helium.start_chrome(headless=False, options=options)
    )
    _session = session.start()
    return session.driver


def initialize_agent(model: Any) -> CodeAgent:
    """smolagents' agent: four browser tools, the screenshot callback, 20 steps."""
    return CodeAgent(
        tools=[go_to, click, search_item_ctrl_f, close_popups],
        model=model,
        additional_authorized_imports=["helium"],
        step_callbacks=[save_screenshot],
        max_steps=20,
        verbosity_level=2,
    )


def run_webagent(
    prompt: str,
    model_type: str,
    model_id: str,
    provider: str | None = None,
    api_base: str | None = None,
    api_key: str | None = None,
) -> Any:
    """Load the model, start the browser, run the agent on `prompt` (with `helium_instructions`) and
    return its answer; the browser is closed afterwards."""
    global driver, _session
    model = load_model(model_type, model_id, provider=provider, api_base=api_base, api_key=api_key)
    driver = initialize_driver()
    try:
        agent = initialize_agent(model)
        agent.python_executor("from helium import *")
        return agent.run(prompt + helium_instructions)
    finally:
        session, _session, driver = _session, None, None
        if session is not None:
            session.close()
