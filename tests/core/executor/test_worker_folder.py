"""The worker folder is the trust line: stdlib-only, self-contained, and shipped whole.

Why a test: `executors/worker/` runs inside every sandbox (a local process, a container, a remote
sandbox, WebAssembly), shipped there as it is by `host/bundle.py`. A module in it that imported
anything of smol outside the folder would pull host code next to the model's code (or fail in a
container that has only the folder), and one that needed a third-party package would not start on a
bare `python3`. Imports inside functions count: they run in the sandbox too.

The one exception is written here: numpy, pandas and PIL values cross the protocol as themselves, so
the codec uses those libraries when the sandbox has them, and only inside a `try` that handles their
absence (`except ImportError`).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import smol_core.executors.worker as worker_package
from smol_core.executors.host.bundle import WORKER_PACKAGE, worker_sources

WORKER_DIR = Path(worker_package.__file__).resolve().parent
OPTIONAL_VALUE_LIBRARIES = frozenset({"numpy", "pandas", "PIL"})


def worker_modules() -> dict[str, Path]:
    return {
        WORKER_PACKAGE if path.stem == "__init__" else f"{WORKER_PACKAGE}.{path.stem}": path
        for path in sorted(WORKER_DIR.glob("*.py"))
    }


def handles_import_error(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether `node` sits in the body of a `try` with an `except ImportError` (or a tuple naming it)."""
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.Try) and any(child is statement for statement in parent.body):
            for handler in parent.handlers:
                names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                if any(isinstance(name, ast.Name) and name.id == "ImportError" for name in names):
                    return True
        child, parent = parent, parents.get(parent)
    return False


def foreign_imports(path: Path) -> list[str]:
    """Every import in `path` (at any depth) of a module neither stdlib nor in the worker folder."""
    tree = ast.parse(path.read_text("utf-8"), str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 1:
                continue  # `from .x import y`: a module of this folder
            if node.level > 1:
                found.append(f"line {node.lineno}: a relative import out of the folder")
                continue
            names = [node.module or ""]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if (
                top in sys.stdlib_module_names
                or name == WORKER_PACKAGE
                or name.startswith(WORKER_PACKAGE + ".")
            ):
                continue
            if top in OPTIONAL_VALUE_LIBRARIES and handles_import_error(node, parents):
                continue
            found.append(f"line {node.lineno}: {name}")
    return found


def test_the_worker_folder_imports_only_the_stdlib_and_itself():
    offenders = {
        path.name: imports for path in worker_modules().values() if (imports := foreign_imports(path))
    }
    assert not offenders, f"the worker folder must stay stdlib-only and self-contained: {offenders}"


def test_the_check_sees_imports_inside_functions_and_guards(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os\n"
        "from . import guards\n"
        "def f():\n"
        "    from smol_core.executors.host import driver\n"
        "    import numpy\n"
        "    try:\n"
        "        import pandas\n"
        "    except ImportError:\n"
        "        pass\n"
        "    from .. import base\n"
    )
    assert foreign_imports(sample) == [
        "line 4: smol_core.executors.host",
        "line 5: numpy",
        "line 10: a relative import out of the folder",
    ]


def test_the_bundle_ships_exactly_the_folder():
    shipped = {
        name: source for name, (_, source) in worker_sources().items() if name.startswith(WORKER_PACKAGE)
    }
    folder = {name: path.read_text("utf-8") for name, path in worker_modules().items()}
    assert shipped == folder
    assert {name for name in worker_sources() if name not in folder} == {"smol_core", "smol_core.executors"}
    assert all(source == "" for name, (_, source) in worker_sources().items() if name not in folder)
