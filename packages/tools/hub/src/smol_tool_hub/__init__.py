"""smol-tool-hub: tools from Gradio Spaces, and tools and agents shared through the Hugging Face Hub.

The core calls these by name (`Tool.from_space`, `Tool.from_hub`, `tool.push_to_hub`,
`ToolCollection.from_hub`, `agent.push_to_hub`, `Agent.from_hub`); they can also be used directly.
"""

from smol_tool_hub.hub import (
    HubError,
    RemoteCodeNotTrustedError,
    agent_from_hub,
    push_agent_to_hub,
    push_tool_to_hub,
    tool_collection_from_hub,
    tool_from_folder,
    tool_from_hub,
)
from smol_tool_hub.space import SpaceError, SpaceTool, tool_from_space

__all__ = [
    "HubError",
    "RemoteCodeNotTrustedError",
    "SpaceError",
    "SpaceTool",
    "agent_from_hub",
    "push_agent_to_hub",
    "push_tool_to_hub",
    "tool_collection_from_hub",
    "tool_from_folder",
    "tool_from_hub",
    "tool_from_space",
]
