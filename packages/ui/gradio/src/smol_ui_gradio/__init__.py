"""smol-ui-gradio: a chat page for smol agents, and a form for single tools, served by Gradio.

Names are imported on first use (PEP 562): the plugin module that registers `smol ui` lives in this
package, and listing plugins must not load Gradio.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {
    "GradioUI": "smol_ui_gradio.ui",
    "stream_to_gradio": "smol_ui_gradio.streaming",
    "pull_messages_from_step": "smol_ui_gradio.streaming",
    "launch_gradio_demo": "smol_ui_gradio.tool_demo",
    "create_tool_demo": "smol_ui_gradio.tool_demo",
    "ChatStream": "smol_ui_gradio.chat_stream",
    "UploadPolicy": "smol_ui_gradio.uploads",
    "RunRetention": "smol_ui_gradio.run_retention",
}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)


if TYPE_CHECKING:
    from smol_ui_gradio.chat_stream import ChatStream
    from smol_ui_gradio.run_retention import RunRetention
    from smol_ui_gradio.streaming import pull_messages_from_step, stream_to_gradio
    from smol_ui_gradio.tool_demo import create_tool_demo, launch_gradio_demo
    from smol_ui_gradio.ui import GradioUI
    from smol_ui_gradio.uploads import UploadPolicy
