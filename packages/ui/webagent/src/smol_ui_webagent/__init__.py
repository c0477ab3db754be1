"""smol-ui-webagent: an agent that browses the web in a real Chromium (helium + Selenium).

Names are imported on first use (PEP 562), so registering the plugin never loads Selenium.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {
    "BrowserSession": "smol_ui_webagent.browser",
    "BrowserNotFoundError": "smol_ui_webagent.browser",
    "find_browser": "smol_ui_webagent.browser",
    "browser_tools": "smol_ui_webagent.tools",
    "ScreenshotCallback": "smol_ui_webagent.screenshots",
    "make_webagent": "smol_ui_webagent.agent",
    "WEB_INSTRUCTIONS": "smol_ui_webagent.agent",
}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)


if TYPE_CHECKING:
    from smol_ui_webagent.agent import WEB_INSTRUCTIONS, make_webagent
    from smol_ui_webagent.browser import BrowserNotFoundError, BrowserSession, find_browser
    from smol_ui_webagent.screenshots import ScreenshotCallback
    from smol_ui_webagent.tools import browser_tools
