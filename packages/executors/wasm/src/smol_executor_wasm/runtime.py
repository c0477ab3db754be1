"""Finding Node.js and the local Pyodide copy, and the command line that starts them.

Why a local npm copy: the executor must never reach a CDN at run time (and our machines cannot).
`npm install pyodide@PYODIDE_VERSION` into a cache folder gives the interpreter, its standard library
and its lock file; `python -m smol_executor_wasm install` (or scripts/setup.d/30-wasm.sh) does it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from smol_core.plugin_api import ExecutorUnavailableError

PYODIDE_VERSION = "314.0.7"
"""The Pyodide release the host script is written and tested against (CPython 3.14)."""

MIN_NODE_MAJOR = 18
HOST_SCRIPT = Path(__file__).with_name("host.mjs")
BOOT_SCRIPT = Path(__file__).with_name("boot.py")


def default_pyodide_home() -> Path:
    """Where `install` puts Pyodide: `$SMOL_PYODIDE_DIR`, else `~/.cache/smol/pyodide`."""
    env = os.environ.get("SMOL_PYODIDE_DIR")
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "smol" / "pyodide"


def _install_hint(home: Path) -> str:
    return (
        f"install it with `python -m smol_executor_wasm install` (runs `npm install --prefix {home} "
        f"pyodide@{PYODIDE_VERSION}`), or point SMOL_PYODIDE_DIR or pyodide_dir= at a folder holding it"
    )


def find_pyodide(pyodide_dir: str | os.PathLike[str] | None = None) -> Path:
    """The folder holding `pyodide.mjs`: given, or under the default home (an npm prefix or the package)."""
    home = Path(pyodide_dir).expanduser() if pyodide_dir else default_pyodide_home()
    for candidate in (home, home / "node_modules" / "pyodide"):
        if (candidate / "pyodide.mjs").is_file() and (candidate / "pyodide.asm.wasm").is_file():
            return candidate.resolve()
    raise ExecutorUnavailableError(f"Pyodide was not found in {home}; {_install_hint(home)}.")


@functools.lru_cache(maxsize=8)
def node_major(node: str) -> int:
    out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
    try:
        return int(out.strip().lstrip("v").split(".")[0])
    except ValueError:
        return 0


def find_node(node_path: str | None = None) -> str:
    """The Node.js binary (>= 18): given, `$SMOL_NODE`, or `node` on PATH."""
    name = node_path or os.environ.get("SMOL_NODE") or "node"
    node = shutil.which(name)
    if node is None:
        raise ExecutorUnavailableError(
            f"Node.js ({name!r}) was not found: the WebAssembly executor runs Pyodide under Node.js "
            f">= {MIN_NODE_MAJOR}. Install it (Debian: `apt-get install nodejs npm`) or pass node_path=."
        )
    major = node_major(node)
    if major < MIN_NODE_MAJOR:
        raise ExecutorUnavailableError(
            f"Node.js at {node} is version {major}; the WebAssembly executor needs >= {MIN_NODE_MAJOR}."
        )
    return node


@functools.lru_cache(maxsize=1)
def namespace_prefix() -> tuple[str, ...]:
    """`unshare` arguments that start Node with no network interfaces and in a PID namespace of its
    own (it can see or signal no process of the host), or () where the OS refuses both forms."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return ()
    tail = ("--net", "--pid", "--fork", "--kill-child")
    for args in ((unshare, *tail), (unshare, "--user", "--map-root-user", *tail)):
        try:
            if subprocess.run([*args, "true"], capture_output=True, timeout=10).returncode == 0:
                return args
        except (OSError, subprocess.TimeoutExpired):
            continue
    return ()


@dataclass(frozen=True)
class Runtime:
    """Everything needed to start one WebAssembly worker."""

    node: str
    pyodide: Path
    isolate_network: bool = True

    def command(self) -> list[str]:
        major = node_major(self.node)
        permission = "--permission" if major >= 22 else "--experimental-permission"
        argv = [
            self.node,
            permission,
            f"--allow-fs-read={self.pyodide}{os.sep}*",
            f"--allow-fs-read={HOST_SCRIPT}",
            "--no-warnings",
            str(HOST_SCRIPT),
            str(self.pyodide),
        ]
        prefix = namespace_prefix() if self.isolate_network else ()
        return [*prefix, *argv]

    def protections(self) -> list[tuple[str, bool, str]]:
        net = bool(self.isolate_network and namespace_prefix())
        return [
            ("webassembly", True, "CPython compiled to WebAssembly (Pyodide): no system calls of its own"),
            ("in-memory file system", True, "Pyodide's MEMFS; the host's files are never mounted"),
            (
                "node permission model",
                True,
                "Node may read only Pyodide and its host script; no writes, child processes or workers",
            ),
            (
                "network namespace",
                net,
                "Node runs with no network interfaces"
                if net
                else "unshare unavailable: Node keeps the network",
            ),
        ]


def locate(
    node_path: str | None = None,
    pyodide_dir: str | os.PathLike[str] | None = None,
    isolate_network: bool = True,
) -> Runtime:
    return Runtime(find_node(node_path), find_pyodide(pyodide_dir), isolate_network)


def install(home: Path | None = None, version: str = PYODIDE_VERSION) -> Path:
    """`npm install pyodide@version` into `home` (idempotent); returns the Pyodide folder."""
    home = home or default_pyodide_home()
    try:
        return find_pyodide(home) if _installed_version(home) == version else _npm_install(home, version)
    except ExecutorUnavailableError:
        return _npm_install(home, version)


def _installed_version(home: Path) -> str | None:
    import json

    manifest = home / "node_modules" / "pyodide" / "package.json"
    try:
        return str(json.loads(manifest.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def _npm_install(home: Path, version: str) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise ExecutorUnavailableError(
            "npm was not found; install Node.js and npm (Debian: apt-get install npm)"
        )
    home.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(home),
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            f"pyodide@{version}",
        ],
        check=True,
    )
    return find_pyodide(home)
