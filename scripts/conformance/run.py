"""smolagents' own test suite, run unchanged on smol and on smolagents, side by side.

Why: the README promises that moving from smolagents is a matter of imports. This run is that
promise measured: it fetches the smolagents sdist from PyPI (never committed here), runs its tests/
folder as published, once in the `conformance-smolagents` environment (real smolagents) and once in the
`conformance` environment (smol, with `smolagents` mapped onto smol's public names by the shim in
shim/smolagents, which holds no behaviour), and prints one table: per test file, how many of the
tests that pass on smolagents pass on smol. It exits non-zero when smol's count falls below the
floor in floor.txt, so a change that breaks a smolagents user's code fails CI.

    python scripts/conformance/run.py             # both sides, the table, the floor check
    python scripts/conformance/run.py --failures  # also list each test smol fails that smolagents passes
    python scripts/conformance/run.py -k memory   # only test files whose name contains "memory"

The same rules hold on both sides (EXCLUDED and the markers below), each with its reason. Only tests
that pass on smolagents count: a test smolagents itself fails here (a version mismatch in its own
sdist, an optional SDK that is not installed, a missing data folder) says nothing about smol.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

VERSION = "1.26.0"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CACHE = Path.home() / ".cache" / "smol" / "conformance"
FLOOR = HERE / "floor.txt"
INTERPRETER_TESTS = "test_local_python_executor.py"
# every smolagents test that fails on smol is listed there with its reason; the run checks it
EXPLAINED = ROOT / "docs" / "compatibility.md"

# test files or node ids left out on both sides, with why
EXCLUDED: dict[str, str] = {
    "tests/test_all_docs.py": "runs smolagents' documentation folder, which the sdist does not ship, and "
    "needs the network and API keys (RUN_ALL)",
    "tests/test_import.py": "pip-installs smolagents itself from its source tree into a fresh venv",
    "tests/test_default_tools.py::DefaultToolTests::test_visit_webpage": "fetches huggingface.co",
    "tests/test_default_tools.py::test_wikipedia_search": "queries wikipedia.org",
    "tests/test_models.py::TestLiteLLMModel::test_call_different_providers_without_key": "litellm resolves "
    "the providers' host names (the network)",
}

# tests/utils/markers.py is not in the sdist; these are its markers, with the rules of this run
MARKERS = '''\
"""Markers of smolagents' test suite (the sdist does not ship this file): the conformance run's rules."""

import importlib.util
import os

import pytest


def _requires(module):
    return pytest.mark.skipif(importlib.util.find_spec(module) is None, reason=f"needs {module}, not installed")


# RUN_ALL tests call hosted models and search engines: the network and API keys
require_run_all = pytest.mark.skipif(not os.getenv("RUN_ALL"), reason="needs the network or an API key (RUN_ALL)")
require_torch = _requires("torch")
require_soundfile = _requires("soundfile")
'''


@dataclass(frozen=True)
class Outcome:
    file: str
    test: str
    passed: bool
    message: str


def hatch_python(env: str) -> str:
    subprocess.run(["hatch", "env", "create", env], cwd=ROOT, check=True)
    location = subprocess.run(
        ["hatch", "env", "find", env], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    return str(Path(location) / "bin" / "python")


def fetch_tests() -> Path:
    """smolagents' tests/ folder from its sdist on PyPI, with the markers file it leaves out."""
    CACHE.mkdir(parents=True, exist_ok=True)
    sdist = CACHE / f"smolagents-{VERSION}.tar.gz"
    if not sdist.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps",
             f"smolagents=={VERSION}", "-d", str(CACHE)],
            check=True,
        )  # fmt: skip
    source = CACHE / f"smolagents-{VERSION}"
    if not (source / "tests").is_dir():
        with tarfile.open(sdist) as archive:
            members = [m for m in archive.getmembers() if m.name.startswith(f"smolagents-{VERSION}/tests/")]
            archive.extractall(CACHE, members=members, filter="data")
    return source / "tests"


def lay_out(tests: Path, side: str) -> Path:
    """A fresh copy of the tests for one side: pytest writes caches and fixtures write files beside them."""
    work = CACHE / "work" / side
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(tests, work / "tests")
    (work / "tests" / "__init__.py").touch()
    (work / "tests" / "utils").mkdir(exist_ok=True)
    (work / "tests" / "utils" / "__init__.py").touch()
    (work / "tests" / "utils" / "markers.py").write_text(MARKERS)
    return work


def run_side(python: str, work: Path, side: str, selection: str | None) -> Path:
    report = work / "report.xml"
    command = [
        python, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors",
        "--timeout=120", f"--junitxml={report}", "-o", "junit_family=xunit2",
    ]  # fmt: skip
    for excluded in EXCLUDED:
        command += [f"--ignore={excluded}"] if "::" not in excluded else [f"--deselect={excluded}"]
    if selection:
        command += ["-k", selection]
    environment = {**_clean_environment(), "SMOL_CONFORMANCE_SIDE": side}
    if side == "smol":
        environment["PYTHONPATH"] = str(HERE / "shim")
    print(f"::: conformance: smolagents {VERSION}'s tests on {side}", flush=True)
    finished = subprocess.run(command, cwd=work, env=environment, capture_output=True, text=True)
    (work / "pytest.log").write_text(finished.stdout + finished.stderr)
    print(finished.stdout.strip().splitlines()[-1] if finished.stdout.strip() else finished.stderr[-2000:])
    return report


