"""Tools for the saved-app tests, in a module of their own (a saved tool holds only its own source)."""

from __future__ import annotations

from smol_core import Tool, tool


@tool
def shout(text: str) -> str:
    """Says the text louder.

    Args:
        text: What to say.
    """
    return text.upper()


class Reverser(Tool):
    name = "reverser"
    description = "Reverses a text."
    inputs = {"text": {"type": "string", "description": "The text to reverse."}}
    output_type = "string"

    def forward(self, text: str) -> str:
        return text[::-1]
