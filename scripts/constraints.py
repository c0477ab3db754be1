"""Pins of the test environments: what moved since constraints.txt, and writing it anew.

Why: CI installs within constraints.txt so that a release on PyPI cannot break it overnight (LiteLLM
1.110 once did); scripts/test-latest runs the suite against the newest releases in a separate hatch
data folder and calls this to say which pins moved, and with --write to record the new ones.

    python scripts/constraints.py diff ENV_PYTHON...    # pinned -> installed, one line each
    python scripts/constraints.py write ENV_PYTHON...   # constraints.txt from those environments
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

CONSTRAINTS = Path(__file__).resolve().parent.parent / "constraints.txt"
# torch is pinned in hatch.toml to the local CPU build (a plain pin would pull CUDA wheels)
NEVER_PINNED = {"torch"}
HEADER = """\
# The versions the test suite was last run against: every environment scripts/test builds installs
# within these pins (hatch.toml sets UV_CONSTRAINT / PIP_CONSTRAINT to this file), so a release on
# PyPI cannot turn CI red overnight. `bash scripts/test-latest` runs the suite against the newest
# releases instead and prints what moved; `bash scripts/test-latest --write` refreshes this file.
"""


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(text: str) -> dict[str, tuple[str, str]]:
    pins: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" not in line or line.startswith("-"):
            continue
        name, version = (part.strip() for part in line.split("==", 1))
        if normalized(name) in NEVER_PINNED or normalized(name).startswith("smol-"):
            continue
        pins.setdefault(normalized(name), (name, version))
    return pins


def installed(python: str) -> dict[str, tuple[str, str]]:
    """The distributions in one environment (editable workspace packages left out)."""
    frozen = subprocess.run(
        ["uv", "pip", "freeze", "--python", python], check=True, capture_output=True, text=True
    ).stdout
    return read_pins(frozen)


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("diff", "write"):
        print(__doc__, file=sys.stderr)
        return 2
    merged: dict[str, tuple[str, str]] = {}
    for python in argv[1:]:
        for key, pin in installed(python).items():
            merged.setdefault(key, pin)
    if argv[0] == "write":
        body = "".join(f"{name}=={version}\n" for name, version in (merged[key] for key in sorted(merged)))
        CONSTRAINTS.write_text(HEADER + body)
        print(f"constraints.txt: {len(merged)} pins written")
        return 0
    pinned = read_pins(CONSTRAINTS.read_text())
    moved = [
        f"{name}: {pinned[key][1]} -> {version}"
        for key, (name, version) in sorted(merged.items())
        if key in pinned and pinned[key][1] != version
    ]
    new = [
        f"{name}: (not pinned) -> {version}"
        for key, (name, version) in sorted(merged.items())
        if key not in pinned
    ]
    print(f"{len(moved)} pinned distributions moved, {len(new)} are new:")
    for line in moved + new:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
