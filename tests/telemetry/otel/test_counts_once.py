"""Switching tracing on is idempotent, whatever the order: the environment (`SMOL_TRACE_FILE`) and
`instrument()` together give each span once and one trace per run, never two instrumentors side by
side; `instrument()` twice, or with other arguments, leaves one (the latest call's); and the settings
of the host's `instrument()` reach a team's agent processes, so a team traced without any variable
of the environment is still one trace.

Each case runs in a fresh interpreter: the environment is read once per process (at its first run)."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from smol_telemetry_otel.tree import build_trees, read_spans

from smol_core import run_agents

SCRIPT = textwrap.dedent(
    """
    import sys
    import smol_telemetry_otel
    from smol_core import CodeAgent, instrumentation
    from smol_core.testing import ScriptedModel

    def run():
        model = ScriptedModel(["<code>\\nfinal_answer(6 * 7)\\n</code>"])
        with CodeAgent(tools=[], model=model, verbosity_level=-1) as agent:
            assert agent.run("six times seven") == 42

    for word in sys.argv[1:]:
        if word == "run":
            run()
        elif word == "instrument":
            smol_telemetry_otel.instrument()
        elif word.startswith("instrument="):
            smol_telemetry_otel.instrument(trace_file=word.split("=", 1)[1])
    print("active:", len(instrumentation.instrumentors()))
    smol_telemetry_otel.uninstrument()  # exports what is buffered
    """
)


def traced_run(*steps: str, **env: str) -> str:
    """Run SCRIPT's `steps` in a fresh process with only `env` for tracing; what it printed."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "SMOL_TRACE"))}
    environ.update(env)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *steps], capture_output=True, text=True, env=environ, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def spans_of(path: Path) -> tuple[list[str], int]:
    """The span names in `path` and how many traces they make."""
    if not path.exists():
        return [], 0
    spans, skipped = read_spans(path.read_text().splitlines())
    assert skipped == 0
    return sorted(s.name for s in spans), len(build_trees(spans))


@pytest.fixture(scope="module")
def one_run(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The spans of one run traced by the environment alone: what every order must give."""
    path = tmp_path_factory.mktemp("baseline") / "run.jsonl"
    assert traced_run("run", SMOL_TRACE_FILE=str(path)) == "active: 1"
    names, traces = spans_of(path)
    assert traces == 1 and names.count("invoke_agent CodeAgent") == 1
    return names


@pytest.mark.parametrize(
    "steps",
    [
        ("instrument", "run"),  # environment, then instrument() before the first run
        ("instrument=FILE", "run"),  # the same file named again
        ("run", "instrument", "run"),  # the environment switched on at a first run, then instrument()
        ("instrument", "instrument", "run"),
    ],
    ids=["env-then-instrument", "env-then-instrument-same-file", "env-run-then-instrument", "twice"],
)
def test_environment_and_instrument_trace_each_span_once(tmp_path, one_run, steps):
    path = tmp_path / "run.jsonl"
    steps = tuple(step.replace("FILE", str(path)) for step in steps)
    assert traced_run(*steps, SMOL_TRACE_FILE=str(path)) == "active: 1"
    names, traces = spans_of(path)
    runs = steps.count("run")
    assert traces == runs  # one trace per run, not one per instrumentor
    assert names == sorted(one_run * runs)


def test_instrument_first_then_the_environment_at_the_first_run(tmp_path, one_run):
    path = tmp_path / "run.jsonl"
    assert traced_run(f"instrument={path}", "run", SMOL_TRACE_FILE=str(path)) == "active: 1"
    assert spans_of(path) == (one_run, 1)


def test_instrument_twice_without_the_environment_traces_once(tmp_path, one_run):
    path = tmp_path / "run.jsonl"
    assert traced_run(f"instrument={path}", f"instrument={path}", "run") == "active: 1"
    assert spans_of(path) == (one_run, 1)


def test_the_latest_instrument_call_wins(tmp_path, one_run):
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    assert traced_run(f"instrument={first}", f"instrument={second}", "run") == "active: 1"
    assert spans_of(first) == ([], 0)
    assert spans_of(second) == (one_run, 1)


def test_instrument_with_its_own_arguments_wins_over_the_environment(tmp_path, one_run):
    from_env, chosen = tmp_path / "env.jsonl", tmp_path / "chosen.jsonl"
    assert traced_run(f"instrument={chosen}", "run", SMOL_TRACE_FILE=str(from_env)) == "active: 1"
    assert spans_of(from_env) == ([], 0)
    assert spans_of(chosen) == (one_run, 1)


def test_a_team_traced_by_instrument_alone_is_one_trace(tmp_path, monkeypatch):
    """No variable of the environment: the host's `instrument()` settings reach both agents."""
    import smol_telemetry_otel
    from test_team_traces import check_one_trace_across_two_processes, two_agents

    for key in list(os.environ):
        if key.startswith(("OTEL_", "SMOL_TRACE")):
            monkeypatch.delenv(key)
    path = tmp_path / "team.jsonl"
    made = smol_telemetry_otel.instrument(trace_file=path, environ={})
    assert made is not None
    try:
        result = run_agents("Compute 5 + 3", num_agents=2, settings=two_agents(), deadline_seconds=120)
    finally:
        smol_telemetry_otel.uninstrument(made)
    assert result.state == "success" and result.output == "8"
    assert "SMOL_TRACE_FILE" not in os.environ  # the host's own environment is left as it was
    check_one_trace_across_two_processes(path)


class _Receiver(http.server.BaseHTTPRequestHandler):
    """An outside OTLP/HTTP receiver: it decodes each export and keeps its spans."""

    spans: list[tuple[str, str]] = []  # (trace id, span name), of every request received

    def do_POST(self) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                type(self).spans.extend((span.trace_id.hex(), span.name) for span in scope.spans)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.mark.parametrize("steps", [("instrument", "run"), ("run", "instrument", "run")])
def test_an_outside_otlp_receiver_counts_each_span_once(one_run, steps):
    """`OTEL_EXPORTER_OTLP_ENDPOINT` and `instrument()` together: one trace per run, each span once."""
    _Receiver.spans = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        endpoint = f"http://127.0.0.1:{server.server_address[1]}"
        assert traced_run(*steps, OTEL_EXPORTER_OTLP_ENDPOINT=endpoint) == "active: 1"
    finally:
        server.shutdown()
        server.server_close()
    runs = steps.count("run")
    assert len({trace for trace, _ in _Receiver.spans}) == runs
    assert sorted(name for _, name in _Receiver.spans) == sorted(one_run * runs)
