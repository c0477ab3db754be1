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

The sdist leaves out smolagents' test helpers (tests/conftest.py, tests/fixtures/, tests/data/,
tests/utils/markers.py): support/ holds equivalents written here (see support/NOTICE), copied into
the suite on both sides. smolagents' MCP client (mcpadapt) needs the mcp SDK 1.x, so smolagents'
side runs with it (constraints-smolagents.txt), and on both sides the MCP servers the tests start
with `python -c ...` run in the mcp 1.x environment of scripts/setup.d/60-mcp-v1.sh. Each side
runs in a network namespace of its own where the system allows one (`private_network`).

The same rules hold on both sides (EXCLUDED and the markers below), each with its reason. Only tests
that pass on smolagents count: a test smolagents itself fails here (a version mismatch in its own
sdist, an optional SDK that is not installed) says nothing about smol. Nothing leaves the count
silently: every test left out, skipped, or failing on smolagents' side is printed with its reason.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

VERSION = "1.26.0"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CACHE = Path.home() / ".cache" / "smol" / "conformance"
FLOOR = HERE / "floor.txt"
SUPPORT = HERE / "support"
# where scripts/setup.d/60-mcp-v1.sh makes the mcp 1.x environment the tests' MCP servers run in
MCP_V1 = Path(os.environ.get("SMOL_MCP_V1_DIR") or Path.home() / ".cache" / "smol" / "mcp-v1")
INTERPRETER_TESTS = "test_local_python_executor.py"
# every smolagents test that fails on smol is listed there with its reason; the run checks it
EXPLAINED = ROOT / "docs" / "compatibility.md"

