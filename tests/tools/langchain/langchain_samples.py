"""Real langchain-core tools for the tests (importable as `langchain_samples:...` by the CLI test)."""

from __future__ import annotations

from langchain_core.tools import BaseTool, StructuredTool, ToolException, tool
from pydantic import BaseModel, Field


@tool
def multiply(a: int, b: int = 2) -> int:
    """Multiplies two integers.

    Args:
        a: The first factor.
        b: The second factor.
    """
    return a * b


class ForecastArgs(BaseModel):
    city: str = Field(description="The city to forecast.")
    days: int | None = Field(default=None, description="How many days ahead.")
    units: list[str] = Field(default_factory=list, description="Units to report.")


def _forecast(city: str, days: int | None = None, units: list[str] | None = None) -> dict:
    return {"city": city, "days": days or 1, "units": units or ["C"]}


forecast = StructuredTool.from_function(
    func=_forecast, name="forecast", description="Weather forecast for a city.", args_schema=ForecastArgs
)


class ReverseTool(BaseTool):
    name: str = "reverse-text"
    description: str = "Reverses a text."

    def _run(self, text: str) -> str:
        if not text:
            raise ToolException("nothing to reverse")
        return text[::-1]


reverse = ReverseTool()


@tool
async def shout(text: str) -> str:
    """Upper-cases a text (async only).

    Args:
        text: What to shout.
    """
    return text.upper()
