"""Factories behind `--tools space:<id>` and `--tools hub:<repo>` on the command line.

A flag on the command line cannot carry `trust_remote_code=True`, so `hub:` reads the consent from
`SMOL_TRUST_REMOTE_CODE=1`: code from the Hub never runs because of a tool name alone.
"""

from __future__ import annotations

import os
import re

from smol_core.plugin_api import Tool
from smol_tool_hub.hub import tool_from_hub
from smol_tool_hub.space import tool_from_space


def _tool_name(source: str) -> str:
    """`alice/Image-Gen` -> `image_gen`; `http://127.0.0.1:7860/` -> `space_127_0_0_1_7860`."""
    tail = source.rstrip("/").split("/")[-1] if "://" not in source else source.split("://", 1)[1]
    name = re.sub(r"\W+", "_", tail).strip("_").lower() or "space"
    return name if name[0].isalpha() else f"space_{name}"


def space_tool(space_id: str, name: str | None = None, description: str = "") -> Tool:
    return tool_from_space(space_id, name=name or _tool_name(space_id), description=description)


def hub_tool(repo_id: str) -> Tool:
    trusted = os.environ.get("SMOL_TRUST_REMOTE_CODE", "").lower() in {"1", "true", "yes"}
    return tool_from_hub(repo_id, token=os.environ.get("HF_TOKEN"), trust_remote_code=trusted)
