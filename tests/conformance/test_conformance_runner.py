"""scripts/conformance/run.py counts what it should: only tests that pass on smolagents, per file, and
it refuses a failure that docs/compatibility.md does not explain."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("conformance_run", ROOT / "scripts/conformance/run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["conformance_run"] = module
    spec.loader.exec_module(module)
    return module


run = _runner()


def _report(tmp_path: Path, name: str, cases: str) -> Path:
    path = tmp_path / f"{name}.xml"
    path.write_text(f'<testsuites><testsuite name="pytest">{cases}</testsuite></testsuites>')
    return path


SMOLAGENTS = """
<testcase classname="tests.test_agents.TestCodeAgent" name="test_ok" />
<testcase classname="tests.test_agents.TestCodeAgent" name="test_broken[a]" />
<testcase classname="tests.test_agents" name="test_module_level" />
<testcase classname="tests.test_agents" name="test_smolagents_fails_too"><failure message="boom" /></testcase>
<testcase classname="tests.test_tools" name="test_skipped"><skipped message="torch" /></testcase>
<testcase classname="tests.test_tools" name="test_missing_on_smol" />
"""
SMOL = """
<testcase classname="tests.test_agents.TestCodeAgent" name="test_ok" />
<testcase classname="tests.test_agents.TestCodeAgent" name="test_broken[a]"><failure message="AssertionError: x&#10;more" /></testcase>
<testcase classname="tests.test_agents" name="test_module_level" />
<testcase classname="tests.test_agents" name="test_smolagents_fails_too" />
"""


def test_only_tests_passing_on_smolagents_count_and_missing_ones_fail(tmp_path: Path) -> None:
    smolagents = run.read_report(_report(tmp_path, "smolagents", SMOLAGENTS))
    smol = run.read_report(_report(tmp_path, "smol", SMOL))
    assert "test_tools.py::test_skipped#0" not in smolagents  # skipped on both sides: not counted
    total, passing, failures = run.table(smolagents, smol)
    assert (total, passing) == (4, 2)
    assert sorted(f.test for f in failures) == [
        "test_agents.py::TestCodeAgent::test_broken[a]",
        "test_tools.py::test_missing_on_smol",
    ]
    broken = next(f for f in failures if "broken" in f.test)
    assert broken.message == "AssertionError: x"  # the first line only


def test_parametrized_cases_are_matched_by_position_not_by_their_printed_values(tmp_path: Path) -> None:
    smolagents = run.read_report(
        _report(
            tmp_path,
            "smolagents",
            '<testcase classname="tests.test_models" name="test_flat[OpenAIModel-0]" />',
        )
    )
    smol = run.read_report(
        _report(
            tmp_path,
            "smol",
            '<testcase classname="tests.test_models" name="test_flat[OpenAIServerModel-0]" />',
        )
    )
    assert run.table(smolagents, smol)[:2] == (1, 1)


def test_a_failure_is_explained_by_its_test_id_or_a_prefix_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = tmp_path / "compatibility.md"
    monkeypatch.setattr(run, "EXPLAINED", document)
    failures = [
        run.Outcome("test_agents.py", "test_agents.py::TestCodeAgent::test_broken[a]", False, ""),
        run.Outcome("test_tools.py", "test_tools.py::test_missing_on_smol", False, ""),
        run.Outcome("test_tools.py", "test_tools.py::test_missing_on_smol_too", False, ""),
    ]
    document.write_text(
        "- `test_agents.py::TestCodeAgent::test_broken`: a reason\n- `test_tools.py::test_missing_on_smol`\n"
    )
    assert [f.test for f in run.unexplained(failures)] == ["test_tools.py::test_missing_on_smol_too"]
    document.write_text("- `test_agents.py::TestCodeAgent`: a whole class\n")
    assert [f.test for f in run.unexplained(failures)] == [
        "test_tools.py::test_missing_on_smol",
        "test_tools.py::test_missing_on_smol_too",
    ]


def test_every_exclusion_says_why() -> None:
    assert all(reason.strip() for reason in run.EXCLUDED.values())
    assert "require_run_all" in run.MARKERS and "require_torch" in run.MARKERS
