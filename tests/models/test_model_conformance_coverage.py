"""Every model plugin's tests run the model conformance kit (smol_core.testing.model_conformance).

Why: the kit is the one statement of what a smol `Model` owes an agent; a plugin whose tests do not
subclass it could drift from it unseen. Read from the sources, so that this holds in every
environment, the heavy plugins' (torch, mlx) included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = sorted(
    path.name for path in (ROOT / "packages" / "models").iterdir() if (path / "pyproject.toml").exists()
)


def test_the_model_plugins_are_found() -> None:
    assert {"llamacpp", "openai", "bedrock", "litellm", "hf", "transformers", "mlx"} <= set(PLUGINS)


@pytest.mark.parametrize("plugin", PLUGINS)
def test_each_model_plugin_has_a_conformance_suite(plugin: str) -> None:
    path = ROOT / "tests" / "models" / plugin / f"test_{plugin}_conformance.py"
    assert path.exists(), f"{path.relative_to(ROOT)} is missing: subclass ModelConformance there"
    tree = ast.parse(path.read_text())
    imported = any(
        isinstance(node, ast.ImportFrom)
        and node.module in ("smol_core.testing.model_conformance", "smol_core.testing")
        and any(alias.name == "ModelConformance" for alias in node.names)
        for node in ast.walk(tree)
    )
    suites = [
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and node.name.startswith("Test")
        and any(isinstance(base, ast.Name) and base.id == "ModelConformance" for base in node.bases)
    ]
    assert imported and suites, f"{path.relative_to(ROOT)} has no Test* class subclassing ModelConformance"
