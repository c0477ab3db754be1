"""smol tools for the server-mode tests (`smol mcp serve --tools tests/tools/mcp/smol_tools.py`)."""

from __future__ import annotations

from smol_core.tools.decorator import tool
from smol_core.tools.tool import Tool


@tool
def greet(name: str, excited: bool = False) -> str:
    """Greets someone.

    Args:
        name: Who to greet.
        excited: Whether to end with an exclamation mark.
    """
    print("printed by a tool: must not reach the protocol stream")
    return f"Hello, {name}" + ("!" if excited else ".")


@tool
def multiply(a: int, b: int) -> int:
    """Multiplies two integers.

    Args:
        a: The first factor.
        b: The second factor.
    """
    return a * b


@tool
def city_facts(city: str) -> dict:
    """Facts about a city.

    Args:
        city: The city's name.
    """
    return {"city": city, "population": 2_100_000, "tags": ["capital"]}


@tool
async def shout(text: str) -> str:
    """Upper-cases a text (an async tool).

    Args:
        text: What to shout.
    """
    return text.upper()


class Divide(Tool):
    name = "divide"
    description = "Divides a by b."
    inputs = {
        "a": {"type": "number", "description": "Dividend."},
        "b": {"type": "number", "description": "Divisor."},
    }
    output_type = "number"

    def forward(self, a: float, b: float) -> float:
        return a / b


divide = Divide()
