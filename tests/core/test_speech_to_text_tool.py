"""`SpeechToTextTool` imports and validates without transformers; its first call says what to install."""

from __future__ import annotations

import importlib.util

import pytest

from smol_core import SpeechToTextTool
from smol_core.plugins.lazy import MissingPluginError
from smol_core.tools.validation import validate_tool_attributes


def test_the_class_validates_and_saves_on_its_own() -> None:
    assert validate_tool_attributes(SpeechToTextTool) is None
    tool = SpeechToTextTool(model="some/checkpoint")
    assert (tool.name, tool.output_type, tool.inputs["audio"]["type"]) == ("transcriber", "string", "audio")
    assert tool.pre_processor == "some/checkpoint"
    assert "class SpeechToTextTool(Tool)" in tool.to_dict()["code"]


@pytest.mark.skipif(importlib.util.find_spec("transformers") is not None, reason="transformers is installed")
def test_first_call_without_transformers_names_the_package_to_install() -> None:
    with pytest.raises(MissingPluginError, match=r"smol-model-transformers brings them: install it: `"):
        SpeechToTextTool()(b"")
