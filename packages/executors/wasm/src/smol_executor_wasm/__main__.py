"""`python -m smol_executor_wasm install [--prefix DIR]`: fetch Pyodide from the npm registry once.

`python -m smol_executor_wasm check` starts a worker and prints its protections.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from smol_executor_wasm.runtime import PYODIDE_VERSION, default_pyodide_home, install


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m smol_executor_wasm")
    sub = parser.add_subparsers(dest="command", required=True)
    inst = sub.add_parser("install", help=f"npm install pyodide@{PYODIDE_VERSION} into a cache folder")
    inst.add_argument("--prefix", type=Path, default=None, help=f"default: {default_pyodide_home()}")
    sub.add_parser("check", help="start a worker, run 1 + 1, print the protections")
    args = parser.parse_args(argv)
    if args.command == "install":
        print(install(args.prefix))
        return 0
    from smol_executor_wasm.executor import WasmExecutor

    executor = WasmExecutor()
    try:
        print("1 + 1 =", executor("1 + 1").output)
        for name, active, detail in executor.protections:
            print(f"  [{'x' if active else ' '}] {name}: {detail}")
    finally:
        executor.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
