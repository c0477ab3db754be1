"""The release metadata of every package, checked on every test run (the cheap half of scripts/release).

`scripts/release` builds the wheelhouse, runs `twine check` and installs from it; that is too slow
for every run, but the mistakes it would catch first — an extra naming a package that does not
exist, a wheel without its licence text, a plugin that no extra installs — are caught here in
milliseconds from the pyproject files.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _checks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("release_checks", ROOT / "scripts/release_checks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["release_checks"] = module
    spec.loader.exec_module(module)
    return module


checks = _checks()


def test_every_package_is_ready_for_release() -> None:
    assert checks.all_problems() == []


def test_the_licence_text_is_apache_2() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    for package in checks.packages():
        assert (package.folder / "LICENSE").read_text() == text, package.where


def test_every_plugin_folder_has_an_extra() -> None:
    extras = checks.packages()[0].project["optional-dependencies"]
    named = {checks.requirement_name(r) for requirements in extras.values() for r in requirements}
    plugins = {p.name for p in checks.packages()[1:]}
    assert plugins <= named


def _copy_tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for pyproject in [ROOT / "packages/core/pyproject.toml", ROOT / "packages/models/openai/pyproject.toml"]:
        folder = root / pyproject.parent.relative_to(ROOT)
        folder.mkdir(parents=True)
        shutil.copy(pyproject, folder / "pyproject.toml")
        (folder / "README.md").write_text("readme")
        (folder / "LICENSE").write_text("licence")
    return root


def test_an_extra_naming_a_missing_package_is_reported(tmp_path: Path) -> None:
    root = _copy_tree(tmp_path)
    problems = checks.all_problems(root)
    # the copied core names every real plugin; only smol-model-openai exists in this small tree
    assert any("extra [gradio] names smol-ui-gradio, which no package here builds" in p for p in problems)
    assert not any("extra [openai]" in p for p in problems)


def test_missing_licence_urls_and_versions_are_reported(tmp_path: Path) -> None:
    root = _copy_tree(tmp_path)
    plugin = root / "packages/models/openai"
    (plugin / "LICENSE").unlink()
    text = (plugin / "pyproject.toml").read_text()
    text = text.replace('version = "0.1.0"', 'version = "0.2.0"').replace("[project.urls]", "[tool.not-urls]")
    (plugin / "pyproject.toml").write_text(text)
    problems = "\n".join(checks.all_problems(root))
    assert "license file LICENSE does not exist" in problems
    assert "[project.urls] has no Homepage" in problems
    assert "versions differ" in problems


def test_the_all_extra_installs_every_plugin_as_smolagents_all_does(tmp_path: Path) -> None:
    assert all(
        p.name in repr(checks.packages()[0].project["optional-dependencies"]["all"])
        for p in checks.packages()[1:]
    )
    root = _copy_tree(tmp_path)
    core = root / "packages/core/pyproject.toml"
    core.write_text(
        core.read_text().replace('"smol-model-llamacpp", "smol-model-openai", ', '"smol-model-llamacpp", ')
    )
    assert any(
        "the extra [all] does not install the plugin smol-model-openai" in p
        for p in checks.all_problems(root)
    )


def test_smol_core_says_the_version_its_project_file_releases() -> None:
    """The plugin registry reports smol-core's version from `smol_core.version` (asking the installed
    metadata costs every agent process a scan of sys.path): it must be the released one."""
    import tomllib

    from smol_core.version import __version__

    project = tomllib.loads((ROOT / "packages" / "core" / "pyproject.toml").read_text())["project"]
    assert __version__ == project["version"]
