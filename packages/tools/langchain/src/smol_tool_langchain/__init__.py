"""smol-tool-langchain: `Tool.from_langchain` (LangChain -> smol) and `to_langchain` (smol -> LangChain).

Names load lazily: plugin discovery imports this package, and must not import langchain-core.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "tool_from_langchain": "smol_tool_langchain.langchain_to_smol",
    "LangChainTool": "smol_tool_langchain.langchain_to_smol",
    "to_langchain": "smol_tool_langchain.smol_to_langchain",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'smol_tool_langchain' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
