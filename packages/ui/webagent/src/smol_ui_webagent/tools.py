"""smolagents' browser tools, as smol tools bound to one `BrowserSession`.

smolagents imports helium into the agent's Python (`from helium import *`) and lets the code
drive the browser directly. smol's executor runs the agent's code in a sandboxed worker that holds
no browser and cannot reach the network, so the browser stays in the host and the agent drives it
through these tools, the narrow proxies the sandbox already allows: go to a URL, click, type, find
text on the page, scroll, go back, close pop-ups. Errors come back as the step's observation, in
words the model can act on (an element that is not there, a page that did not load in time).

Where the browser may go is smol's address policy: `go_to` refuses a URL before the browser opens
it (`file:`, loopback, private and metadata addresses, unless the user allowed them), every request
the browser makes passes the session's policy proxy, and after each action that can change the page
(`go_to`, `click`, `go_back`) the page the browser landed on is checked again: a refused one is
replaced by a blank page before its screenshot is taken.
"""

from __future__ import annotations

from typing import Any

from smol_core.plugin_api import AgentToolExecutionError, Tool, refusal_message, url_refusal
from smol_ui_webagent.browser import BrowserSession

MAX_TEXT = 300  # characters of an element's text shown back to the model


def _escape_xpath_string(text: str) -> str:
    """`text` as an XPath string literal, whatever quotes it holds."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ', "\'", '.join(f"'{part}'" for part in text.split("'")) + ")"


# Pages the browser shows on its own, that fetch nothing: its blank page, its start page, its error page.
_NEUTRAL_PAGES = ("about:blank", "data:,", "chrome-error://chromewebdata/")


def landing_refusal(session: BrowserSession, url: str) -> str | None:
    """Why the page at `url` may not stay open under the session's policy, or None."""
    if url in _NEUTRAL_PAGES:
        return None
    return url_refusal(url, session.policy)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


class BrowserTool(Tool):
    """A tool that acts on the session's browser."""

    def __init__(self, session: BrowserSession) -> None:
        super().__init__()
        self.session = session

    @property
    def driver(self) -> Any:
        if self.session.driver is None:
            raise AgentToolExecutionError("The browser is not running.")
        return self.session.driver

    def helium(self) -> Any:
        """helium, pointed at this session's browser (helium keeps one global driver; a process
        may hold more than one session)."""
        import helium

        helium.set_driver(self.driver)
        helium.Config.implicit_wait_secs = self.session.find_timeout
        return helium

    def check_landing(self) -> None:
        """Leave a page the policy refuses (a redirect, a link, history): blank it and say why."""
        url = str(self.driver.current_url)
        reason = landing_refusal(self.session, url)
        if reason is not None:
            self.driver.get("about:blank")
            raise AgentToolExecutionError(refusal_message(url, reason, "open", "the browser tools"))


class GoTo(BrowserTool):
    name = "go_to"
    description = "Opens a web page in the browser. After each step you see a screenshot of the page."
    inputs = {"url": {"type": "string", "description": "The page's URL, e.g. 'https://example.com/shop'."}}
    output_type = "string"

    def forward(self, url: str) -> str:
        from selenium.common.exceptions import TimeoutException, WebDriverException

        url = url.strip()
        if "://" not in url and not url.lower().startswith(("about:", "data:", "javascript:", "file:")):
            url = "https://" + url
        reason = url_refusal(url, self.session.policy)
        if reason is not None:
            raise AgentToolExecutionError(refusal_message(url, reason, "open", "the browser tools"))
        try:
            self.helium().go_to(url)
        except TimeoutException:
            raise AgentToolExecutionError(
                f"The page {url} did not load within {self.session.page_load_timeout:g} seconds. "
                "Try again later, or try another page."
            ) from None
        except WebDriverException as error:
            raise AgentToolExecutionError(
                f"Could not open {url}: {_short(error.msg or str(error))}"
            ) from None
        self.check_landing()
        return f"Opened {self.driver.current_url} (title: {_short(self.driver.title)!r})."


