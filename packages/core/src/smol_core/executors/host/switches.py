"""On/off settings of the worker pools, read from the environment when first asked, not at import.

Why not at import: a team's fork server imports the executors once for all its agents (so that each
agent starts warm), and each agent then sets its own switches (no spare workers in a process with one
agent) after the fork. A value read at import would be the server's, for every agent.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

__all__ = ["EnvSwitch"]


class EnvSwitch:
    """A bool attribute: on unless `variable` is "0" (and `supported()` holds), decided the first
    time it is read on an instance; assigning it (tests, shutdown) decides it for that instance."""

    def __init__(self, variable: str, supported: Callable[[], bool] = lambda: True) -> None:
        self.variable = variable
        self.supported = supported
        self.slot = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}_switch"

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__.get(self.slot)
        if value is None:
            value = self.supported() and os.environ.get(self.variable, "1") != "0"
            instance.__dict__[self.slot] = value
        return value

    def __set__(self, instance: Any, value: bool) -> None:
        instance.__dict__[self.slot] = bool(value)
