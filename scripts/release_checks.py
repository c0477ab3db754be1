"""The release's metadata checks, cheap enough for every test run (`tests/release`) and run first by
`scripts/release`: every package says what PyPI and pip need to know, and every extra resolves.

A check returns a list of problems, each naming the file it is in; `python scripts/release_checks.py`
prints them and exits 1 when there is any. Only the standard library: it runs before any environment
exists.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORE = "smol-core"
# Folders of plugin kinds whose packages must each have an extra of smol-core.
PLUGIN_KINDS = ("models", "executors", "tools", "ui", "transports", "telemetry")


@dataclass(frozen=True)
class Package:
    """One distribution of the monorepo: its folder and its parsed pyproject.toml."""

    folder: Path
    pyproject: dict[str, Any]

    @property
    def project(self) -> dict[str, Any]:
        return dict(self.pyproject.get("project", {}))

    @property
    def name(self) -> str:
        return str(self.project.get("name", self.folder.name))

    @property
    def where(self) -> str:
        path = self.folder / "pyproject.toml"
        return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def packages(root: Path = ROOT) -> list[Package]:
    """smol-core first, then every plugin package, in folder order."""
    files = [root / "packages/core/pyproject.toml", *sorted(root.glob("packages/*/*/pyproject.toml"))]
    return [Package(f.parent, tomllib.loads(f.read_text(encoding="utf-8"))) for f in files]


def check_package(package: Package) -> list[str]:
    """What one package's metadata lacks: licence and its text, classifiers, URLs, readme, entry point."""
    project, where, problems = package.project, package.where, []
    if project.get("license") != "Apache-2.0":
        problems.append(f"{where}: license must be the SPDX expression 'Apache-2.0'")
    license_files = project.get("license-files") or []
    if not license_files:
        problems.append(f"{where}: no license-files (the wheel would ship no licence text)")
    for name in license_files:
        if not (package.folder / name).is_file():
            problems.append(f"{where}: license file {name} does not exist")
    classifiers = project.get("classifiers") or []
    if not any(c.startswith("Programming Language :: Python :: 3.") for c in classifiers):
        problems.append(f"{where}: classifiers name no Python version")
    if any(c.startswith("License ::") for c in classifiers):
        problems.append(f"{where}: a License classifier beside a license expression is rejected by PyPI")
    urls = project.get("urls") or {}
    for key in ("Homepage", "Source", "Issues"):
        if key not in urls:
            problems.append(f"{where}: [project.urls] has no {key}")
    readme = project.get("readme")
    if not readme or not (package.folder / str(readme)).is_file():
        problems.append(f"{where}: readme missing")
    if not project.get("description"):
        problems.append(f"{where}: no description")
    if not (project.get("entry-points") or {}).get("smol"):
        problems.append(f"{where}: no entry point in the group `smol`")
    return problems


def check_versions(all_packages: list[Package]) -> list[str]:
    """Every package has the same version (they are released together, and depend on each other by name)."""
    versions = {p.name: p.project.get("version") for p in all_packages}
    if len(set(versions.values())) != 1:
        return [f"versions differ: {versions}"]
    return []


def requirement_name(requirement: str) -> str:
    """The normalised distribution name a requirement string names (`smol-core[x]>=1 ; ...` -> smol-core)."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return re.sub(r"[-_.]+", "-", match.group(1)).lower() if match else requirement


def check_extras(all_packages: list[Package]) -> list[str]:
    """smol-core's extras name only packages that exist here, and every plugin package has an extra."""
    core = next(p for p in all_packages if p.name == CORE)
    ours = {p.name for p in all_packages}
    extras: dict[str, list[str]] = core.project.get("optional-dependencies", {})
    problems = []
    named: set[str] = set()
    for extra, requirements in extras.items():
        for requirement in requirements:
            name = requirement_name(requirement)
            named.add(name)
            if name.startswith("smol-") and name not in ours:
                problems.append(f"{core.where}: extra [{extra}] names {name}, which no package here builds")
    everything = {requirement_name(requirement) for requirement in extras.get("all", [])}
    for package in all_packages:
        kind = package.folder.parent.name
        if package.name != CORE and kind in PLUGIN_KINDS and package.name not in named:
            problems.append(f"{core.where}: no extra installs the plugin {package.name}")
        if package.name != CORE and kind in PLUGIN_KINDS and package.name not in everything:
            problems.append(f"{core.where}: the extra [all] does not install the plugin {package.name}")
    return problems


def all_problems(root: Path = ROOT) -> list[str]:
    found = packages(root)
    problems = check_versions(found) + check_extras(found)
    for package in found:
        problems += check_package(package)
    return problems


def main() -> int:
    problems = all_problems()
    for problem in problems:
        print(f"release: {problem}", file=sys.stderr)
    if not problems:
        print(f"release: metadata of {len(packages())} packages checked")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
