"""The worker as a payload: its stdlib-only sources, and a loader that receives them on stdin.

Why ship the worker at start-up instead of baking it into an image or a sandbox template: the worker
inside a container (or a remote sandbox) is then always the exact code of the host that drives it, so
protocol, guards and error messages never drift between versions, and any image with a `python3`
(3.11+) can run it, including `python:3.12-slim` straight from a registry, with no smol-specific build.

How: the executor starts `python3 -I -c LOADER`; the loader reads one frame from fd 0 (a 4-byte
big-endian length and a JSON object `{module name: [is_package, source]}`), serves those modules
from memory through a meta-path finder, and runs the worker's `main`, which then speaks the ordinary
protocol on the same stdin/stdout. The loader reads exactly the bundle's bytes (no buffered
read-ahead), so the frames that follow reach the worker intact. Nothing is written to disk, so the
container's root file system can stay read-only.
"""

from __future__ import annotations

import functools
import hashlib
import json
import struct
import sys
from pathlib import Path

_WORKER_DIR = Path(__file__).resolve().parents[1] / "worker"
WORKER_PACKAGE = "smol_core.executors.worker"
# The packages above the worker folder: empty in the bundle, so nothing of the host is imported.
_PARENTS = ("smol_core", "smol_core.executors")

WORKER_MODULE = f"{WORKER_PACKAGE}.main"

LOADER = """\
import importlib, importlib.util, json, os, sys
def _read(n):
    parts = []
    while n:
        chunk = os.read(0, n)
        if not chunk:
            raise SystemExit("smol worker loader: stdin closed before the worker bundle arrived")
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)
_files = json.loads(_read(int.from_bytes(_read(4), "big")))
class _BundleFinder:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name in _files:
            return importlib.util.spec_from_loader(name, _BundleFinder, is_package=_files[name][0])
        return None
    @staticmethod
    def create_module(spec):
        return None
    @staticmethod
    def exec_module(module):
        name = module.__name__
        code = compile(_files[name][1], "<smol>/" + name.replace(".", "/") + ".py", "exec")
        exec(code, module.__dict__)
sys.meta_path.insert(0, _BundleFinder)
sys.dont_write_bytecode = True
_worker = importlib.import_module(sys.argv[1])
for _name in _files:
    importlib.import_module(_name)  # everything now, before the sandbox restricts compiling
_worker.main([])
"""
"""The program `python3 -I -c LOADER WORKER_MODULE` runs; see the module docstring."""


@functools.cache
def worker_sources() -> dict[str, tuple[bool, str]]:
    """Module name -> (is_package, source): the worker folder, whole, under its empty parent packages.

    The folder is the line: every module in it ships, and nothing else does (a test keeps the folder
    stdlib-only and self-contained), so no list here can drift from what the worker imports."""
    files: dict[str, tuple[bool, str]] = {name: (True, "") for name in _PARENTS}
    for path in sorted(_WORKER_DIR.glob("*.py")):
        name = WORKER_PACKAGE if path.stem == "__init__" else f"{WORKER_PACKAGE}.{path.stem}"
        files[name] = (path.stem == "__init__", path.read_text("utf-8"))
    return files


@functools.cache
def bundle_frame() -> bytes:
    """What the host writes to the loader's stdin before the first protocol message."""
    body = json.dumps(worker_sources(), separators=(",", ":")).encode("utf-8")
    return struct.pack(">I", len(body)) + body


def bundle_digest() -> str:
    """A short hash of the worker's code: tells which worker a container or log came from."""
    return hashlib.sha256(bundle_frame()).hexdigest()[:12]


def loader_command(python: str = "python3") -> list[str]:
    """The argv that starts a bundled worker under `python` (isolated mode: no user site, no env paths)."""
    return [python, "-I", "-c", LOADER, WORKER_MODULE]


def local_loader_command() -> list[str]:
    """`loader_command` for this interpreter: runs a bundled worker on the host (tests, diagnostics)."""
    return loader_command(sys.executable)
