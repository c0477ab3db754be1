"""Reach into an optional plugin package only when a feature needs it, with an error that says what to install."""

from __future__ import annotations

import importlib
from typing import Any

from smol_core.errors import SmolError


class MissingPluginError(SmolError, ImportError):
    """A feature needs a plugin package that is not installed."""


def plugin_attribute(module: str, attribute: str, distribution: str) -> Any:
    try:
        loaded = importlib.import_module(module)
    except ImportError as error:
        if error.name and not module.startswith(error.name) and error.name != module:
            raise  # the plugin is installed but one of its own dependencies is missing
        from smol_core.install_advice import install_hint

        raise MissingPluginError(
            f"This needs the plugin package {distribution!r}: {install_hint(distribution)}"
        ) from error
    return getattr(loaded, attribute)
