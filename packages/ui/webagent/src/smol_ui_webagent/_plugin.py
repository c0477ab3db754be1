"""Registers the `browser` tool family (`smolagent --tools browser`). Imports nothing heavy."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ToolSpec, hookimpl, lazy


@hookimpl
def smol_tools() -> Iterable[ToolSpec]:
    return [
        ToolSpec(
            "browser",
            lazy("smol_ui_webagent.registry:browser_tools_for_cli"),
            "Drive a headless Chromium: go_to, click, write, search_item_ctrl_f, scroll, go_back, close_popups.",
        )
    ]
