"""`--tools browser`: the browser tools on a headless Chromium that lives as long as the process."""

from __future__ import annotations

import atexit
from typing import Any

from smol_ui_webagent.browser import BrowserSession
from smol_ui_webagent.tools import browser_tools


def browser_tools_for_cli() -> list[Any]:
    """The tools, on a browser started now and closed at exit (no screenshots: use `webagent` for those)."""
    session = BrowserSession().start()
    atexit.register(session.close)
    return browser_tools(session)
