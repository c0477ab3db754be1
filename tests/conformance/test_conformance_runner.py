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
    assert smolagents["test_tools.py::test_skipped#0"].status == "skipped"  # kept, to be listed: not counted
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
        run.Outcome("test_agents.py", "test_agents.py::TestCodeAgent::test_broken[a]", "failed", ""),
        run.Outcome("test_tools.py", "test_tools.py::test_missing_on_smol", "failed", ""),
        run.Outcome("test_tools.py", "test_tools.py::test_missing_on_smol_too", "failed", ""),
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


COLLECTION_ERROR = """
<testcase classname="" name="tests.test_yield_support"><error message="collection failure">ImportError while \
importing test module.
E   ImportError: cannot import name 'YieldException' from 'smolagents.local_python_executor'</error></testcase>
<testcase classname="" name="tests.test_telemetry"><skipped message="collection skipped">('tests/test_telemetry.py', \
27, 'Skipped: requires openinference.instrumentation.smolagents')</skipped></testcase>
"""


def test_nothing_leaves_the_count_silently(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file that fails to import on both sides, a skipped file, a skipped test and a test smolagents
    fails are each printed with their reason, and with what smol does."""
    smolagents = run.read_report(_report(tmp_path, "smolagents", SMOLAGENTS + COLLECTION_ERROR))
    smol = run.read_report(_report(tmp_path, "smol", SMOL + COLLECTION_ERROR))
    assert smolagents["test_yield_support.py#0"] == run.Outcome(
        "test_yield_support.py",
        "test_yield_support.py",
        "failed",
        "ImportError: cannot import name 'YieldException' from 'smolagents.local_python_executor'",
    )
    run.not_counted(smolagents, smol)
    printed = capsys.readouterr().out
    for excluded, why in run.EXCLUDED.items():
        assert f"{excluded.removeprefix('tests/')}: {why}" in printed
    assert "requires openinference.instrumentation.smolagents (1):\n    test_telemetry.py" in printed
    assert "torch (1):\n    test_tools.py::test_skipped" in printed
    assert "test_yield_support.py: ImportError: cannot import name 'YieldException'" in printed
    assert "smol: ImportError: cannot import name 'YieldException'" in printed
    assert "test_agents.py::test_smolagents_fails_too: boom\n      passes on smol" in printed


def test_the_suite_is_laid_out_with_smolagents_test_helpers_on_each_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """smolagents' conftest fixtures, fixtures/ and data/ (which its sdist does not ship) are copied
    into the suite before it runs, so that its tests that use them count."""
    monkeypatch.setattr(run, "CACHE", tmp_path / "cache")
    published = tmp_path / "sdist" / "tests"
    published.mkdir(parents=True)
    (published / "test_agents.py").write_text("")
    for side in ("smolagents", "smol"):
        tests = run.lay_out(published, side) / "tests"
        assert "def get_agent_dict" in (tests / "fixtures" / "agents.py").read_text()
        assert "def test_tool" in (tests / "fixtures" / "tools.py").read_text()
        assert "agents_log_nothing_by_default" in (tests / "conftest.py").read_text()
        assert (tests / "data" / "000000039769.png").read_bytes().startswith(b"\x89PNG")
        assert (tests / "utils" / "markers.py").exists()
        assert not (tests / "make_image.py").exists()


def test_a_case_that_runs_offline_is_counted_and_only_the_ones_reaching_the_network_are_left_out() -> None:
    """`test_call_different_providers_without_key[cerebras/...]` fails before any request on both sides
    (smolagents passes it in its repository): it is counted, while its Groq and Mistral cases are not."""
    test = "tests/test_models.py::TestLiteLLMModel::test_call_different_providers_without_key"
    covering = [entry for entry in run.EXCLUDED if f"{test}[cerebras/llama-3.3-70b]".startswith(entry)]
    assert covering == []
    assert {f"{test}[groq/llama-3.3-70b]", f"{test}[mistral/mistral-tiny]"} <= set(run.EXCLUDED)


def test_each_side_has_a_loopback_of_its_own(tmp_path: Path) -> None:
    """A port taken on the machine (smolagents' MCP tests use 8000; another run or a docs server may
    hold it) is free inside the run, and the machine's server is out of the run's reach."""
    import socket
    import subprocess

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        probe = [
            sys.executable,
            "-c",
            f"import socket; socket.create_server(('127.0.0.1', {port})); print('own')",
        ]
        command = run.private_network(probe)
        if command == probe:
            pytest.skip("no unprivileged network namespace on this machine (unshare --net --map-root-user)")
        assert subprocess.run(command, capture_output=True, text=True, timeout=60).stdout == "own\n"
        reach = [sys.executable, "-c", f"import socket; socket.create_connection(('127.0.0.1', {port}), 5)"]
        assert subprocess.run(run.private_network(reach), capture_output=True, timeout=60).returncode != 0


def test_an_mcp_server_started_for_a_test_listens_before_the_test_goes_on() -> None:
    """smolagents' MCP-over-HTTP tests sleep one second for their server; one that takes longer (a
    loaded machine) is waited for by the Popen the run puts in their place, on both sides."""
    import socket

    sys.path.insert(0, str(ROOT / "scripts/conformance/support"))
    try:
        from server_start import popen_until_listening
    finally:
        sys.path.pop(0)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    late_server = (
        "import socket, time; time.sleep(2)  # FastMCP stand-in, slow to start\n"
        f"server = socket.create_server(('127.0.0.1', {port})); server.accept()"
    )
    popen = popen_until_listening("127.0.0.1", port, "FastMCP")
    server = popen([sys.executable, "-c", late_server])
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()  # refused if it did not wait
    finally:
        server.kill()
        server.wait()
