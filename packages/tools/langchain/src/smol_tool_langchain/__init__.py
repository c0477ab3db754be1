"""smol-tool-langchain: `Tool.from_langchain` (LangChain -> smol) and `to_langchain` (smol -> LangChain).

Names load lazily: plugin discovery imports this package, and must not import langchain-core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {
    "tool_from_langchain": "smol_tool_langchain.langchain_to_smol",
    "LangChainTool": "smol_tool_langchain.langchain_to_smol",
    "to_langchain": "smol_tool_langchain.smol_to_langchain",
}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_tool_langchain.langchain_to_smol import LangChainTool, tool_from_langchain
    from smol_tool_langchain.smol_to_langchain import to_langchain
