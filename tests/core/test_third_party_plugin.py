"""A plugin written by someone else: its own package, built and pip-installed, then used by name.

Nothing in smol-core knows about it. After `pip install`, `smol plugins` lists it, `load_tools`
and `load_model` find its names, and `smolagent` runs an agent with its model and tool.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PYPROJECT = """
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "smol-greeter"
version = "0.3.0"
dependencies = ["smol-core"]

[project.entry-points.smol]
greeter = "smol_greeter._plugin"

[tool.hatch.build.targets.wheel]
packages = ["src/smol_greeter"]
"""

PLUGIN = """
from smol_core import hookimpl
from smol_core.plugins.specs import ModelSpec, ToolSpec, lazy


@hookimpl
def smol_tools():
    return [ToolSpec("greet", lazy("smol_greeter.tools:make_greet_tool"), "Greets someone.")]


@hookimpl
def smol_models():
    return [ModelSpec("canned", lazy("smol_greeter.model:CannedModel"), "Always writes the same code.")]
"""

TOOLS = '''
from smol_core import tool


def make_greet_tool():
    @tool
    def greet(name: str) -> str:
        """Greets someone by name.

        Args:
            name: Who to greet.
        """
        return f"Hello, {name}!"

    return greet
'''

MODEL = """
from smol_core import ChatMessage, Model


class CannedModel(Model):
    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kwargs):
        return ChatMessage("assistant", "Thought: greet.\\n<code>\\nfinal_answer(greet('Ada'))\\n</code>")
"""


@pytest.fixture(scope="module")
def installed_plugin(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("greeter")
    package = root / "src" / "smol_greeter"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (package / "__init__.py").write_text("")
    (package / "_plugin.py").write_text(textwrap.dedent(PLUGIN))
    (package / "tools.py").write_text(textwrap.dedent(TOOLS))
    (package / "model.py").write_text(textwrap.dedent(MODEL))
    site = root / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(site),
            str(root),
        ],
        check=True,
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    return env


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def test_smol_plugins_lists_it(installed_plugin):
    out = subprocess.run(
        [_bin("smol"), "plugins", "--json"], env=installed_plugin, capture_output=True, text=True
    )
    plugins = {p["name"]: p for p in json.loads(out.stdout)}
    greeter = plugins["greeter"]
    assert greeter["distribution"] == "smol-greeter"
    assert greeter["version"] == "0.3.0"
    assert greeter["registers"] == {"models": ["canned"], "tools": ["greet"]}
    assert greeter["error"] is None


def test_smolagent_runs_with_its_model_and_tool(installed_plugin):
    out = subprocess.run(
        [
            _bin("smolagent"),
            "Greet Ada",
            "--model-type",
            "canned",
            "--tools",
            "greet",
            "--verbosity-level",
            "-1",
        ],
        env=installed_plugin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "Hello, Ada!"


def test_unknown_model_type_is_a_clear_cli_error(installed_plugin):
    out = subprocess.run(
        [_bin("smolagent"), "x", "--model-type", "nope"], env=installed_plugin, capture_output=True, text=True
    )
    assert out.returncode == 2
    assert "No model named 'nope' is installed" in out.stderr
    assert "canned" in out.stderr
