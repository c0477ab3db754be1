"""Tools whose source the Hub tests save, push and load back (kept apart so their files import little)."""

import math

from smol_core import Tool, tool


class HypotenuseTool(Tool):
    name = "hypotenuse"
    description = "Length of the hypotenuse of a right triangle."
    inputs = {
        "a": {"type": "number", "description": "One side."},
        "b": {"type": "number", "description": "The other side."},
    }
    output_type = "number"

    def __init__(self, scale: float = 1.0) -> None:
        super().__init__()
        self.scale = scale

    def forward(self, a: float, b: float) -> float:
        return math.hypot(a, b) * self.scale


@tool
def shout(text: str) -> str:
    """Turns text into upper case, with an exclamation mark.

    Args:
        text: What to shout.
    """
    return text.upper() + "!"
