"""Test doubles that are public API: scripted models for fast, deterministic agent tests."""

from smol_core.testing.models import FunctionModel, ScriptedModel

__all__ = ["FunctionModel", "ScriptedModel"]
