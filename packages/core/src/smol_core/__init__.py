"""smol: agents that think in code."""

__version__ = "0.1.0"
