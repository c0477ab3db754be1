"""smol-tool-hub: tools from Gradio Spaces, and tools and agents shared through the Hugging Face Hub.

The core calls these by name (`Tool.from_space`, `Tool.from_hub`, `tool.push_to_hub`,
`ToolCollection.from_hub`, `agent.push_to_hub`, `Agent.from_hub`); they can also be used directly.
Names are imported when first read: plugin discovery imports this package and pays nothing more.
"""

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {
    "HubError": "smol_tool_hub.hub",
    "RemoteCodeNotTrustedError": "smol_tool_hub.hub",
    "agent_from_hub": "smol_tool_hub.hub",
    "push_agent_to_hub": "smol_tool_hub.hub",
    "push_tool_to_hub": "smol_tool_hub.hub",
    "tool_collection_from_hub": "smol_tool_hub.hub",
    "tool_from_folder": "smol_tool_hub.hub",
    "tool_from_hub": "smol_tool_hub.hub",
    "SpaceError": "smol_tool_hub.space",
    "SpaceTool": "smol_tool_hub.space",
    "tool_from_space": "smol_tool_hub.space",
}
__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # what mypy and IDEs see: the same names
    from smol_tool_hub.hub import (
        HubError as HubError,
        RemoteCodeNotTrustedError as RemoteCodeNotTrustedError,
        agent_from_hub as agent_from_hub,
        push_agent_to_hub as push_agent_to_hub,
        push_tool_to_hub as push_tool_to_hub,
        tool_collection_from_hub as tool_collection_from_hub,
        tool_from_folder as tool_from_folder,
        tool_from_hub as tool_from_hub,
    )
    from smol_tool_hub.space import (
        SpaceError as SpaceError,
        SpaceTool as SpaceTool,
        tool_from_space as tool_from_space,
    )