class Click(BrowserTool):
    name = "click"
    description = (
        "Clicks the button, link or other element that shows this text, as a user would. "
        "Use the text exactly as it appears on the page."
    )
    inputs = {"text": {"type": "string", "description": "The visible text of the element to click."}}
    output_type = "string"

    def forward(self, text: str) -> str:
        from selenium.common.exceptions import WebDriverException

        try:
            self.helium().click(text)
        except LookupError:
            raise AgentToolExecutionError(
                f"Nothing with the text {text!r} to click on this page. Look at the screenshot, or use "
                "search_item_ctrl_f to find the text."
            ) from None
        except WebDriverException as error:
            raise AgentToolExecutionError(
                f"Could not click {text!r}: {_short(error.msg or str(error))} (a pop-up in the way? try close_popups)"
            ) from None
        self.check_landing()
        return f"Clicked {text!r}; now on {self.driver.current_url}."


class Write(BrowserTool):
    name = "write"
    description = "Types text into a text field (a search box, a form field), optionally named by its label."
    inputs = {
        "text": {"type": "string", "description": "What to type."},
        "into": {"type": "string", "description": "The field's label or placeholder.", "nullable": True},
    }
    output_type = "string"

    def forward(self, text: str, into: str | None = None) -> str:
        helium = self.helium()
        try:
            helium.write(text, into=into) if into else helium.write(text)
        except LookupError:
            raise AgentToolExecutionError(f"No text field {into!r} on this page.") from None
        return f"Typed {text!r}" + (f" into {into!r}." if into else ".")


class SearchItemCtrlF(BrowserTool):
    name = "search_item_ctrl_f"
    description = (
        "Searches for text on the current page, as Ctrl + F does, scrolls to the nth match and "
        "returns the text of the element that holds it."
    )
    inputs = {
        "text": {"type": "string", "description": "The text to search for."},
        "nth_result": {
            "type": "integer",
            "description": "Which match to go to (1 for the first).",
            "nullable": True,
        },
    }
    output_type = "string"

    def forward(self, text: str, nth_result: int | None = 1) -> str:
        from selenium.webdriver.common.by import By

        nth = nth_result or 1
        elements = self.driver.find_elements(By.XPATH, f"//*[contains(text(), {_escape_xpath_string(text)})]")
        if nth > len(elements) or nth < 1:
            raise AgentToolExecutionError(
                f"Match {nth} of {text!r} not found (only {len(elements)} matches)."
            )
        element = elements[nth - 1]
        self.driver.execute_script("arguments[0].scrollIntoView(true);", element)
        return f"Found {len(elements)} matches for {text!r}. Focused on match {nth}: {_short(element.text)!r}"


class GoBack(BrowserTool):
    name = "go_back"
    description = "Goes back to the previous page."
    inputs: dict[str, Any] = {}
    output_type = "string"

    def forward(self) -> str:
        self.driver.back()
        self.check_landing()
        return f"Went back to {self.driver.current_url}."


class ClosePopups(BrowserTool):
    name = "close_popups"
    description = (
        "Closes a visible modal or pop-up window by pressing Escape. Use it to dismiss pop-ups; "
        "it does not close cookie banners."
    )
    inputs: dict[str, Any] = {}
    output_type = "string"

    def forward(self) -> str:
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        return "Pressed Escape to close pop-ups."


class Scroll(BrowserTool):
    name = "scroll"
    description = "Scrolls the page down (positive pixels) or up (negative pixels); 1200 is about one screen."
    inputs = {"pixels": {"type": "integer", "description": "How far: positive goes down, negative up."}}
    output_type = "string"

    def forward(self, pixels: int) -> str:
        self.driver.execute_script("window.scrollBy(0, arguments[0]);", int(pixels))
        return f"Scrolled {'down' if pixels >= 0 else 'up'} {abs(int(pixels))} pixels."


TOOL_CLASSES: tuple[type[BrowserTool], ...] = (
    GoTo,
    Click,
    Write,
    SearchItemCtrlF,
    GoBack,
    ClosePopups,
    Scroll,
)


def browser_tools(session: BrowserSession) -> list[Tool]:
    """Every browser tool, bound to `session`."""
    return [cls(session) for cls in TOOL_CLASSES]
