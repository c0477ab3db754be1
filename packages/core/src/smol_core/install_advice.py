"""What to run to install a smol package, here: the command every missing-plugin hint prints.

Why not `pip install smol-transport-redis`: smol's packages are not on PyPI, so that command fails
wherever it is printed. What works depends on how smol was installed in the Python that runs it:
- from a checkout of smol's repository (editable, as its hatch environments do): the package's
  folder in that checkout, installed editable into this Python (with pip where this Python has it,
  else with uv), or a hatch environment of the checkout that already holds it;
- from a wheelhouse (`bash scripts/release` builds one into `dist/`): the same folder of wheels, as
  smol's own wheel names it (pip records where a wheel file came from), or `PIP_FIND_LINKS`;
- otherwise: pip from the indexes pip is set up with, which says plainly that the package must be
  on one of them.

Each command names this Python by its path, so it installs where smol runs, not into whichever
`pip` comes first on PATH (the system's, or hatch's own).
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import json
import os
import shlex
import shutil
import sys
import tomllib
from pathlib import Path
from urllib.parse import unquote, urlparse

__all__ = ["install_command", "install_hint"]


def install_hint(distribution: str) -> str:
    """``install it: `<command>` `` (with the hatch environment that has it, inside a checkout)."""
    command = install_command(distribution)
    environments = _hatch_environments(distribution)
    if environments:
        return (
            f"install it: `{command}` (or run smol in this checkout's hatch environment that has it: "
            f"`hatch run {environments[0]}:...`)"
        )
    ours = distribution.startswith("smol-")
    if ours and _checkout_folder(distribution) is None and _wheelhouse(distribution) is None:
        return (
            f"install it: `{command}` (from an index that has it: `bash scripts/release` in a smol "
            "checkout builds its wheels)"
        )
    return f"install it: `{command}`"


def install_command(distribution: str) -> str:
    """The command that installs `distribution` into the Python running smol, as smol was installed."""
    folder = _checkout_folder(distribution)
    if folder is not None:
        return _installer(["-e", str(folder)])
    wheelhouse = _wheelhouse(distribution)
    if wheelhouse is not None:
        return _installer(["--find-links", str(wheelhouse), distribution])
    return _installer([distribution])


def _installer(arguments: list[str]) -> str:
    """pip of this Python where it has pip; else uv, told which Python to install into."""
    python = sys.executable
    if importlib.util.find_spec("pip") is not None:
        return shlex.join([python, "-m", "pip", "install", *arguments])
    uv = shutil.which("uv")
    if uv is not None:
        return shlex.join(["uv", "pip", "install", "--python", python, *arguments])
    return (
        shlex.join([python, "-m", "ensurepip"])
        + " && "
        + shlex.join([python, "-m", "pip", "install", *arguments])
    )


# --- a checkout of smol's repository --------------------------------------------------------------
@functools.cache
def checkout() -> Path | None:
    """The root of the smol checkout this smol_core is installed from (editable), if it is one."""
    here = Path(__file__).resolve()
    # <root>/packages/core/src/smol_core/install_advice.py
    root = here.parents[4] if len(here.parents) > 4 else None
    if root is None or not (root / "hatch.toml").is_file() or not (root / "packages" / "core").is_dir():
        return None
    return root


@functools.cache
def _package_folders() -> dict[str, Path]:
    """Each package of the checkout by its distribution name."""
    root = checkout()
    if root is None:
        return {}
    folders: dict[str, Path] = {}
    for project in sorted((root / "packages").glob("**/pyproject.toml")):
        try:
            name = tomllib.loads(project.read_text())["project"]["name"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            continue
        folders[str(name)] = project.parent
    return folders


def _checkout_folder(distribution: str) -> Path | None:
    return _package_folders().get(distribution)


@functools.cache
def _hatch_environments(distribution: str) -> list[str]:
    """The checkout's hatch environments that install `distribution` (smallest first)."""
    root, folder = checkout(), _checkout_folder(distribution)
    if root is None or folder is None:
        return []
    try:
        environments = tomllib.loads((root / "hatch.toml").read_text()).get("envs", {})
    except (OSError, tomllib.TOMLDecodeError):
        return []
    member = folder.relative_to(root).as_posix()
    holding = [
        (len(members), name)
        for name, settings in environments.items()
        if isinstance(settings, dict)
        and member in (members := settings.get("workspace", {}).get("members", []))
    ]
    return [name for _, name in sorted(holding)]


# --- a wheelhouse ---------------------------------------------------------------------------------
def _wheelhouse(distribution: str) -> Path | None:
    """The folder smol's wheels were installed from, where pip recorded it, or a `PIP_FIND_LINKS`
    folder: the first that holds a wheel of `distribution`."""
    recorded = []
    for name in ("smol-core", *sorted(_package_folders())):
        try:
            recorded.append(importlib.metadata.distribution(name).read_text("direct_url.json"))
        except importlib.metadata.PackageNotFoundError:
            continue
    folders = [folder for text in recorded if (folder := _wheel_folder(text)) is not None]
    folders += [Path(link) for link in os.environ.get("PIP_FIND_LINKS", "").split()]
    wheel = distribution.replace("-", "_") + "-*.whl"
    return next((folder for folder in folders if folder.is_dir() and any(folder.glob(wheel))), None)


def _wheel_folder(recorded: str | None) -> Path | None:
    try:
        url = json.loads(recorded or "{}").get("url", "")
    except (ValueError, AttributeError):
        return None
    parsed = urlparse(str(url))
    path = Path(unquote(parsed.path))
    if parsed.scheme == "file" and path.suffix == ".whl" and path.parent.is_dir():
        return path.parent
    return None
