"""smol-ui-webagent: an agent that browses the web in a real Chromium (helium + Selenium).

Names are imported on first use (PEP 562), so registering the plugin never loads Selenium.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "BrowserSession": "smol_ui_webagent.browser",
    "BrowserNotFoundError": "smol_ui_webagent.browser",
    "find_browser": "smol_ui_webagent.browser",
    "browser_tools": "smol_ui_webagent.tools",
    "ScreenshotCallback": "smol_ui_webagent.screenshots",
    "make_webagent": "smol_ui_webagent.agent",
    "WEB_INSTRUCTIONS": "smol_ui_webagent.agent",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'smol_ui_webagent' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from smol_ui_webagent.agent import WEB_INSTRUCTIONS, make_webagent
    from smol_ui_webagent.browser import BrowserNotFoundError, BrowserSession, find_browser
    from smol_ui_webagent.screenshots import ScreenshotCallback
    from smol_ui_webagent.tools import browser_tools