def _clean_environment() -> dict[str, str]:
    import os

    keep = {
        k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH", "HATCH_ENV"))
    }
    keep.update(HF_HUB_OFFLINE="1", LITELLM_LOCAL_MODEL_COST_MAP="True", GRADIO_ANALYTICS_ENABLED="False")
    return keep


def read_report(report: Path) -> dict[str, Outcome]:
    """Outcomes by position: `file::Class::test#n` for the n-th case of that test function.

    Why not by pytest's id: a parametrized case's id is made from its values, and the same value
    prints differently on the two sides (smolagents' `OpenAIModel` is smol's `OpenAIServerModel`,
    an object's id holds its address), while both sides run the same cases in the same order."""
    outcomes: dict[str, Outcome] = {}
    if not report.exists():
        return outcomes
    seen: Counter[str] = Counter()
    for case in ElementTree.parse(report).iter("testcase"):
        # classname is tests.test_agents or tests.test_agents.TestCodeAgent
        module, _, owner = case.get("classname", "").removeprefix("tests.").partition(".")
        file = f"{module}.py"
        test_id = "::".join(part for part in (file, owner, case.get("name", "")) if part)
        function = test_id.split("[", 1)[0]
        position = f"{function}#{seen[function]}"
        seen[function] += 1
        problems = [child for child in case if child.tag in ("failure", "error")]
        skipped = any(child.tag == "skipped" for child in case)
        if skipped and not problems:
            continue
        message = (problems[0].get("message") or "").splitlines()[0][:160] if problems else ""
        outcomes[position] = Outcome(file, test_id, not problems, message)
    return outcomes


def table(smolagents: dict[str, Outcome], smol: dict[str, Outcome]) -> tuple[int, int, list[Outcome]]:
    counted = {key: outcome for key, outcome in smolagents.items() if outcome.passed}
    per_file: Counter[str] = Counter()
    passing: Counter[str] = Counter()
    failures = []
    for key, outcome in counted.items():
        per_file[outcome.file] += 1
        ours = smol.get(key)
        if ours is not None and ours.passed:
            passing[outcome.file] += 1
        else:  # named by smolagents' id, which docs/compatibility.md uses
            why = ours.message if ours is not None else "not run on smol (import or collection error)"
            failures.append(Outcome(outcome.file, outcome.test, False, why))
    width = max([len(name) for name in per_file] + [len(INTERPRETER_TESTS) + 8])
    print(f"\n{'test file':<{width}}  {'smolagents':>10}  {'smol':>5}  {'share':>6}")
    for name in sorted(per_file):
        share = passing[name] / per_file[name]
        print(f"{name:<{width}}  {per_file[name]:>10}  {passing[name]:>5}  {share:>6.0%}")
    total, ours = sum(per_file.values()), sum(passing.values())
    print(f"{'all':<{width}}  {total:>10}  {ours:>5}  {ours / max(total, 1):>6.0%}")
    # smolagents' AST interpreter's own unit tests (operation counters, objects handed back from the
    # interpreter) test a design smol deliberately does not have: the API without them, apart
    rest_total = total - per_file[INTERPRETER_TESTS]
    rest = ours - passing[INTERPRETER_TESTS]
    label = f"all but {INTERPRETER_TESTS}"
    print(f"{label:<{width}}  {rest_total:>10}  {rest:>5}  {rest / max(rest_total, 1):>6.0%}")
    return total, ours, failures


def explained_tests() -> list[str]:
    """The test ids docs/compatibility.md explains: `file.py::Class::test` in backticks (a prefix
    covers every parametrization of the test)."""
    if not EXPLAINED.exists():
        return []
    return re.findall(r"`(test_[\w]+\.py::[^`\s]+)`", EXPLAINED.read_text())


def unexplained(failures: list[Outcome]) -> list[Outcome]:
    documented = explained_tests()
    return [
        failure
        for failure in failures
        if not any(
            failure.test == entry or failure.test.startswith((entry + "[", entry + "::"))
            for entry in documented
        )
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--failures", action="store_true", help="list the tests smol fails")
    parser.add_argument("-k", dest="selection", help="pytest -k expression (both sides)")
    parser.add_argument("--no-floor", action="store_true", help="print the table without checking the floor")
    arguments = parser.parse_args()
    tests = fetch_tests()
    reports = {}
    for side, env in (("smolagents", "conformance-smolagents"), ("smol", "conformance")):
        reports[side] = run_side(hatch_python(env), lay_out(tests, side), side, arguments.selection)
    total, ours, failures = table(read_report(reports["smolagents"]), read_report(reports["smol"]))
    if arguments.failures:
        print("\nFailing on smol, passing on smolagents:")
        for failure in sorted(failures, key=lambda outcome: outcome.test):
            print(f"  {failure.test}: {failure.message}")
    floor = int(FLOOR.read_text().split()[0])
    if arguments.no_floor or arguments.selection:
        return 0
    if ours < floor:
        print(
            f"\nconformance: {ours} of {total} pass on smol, below the floor of {floor} (floor.txt)",
            file=sys.stderr,
        )
        return 1
    missing = unexplained(failures)
    if missing:
        print(
            f"\nconformance: {len(missing)} failing tests are not explained in docs/compatibility.md:",
            file=sys.stderr,
        )
        for failure in missing:
            print(f"  {failure.test}: {failure.message}", file=sys.stderr)
        return 1
    print(f"\nconformance: {ours} of {total} pass on smol (floor {floor}), every failure explained")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
