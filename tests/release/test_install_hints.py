"""Every missing-plugin hint prints a command that works where it is printed: run here, in a fresh
environment installed editable from this checkout and in one installed from a wheelhouse, and in
this checkout's hatch environments. The hints said `pip install smol-transport-redis`, which fails
(the packages are not on PyPI)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smol_core import install_advice

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("uv") is None, reason="uv makes the fresh environments")


def _run(command: list[str] | str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "HATCH_"))}
    return subprocess.run(  # type: ignore[call-overload,no-any-return]
        command,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        shell=isinstance(command, str),
        **kwargs,
    )


def _venv(folder: Path) -> Path:
    done = _run(["uv", "venv", "--python", sys.executable, str(folder)])
    assert done.returncode == 0, done.stderr
    return folder / "bin"


def _hinted_command(stderr: str) -> str:
    """The command the one-line error tells the user to run."""
    found = re.search(r"install it: `([^`]+)`", stderr)
    assert found, stderr
    return found.group(1)


def _transport_hint(bin_dir: Path) -> str:
    """What `smolagent` says when asked for a Redis team without the plugin."""
    done = _run([str(bin_dir / "smolagent"), "x", "--num-agents", "2", "--transport", "redis"])
    assert done.returncode == 2 and "smol-transport-redis" in done.stderr, done.stderr
    assert done.stderr.count("\n") <= 3, done.stderr  # a usage line and the one error line
    return _hinted_command(done.stderr.splitlines()[-1])


def _has_redis_plugin(bin_dir: Path) -> bool:
    done = _run([str(bin_dir / "smol"), "plugins"])
    assert done.returncode == 0, done.stderr
    return "smol-transport-redis" in done.stdout


def test_the_hint_in_an_editable_install_of_this_checkout_installs_the_plugin(tmp_path: Path) -> None:
    bin_dir = _venv(tmp_path / "env")
    done = _run(
        ["uv", "pip", "install", "--python", str(bin_dir / "python"), "-e", str(ROOT / "packages/core")]
    )
    assert done.returncode == 0, done.stderr
    assert not _has_redis_plugin(bin_dir)
    command = _transport_hint(bin_dir)
    assert str(ROOT / "packages/transports/redis") in command and str(bin_dir / "python") in command
    done = _run(command)
    assert done.returncode == 0, done.stderr
    assert _has_redis_plugin(bin_dir)
    # an option that needs a missing plugin is a usage error, before anything runs
    done = _run([str(bin_dir / "smolagent"), "x", "--trace-file", str(tmp_path / "t.jsonl")])
    assert done.returncode == 2 and "smol-telemetry-otel" in done.stderr and "install it: `" in done.stderr
    assert not (tmp_path / "t.jsonl").exists()
    for command_name in ("ui", "trace"):
        done = _run([str(bin_dir / "smol"), command_name])
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "install it: `" in done.stderr


def test_the_hint_in_a_wheelhouse_install_installs_the_plugin_from_the_same_wheelhouse(
    tmp_path: Path,
) -> None:
    wheelhouse = tmp_path / "dist"
    for package in ("packages/core", "packages/transports/redis"):
        done = _run(["uv", "build", "--wheel", "--out-dir", str(wheelhouse), str(ROOT / package)])
        assert done.returncode == 0, done.stderr
    bin_dir = _venv(tmp_path / "env")
    (core,) = wheelhouse.glob("smol_core-*.whl")
    # pip installed it, as the README says, and so recorded where the wheel came from
    done = _run(["uv", "pip", "install", "--python", str(bin_dir / "python"), "pip"])
    assert done.returncode == 0, done.stderr
    done = _run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(core)])
    assert done.returncode == 0, done.stderr
    command = _transport_hint(bin_dir)
    assert f"--find-links {wheelhouse}" in command and "smol-transport-redis" in command
    done = _run(command)
    assert done.returncode == 0, done.stderr
    assert _has_redis_plugin(bin_dir)


def test_in_this_checkout_the_hint_names_the_package_folder_and_a_hatch_environment_that_has_it() -> None:
    hint = install_advice.install_hint("smol-transport-ray")
    assert str(ROOT / "packages/transports/ray") in hint
    assert "hatch run plugin-ray:" in hint  # the environment of hatch.toml that installs it
    command = shlex.split(install_advice.install_command("smol-transport-ray"))
    assert command[0] == sys.executable or command[:4] == ["uv", "pip", "install", "--python"]


def test_smol_names_the_package_of_a_command_that_is_not_installed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from smol_core.cli import smol
    from smol_core.plugins.specs import KNOWN_PROVIDERS

    for command, provider in KNOWN_PROVIDERS["commands"].items():
        if shutil.which("smol") and _plugin_installed(provider):
            continue
        assert smol.main([command]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and provider in err and "install it: " in err, err


def _plugin_installed(distribution: str) -> bool:
    import importlib.metadata

    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True
