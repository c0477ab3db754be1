"""`--tools langchain:package.module:name`: a LangChain tool (or tool class, or list of tools) by import path."""

from __future__ import annotations

import importlib
from typing import Any

from smol_core.plugin_api import SmolError


def langchain_tools(target: str) -> list[Any]:
    from smol_tool_langchain.langchain_to_smol import tool_from_langchain

    module_name, _, attribute = target.rpartition(":")
    if not module_name or not attribute:
        raise SmolError(f"langchain: needs 'package.module:name', got {target!r}.")
    try:
        value = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise SmolError(f"langchain: cannot import {target!r}: {error}") from error
    if isinstance(value, type):
        value = value()
    items = value if isinstance(value, list | tuple) else [value]
    return [tool_from_langchain(item) for item in items]
