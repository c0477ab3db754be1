"""Registers the Hub tool sources with smol. Imports nothing heavy: gradio_client and huggingface_hub
load only when a tool is built.

    smolagent "..." --tools "space:http://127.0.0.1:7860/"      # a Gradio app or Space as a tool
    SMOL_TRUST_REMOTE_CODE=1 smolagent "..." --tools "hub:alice/my-tool"
"""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ToolSpec, hookimpl, lazy


@hookimpl
def smol_tools() -> Iterable[ToolSpec]:
    return [
        ToolSpec(
            "space",
            lazy("smol_tool_hub.cli:space_tool"),
            "space:<space id or URL>: the first endpoint of a Gradio app (a Hugging Face Space) as a tool.",
            parametrized=True,
        ),
        ToolSpec(
            "hub",
            lazy("smol_tool_hub.cli:hub_tool"),
            "hub:<repo id>: a tool shared on the Hub (runs its code: needs SMOL_TRUST_REMOTE_CODE=1).",
            parametrized=True,
        ),
    ]