PROVIDERS_WITHOUT_KEY = "tests/test_models.py::TestLiteLLMModel::test_call_different_providers_without_key"
# test files or node ids left out on both sides, with why
EXCLUDED: dict[str, str] = {
    "tests/test_all_docs.py": "runs smolagents' documentation folder, which the sdist does not ship, and "
    "needs the network and API keys (RUN_ALL)",
    "tests/test_import.py": "pip-installs smolagents itself from its source tree into a fresh venv",
    "tests/test_default_tools.py::DefaultToolTests::test_visit_webpage": "fetches huggingface.co",
    "tests/test_default_tools.py::test_wikipedia_search": "queries wikipedia.org",
    # its cerebras case fails before any request (no key), and is counted; these two ask the providers
    f"{PROVIDERS_WITHOUT_KEY}[groq/llama-3.3-70b]": "sends its keyless request to Groq (the network)",
    f"{PROVIDERS_WITHOUT_KEY}[mistral/mistral-tiny]": "sends its keyless request to Mistral (the network)",
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
    status: str  # "passed", "failed" (a failure or an error) or "skipped"
    message: str

    @property
    def passed(self) -> bool:
        return self.status == "passed"


def hatch_python(env: str) -> str:
    subprocess.run(["hatch", "env", "create", env], cwd=ROOT, check=True)
    location = subprocess.run(
        ["hatch", "env", "find", env], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    return str(Path(location) / "bin" / "python")


def with_smolagents_mcp_client(python: str) -> str:
    """smolagents' side, with the mcp SDK 1.x its MCP client (mcpadapt) is written for.

    Why here too: constraints-smolagents.txt pins mcp 1.x for a new environment, but one made before
    that pin still holds mcp 2.x, where `import mcpadapt.core` fails and every MCP test of the suite
    fails on smolagents' side, leaving the count without a word."""
    if subprocess.run([python, "-c", "import mcpadapt.core"], capture_output=True).returncode != 0:
        subprocess.run(
            ["uv", "pip", "install", "--quiet", "--python", python,
             "--constraint", str(HERE / "constraints-smolagents.txt"), "mcp[ws]>=1.10,<2"],
            check=True,
        )  # fmt: skip
    return python


def mcp_server_python(work: Path) -> Path:
    """A folder whose `python` runs the mcp 1.x environment's, put first on PATH on both sides.

    Why: smolagents' MCP tests start their servers as `python -c "from mcp.server.fastmcp import
    FastMCP ..."`, a script written for mcp 1.x; the same server serves both clients. A script, not a
    link: a virtual environment's python finds its packages from the path it is started by."""
    setup = ROOT / "scripts" / "setup.d" / "60-mcp-v1.sh"
    if subprocess.run(["bash", str(setup)]).returncode != 0:  # then the MCP tests fail on both sides, listed
        print(f"conformance: no mcp 1.x environment for the MCP tests' servers: run `bash {setup}`")
    folder = work / "mcp-server-bin"
    folder.mkdir(exist_ok=True)
    python = folder / "python"
    python.write_text(f'#!/bin/sh\nexec "{MCP_V1 / "bin" / "python"}" "$@"\n')
    python.chmod(0o755)
    return folder


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
    work = CACHE / "work" / ROOT.name / side  # one per checkout: worktrees run side by side
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(tests, work / "tests")
    # smolagents' conftest.py, fixtures/ and data/, which the sdist leaves out (support/NOTICE)
    shutil.copytree(
        SUPPORT,
        work / "tests",
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("__pycache__", "make_image.py"),
    )
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
    environment["PATH"] = f"{mcp_server_python(work)}{os.pathsep}{environment.get('PATH', '')}"
    if side == "smol":
        environment["PYTHONPATH"] = str(HERE / "shim")
    print(f"::: conformance: smolagents {VERSION}'s tests on {side}", flush=True)
    finished = subprocess.run(
        private_network(command), cwd=work, env=environment, capture_output=True, text=True
    )
    (work / "pytest.log").write_text(finished.stdout + finished.stderr)
    print(finished.stdout.strip().splitlines()[-1] if finished.stdout.strip() else finished.stderr[-2000:])
    return report


def private_network(command: list[str]) -> list[str]:
    """The command in a network namespace of its own, with a loopback interface only, where the
    system allows one (`unshare`, unprivileged user namespaces, iproute2's `ip`).

    Why: smolagents' MCP tests serve on the fixed address 127.0.0.1:8000. Two runs on one machine (two
    checkouts, or a docs server on port 8000) meet there and fail each other's tests, which moves
    the count by a test or two from run to run. With a loopback of its own each run has the port to
    itself; and nothing the suite runs can reach the network, which the rules of this run promise."""
    wrapper = ["unshare", "--net", "--map-root-user", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]
    available = shutil.which("unshare") and shutil.which("ip")
    if available and subprocess.run([*wrapper, "true"], capture_output=True).returncode == 0:
        return [*wrapper, *command]
    print("conformance: no private network namespace here (unshare --net --map-root-user): the MCP tests'")
    print("  port 8000 is shared with the rest of the machine, so another server there fails them")
    return command


def _clean_environment() -> dict[str, str]:
    keep = {
        k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH", "HATCH_ENV"))
    }
    keep.update(HF_HUB_OFFLINE="1", LITELLM_LOCAL_MODEL_COST_MAP="True", GRADIO_ANALYTICS_ENABLED="False")
    return keep


def read_report(report: Path) -> dict[str, Outcome]:
    """Outcomes by position: `file::Class::test#n` for the n-th case of that test function.

    Why not by pytest's id: a parametrized case's id is made from its values, and the same value
    prints differently on the two sides (smolagents' `OpenAIModel` is smol's `OpenAIServerModel`,
    an object's id holds its address), while both sides run the same cases in the same order.
    A file that fails to import (or skips itself) is one outcome named by the file."""
    outcomes: dict[str, Outcome] = {}
    if not report.exists():
        return outcomes
    seen: Counter[str] = Counter()
    for case in ElementTree.parse(report).iter("testcase"):
        # classname is tests.test_agents or tests.test_agents.TestCodeAgent; empty for a whole file
        classname, name = case.get("classname", ""), case.get("name", "")
        if classname:
            module, _, owner = classname.removeprefix("tests.").partition(".")
            file = f"{module}.py"
            test_id = "::".join(part for part in (file, owner, name) if part)
        else:
            file = test_id = name.removeprefix("tests.").replace(".", "/") + ".py"
        function = test_id.split("[", 1)[0]
        position = f"{function}#{seen[function]}"
        seen[function] += 1
        problems = [child for child in case if child.tag in ("failure", "error")]
        skips = [child for child in case if child.tag == "skipped"]
        status = "failed" if problems else "skipped" if skips else "passed"
        outcomes[position] = Outcome(
            file, test_id, status, _reason(problems[0] if problems else skips[0] if skips else None)
        )
    return outcomes


def _reason(element: ElementTree.Element | None) -> str:
    """One line: pytest's message, or for a collection error or skip the last `E ` line of its text."""
    if element is None:
        return ""
    message = (element.get("message") or "").strip()
    if message in ("", "collection failure", "collection skipped"):
        lines = [line for line in (element.text or "").splitlines() if line.strip()]
        errors = [line[1:].strip() for line in lines if line.startswith("E ")]
        message = (errors or lines or [message])[-1].strip()
        if message.startswith("(") and message.endswith(")"):  # a skip: ('path', line, 'Skipped: why')
            message = message.rsplit(", ", 1)[-1].strip("()'\"").removeprefix("Skipped: ")
    return message.splitlines()[0][:160] if message else ""


def table(smolagents: dict[str, Outcome], smol: dict[str, Outcome]) -> tuple[int, int, list[Outcome]]:
    counted = {key: outcome for key, outcome in smolagents.items() if outcome.passed}
    per_file: Counter[str] = Counter()
    passing: Counter[str] = Counter()
    failures = []
    for key, outcome in counted.items():
        per_file[outcome.file] += 1
        on_smol = smol.get(key)
        if on_smol is not None and on_smol.passed:
            passing[outcome.file] += 1
        else:  # named by smolagents' id, which docs/compatibility.md uses
            failures.append(Outcome(outcome.file, outcome.test, "failed", _on_smol(on_smol)))
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


def _on_smol(outcome: Outcome | None) -> str:
    if outcome is None:
        return "not run on smol (its file did not import there)"
    if outcome.status == "skipped":
        return f"skipped on smol: {outcome.message}"
    return outcome.message


def not_counted(smolagents: dict[str, Outcome], smol: dict[str, Outcome]) -> None:
    """Every test outside the count, with its reason, so that none leaves it silently: the files and
    tests left out on both sides, the tests each side skips, and the tests that fail on smolagents'
    side (with what smol does with each)."""
    print(f"\nLeft out on both sides ({len(EXCLUDED)}, EXCLUDED in scripts/conformance/run.py):")
    for test, why in EXCLUDED.items():
        print(f"  {test.removeprefix('tests/')}: {why}")
    for side, outcomes in (("smolagents", smolagents), ("smol", smol)):
        skipped: dict[str, list[str]] = {}
        for outcome in outcomes.values():
            if outcome.status == "skipped":
                skipped.setdefault(outcome.message, []).append(outcome.test)
        total = sum(len(tests) for tests in skipped.values())
        print(f"\nSkipped on {side} ({total}), by reason:")
        for why, tests in sorted(skipped.items(), key=lambda item: (-len(item[1]), item[0])):
            print(f"  {why} ({len(tests)}):")
            for test in tests:
                print(f"    {test}")
    failing = [outcome for outcome in smolagents.values() if outcome.status == "failed"]
    print(f"\nFailing on smolagents, so not counted ({len(failing)}), with smol's outcome:")
    keys = {outcome.test: key for key, outcome in smolagents.items()}
    for outcome in sorted(failing, key=lambda outcome: outcome.test):
        ours = smol.get(keys[outcome.test])
        on_smol = "passes on smol" if ours is not None and ours.passed else f"smol: {_on_smol(ours)}"
        print(f"  {outcome.test}: {outcome.message}\n      {on_smol}")


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
    started = time.monotonic()
    pythons = {
        "smolagents": with_smolagents_mcp_client(hatch_python("conformance-smolagents")),
        "smol": hatch_python("conformance"),
    }
    for side, python in pythons.items():
        reports[side] = run_side(python, lay_out(tests, side), side, arguments.selection)
    outcomes = {side: read_report(report) for side, report in reports.items()}
    not_counted(outcomes["smolagents"], outcomes["smol"])
    total, ours, failures = table(outcomes["smolagents"], outcomes["smol"])
    print(f"(both sides in {time.monotonic() - started:.0f} s)")
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
