"""How tracing is switched on and off: the environment, `OTEL_SDK_DISABLED`, the trace file and
`smol trace`, a dead collector; and that the core pays nothing when nothing traces."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import textwrap

from smol_core import CodeAgent, instrumentation
from smol_core.testing import ScriptedModel

AGENT_SCRIPT = textwrap.dedent(
    """
    import sys
    from smol_core import CodeAgent
    from smol_core.testing import ScriptedModel

    agent = CodeAgent(tools=[], model=ScriptedModel(["<code>\\nfinal_answer(6 * 7)\\n</code>"]), verbosity_level=-1)
    with agent:
        print(agent.run("six times seven"))
    print(sorted(m for m in sys.modules if m.startswith("opentelemetry"))[:1])
    """
)


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "SMOL_TRACE"))}
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, timeout=120
    )


def test_with_nothing_asked_for_the_plugin_stays_off_and_imports_no_opentelemetry():
    done = run_python(AGENT_SCRIPT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["42", "[]"]
    # an OTEL_ variable makes the core ask the plugins; without an endpoint the plugin says no, cheaply
    done = run_python(AGENT_SCRIPT + PLUGINS_ASKED, OTEL_SERVICE_NAME="mine")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["42", "[]", "asked: True"]


PLUGINS_ASKED = textwrap.dedent(
    """
    from smol_core.plugins.registry import get_registry
    print("asked:", "smol-telemetry-otel" in {p.name for p in get_registry()._plugins.values()})
    """
)


def test_the_environment_switches_traces_on_at_the_first_run_and_smol_trace_prints_the_tree(tmp_path):
    path = tmp_path / "run.jsonl"
    done = run_python(AGENT_SCRIPT, SMOL_TRACE_FILE=str(path))
    assert done.returncode == 0, done.stderr
    request = json.loads(path.read_text().splitlines()[0])
    spans = [s for r in request["resourceSpans"] for ss in r["scopeSpans"] for s in ss["spans"]]
    assert {
        "invoke_agent CodeAgent",
        "step 1",
        "chat scripted",
        "execute_code",
        "execute_tool final_answer",
    } <= {s["name"] for s in spans}
    assert all(len(s["traceId"]) == 32 and len(s["spanId"]) == 16 for s in spans)
    shown = subprocess.run(
        [sys.executable, "-m", "smol_core.cli.smol", "trace", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].startswith("trace ") and "processes:" in lines[0]
    assert lines[1].startswith("  invoke_agent CodeAgent")
    assert any(line.startswith("    step 1") for line in lines)
    assert any(line.startswith("      chat scripted") and "input_tokens=" in line for line in lines)
    assert any(line.startswith("        execute_tool final_answer") for line in lines)


def test_otel_sdk_disabled_wins_over_everything(tmp_path):
    path = tmp_path / "run.jsonl"
    done = run_python(AGENT_SCRIPT, SMOL_TRACE_FILE=str(path), OTEL_SDK_DISABLED="true")
    assert done.returncode == 0, done.stderr
    assert not path.exists()
    import smol_telemetry_otel

    assert smol_telemetry_otel.instrument(environ={"OTEL_SDK_DISABLED": "true"}) is None


def test_smolagent_trace_file_flag(tmp_path):
    path = tmp_path / "cli.jsonl"
    code = textwrap.dedent(
        f"""
        import sys
        from smol_core.cli import smolagent
        from smol_core.plugins.registry import get_registry
        from smol_core.testing import ScriptedModel
        smolagent.build_model = lambda args: ScriptedModel(["<code>\\nfinal_answer(3)\\n</code>"])
        sys.exit(smolagent.main(["a task", "--trace-file", {str(path)!r}, "--verbosity-level", "0"]))
        """
    )
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("3")
    assert "invoke_agent" in path.read_text()


def test_a_dead_collector_costs_one_logged_warning_and_never_breaks_a_run(caplog):
    import smol_telemetry_otel

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    made = smol_telemetry_otel.instrument(endpoint=f"http://127.0.0.1:{port}", export_timeout=1.0, environ={})
    try:
        with caplog.at_level(logging.WARNING):
            for _ in range(3):
                agent = CodeAgent(
                    tools=[], model=ScriptedModel(["<code>\nfinal_answer(1)\n</code>"]), verbosity_level=-1
                )
                with agent:
                    assert agent.run("one") == 1
                made.flush(5)
    finally:
        smol_telemetry_otel.uninstrument(made)
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert f"127.0.0.1:{port}" in warnings[0].getMessage() and "The run goes on" in warnings[0].getMessage()


def test_with_no_instrumentor_the_core_hands_out_one_shared_do_nothing_span():
    assert not instrumentation.active()
    scope = instrumentation.span("step", "step 1", {"step.number": 1})
    assert scope is instrumentation.NO_SPAN
    with scope as inside:
        inside.set("anything", 1)
    assert instrumentation.capture() is None and instrumentation.inject() == {}
    iterator = iter([1, 2])
    assert instrumentation.traced_iter(scope, iterator) is iterator


def test_an_instrumentor_that_raises_never_breaks_a_run(caplog):
    class Broken:
        def start_span(self, *args):
            raise RuntimeError("broken instrumentor")

        def add_event(self, *args):
            raise RuntimeError("broken instrumentor")

        def capture(self):
            raise RuntimeError("broken instrumentor")

    broken = Broken()
    instrumentation.add_instrumentor(broken)  # type: ignore[arg-type]
    try:
        agent = CodeAgent(
            tools=[], model=ScriptedModel(["<code>\nfinal_answer(2)\n</code>"]), verbosity_level=-1
        )
        with agent, caplog.at_level(logging.WARNING):
            assert agent.run("two") == 2
    finally:
        instrumentation.remove_instrumentor(broken)  # type: ignore[arg-type]
    assert any("broken instrumentor" in r.getMessage() for r in caplog.records)


def test_smol_trace_reads_a_file_as_untrusted_text(tmp_path):
    import io

    from smol_telemetry_otel.tree import print_tree

    span = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": "b7ad6b7169203331",
        "name": "invoke_agent \x1b[31mred",
        "startTimeUnixNano": "1000000",
        "endTimeUnixNano": "3000000",
        "status": {"code": 2},
        "attributes": [{"key": "error.type", "value": {"stringValue": "Boom"}}],
    }
    request = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [span]}]}]}
    path = tmp_path / "mixed.jsonl"
    path.write_text("not json\n" + json.dumps(request) + "\n[1, 2]\n")
    out = io.StringIO()
    assert print_tree(str(path), out=out) == 0
    lines = out.getvalue().splitlines()
    assert "\x1b" not in out.getvalue()
    assert "2.0 ms" in lines[1] and "ERROR" in lines[1] and "error.type=Boom" in lines[1]
    assert lines[-1] == "(2 line(s) that are not OTLP JSON were skipped)"
