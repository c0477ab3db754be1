"""The web-browsing agent: a `CodeAgent` with the browser tools and a screenshot after each step."""

from __future__ import annotations

from typing import Any

from smol_core.plugin_api import CodeAgent
from smol_ui_webagent.browser import BrowserSession
from smol_ui_webagent.screenshots import ScreenshotCallback
from smol_ui_webagent.tools import browser_tools

WEB_INSTRUCTIONS = """You control a web browser through tools. After each step you receive a screenshot of the page and its URL.
Go to a page with go_to("https://example.com"), click what you see by its text with click("Top products"),
type into a field with write("shoes", into="Search"), find text on the page with search_item_ctrl_f("Price"),
which also returns the text around it, scroll with scroll(1200), and go back with go_back().
Stop after each click to look at the new screenshot. When a pop-up is in the way, call close_popups().
Never try to log in. When you have the answer, call final_answer with it."""


def make_webagent(
    model: Any,
    session: BrowserSession,
    tools: list[Any] | None = None,
    max_steps: int = 20,
    **agent_kwargs: Any,
) -> CodeAgent:
    """A CodeAgent that browses with `session`: the browser tools (plus `tools`), the screenshot
    callback, and instructions on how to use them."""
    callbacks = [*agent_kwargs.pop("step_callbacks", []), ScreenshotCallback(session)]
    instructions = agent_kwargs.pop("instructions", None)
    return CodeAgent(
        tools=[*browser_tools(session), *(tools or [])],
        model=model,
        step_callbacks=callbacks,
        max_steps=max_steps,
        instructions=WEB_INSTRUCTIONS + (f"\n{instructions}" if instructions else ""),
        **agent_kwargs,
    )
