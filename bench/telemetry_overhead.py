"""What tracing costs per agent step: smol with smol-telemetry-otel on, off, and not loaded, against
smolagents with and without OpenInference's instrumentation, measured the same way.

Each mode runs in a fresh process: agents with a scripted model (no model time), `--steps` steps a
run (a tool call each; for CodeAgents, code that calls the tool in the sandbox), `--runs` runs after
a warm-up; reported is the median time per step. "on" exports every span through the SDK's batch
processor to an exporter that drops them (the cost of tracing itself); `--phoenix URL` adds a mode
that exports to a running Phoenix (or any OTLP/HTTP collector). The cost of the core's hooks with
nothing tracing is also timed on its own (the goal: at most 0.05 ms a step), since on a busy
machine it is far below the noise of whole runs.

    hatch run bench-telemetry:overhead [--steps 100] [--runs 5] [--phoenix http://127.0.0.1:6006]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

SMOL_MODES = ["absent", "off", "on", "on+content"]
SMOLAGENTS_MODES = ["smolagents", "smolagents+openinference"]


def add(a: int, b: int) -> int:
    """Adds two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


# --- smol ---------------------------------------------------------------------------------------


def _smol_agent(kind: str, steps: int) -> tuple[Any, int]:
    from smol_core import CodeAgent, ToolCallingAgent
    from smol_core.messages import ChatMessage, MessageRole
    from smol_core.testing import ScriptedModel
    from smol_core.testing.models import tool_call

    if kind == "code":
        replies: list[Any] = ["<code>\nx = add(1, 2)\n</code>"] * steps + ["<code>\nfinal_answer(x)\n</code>"]
        return CodeAgent(
            tools=[add], model=ScriptedModel(replies), verbosity_level=-1, max_steps=steps + 1
        ), steps + 1
    calls = [ChatMessage(MessageRole.ASSISTANT, "", tool_calls=[tool_call("add", {"a": 1, "b": 2})])] * steps
    final = ChatMessage(MessageRole.ASSISTANT, "", tool_calls=[tool_call("final_answer", {"answer": "3"})])
    return ToolCallingAgent(
        tools=[add], model=ScriptedModel([*calls, final]), verbosity_level=-1, max_steps=steps + 1
    ), steps + 1


def _smol_setup(mode: str, phoenix: str | None) -> Any:
    if mode in ("absent", "off"):
        return None
    import smol_telemetry_otel
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class Dropped(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    if mode == "phoenix":
        return smol_telemetry_otel.instrument(endpoint=phoenix, environ={})
    return smol_telemetry_otel.instrument(
        exporters=[Dropped()], capture_content=mode == "on+content", environ={}
    )


def _smol_run(kind: str, mode: str, steps: int, runs: int, phoenix: str | None) -> list[tuple[float, float]]:
    instrumentor = _smol_setup(mode, phoenix)
    times: list[tuple[float, float]] = []
    for attempt in range(runs + 1):  # the first run is a warm-up
        agent, total = _smol_agent(kind, steps)
        with agent:
            if kind == "code":
                agent.python_executor  # noqa: B018 - the sandbox starts before the clock does
            started, cpu = time.perf_counter(), time.process_time()
            agent.run("Add 1 and 2.", max_steps=total)
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        if attempt:
            times.append((elapsed / total * 1000, cpu / total * 1000))
    if instrumentor is not None:
        instrumentor.flush(30)
    return times


# --- smolagents ------------------------------------------------------------------------------


def _smolagents_run(
    kind: str, mode: str, steps: int, runs: int, phoenix: str | None
) -> list[tuple[float, float]]:
    from smolagents import ChatMessage, CodeAgent, Model, ToolCallingAgent, tool
    from smolagents.models import ChatMessageToolCall, ChatMessageToolCallFunction
    from smolagents.monitoring import LogLevel, TokenUsage

    provider = None
    if mode != "smolagents":
        from openinference.instrumentation.smolagents import SmolagentsInstrumentor
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

        class Dropped(SpanExporter):
            def export(self, spans: Any) -> SpanExportResult:
                return SpanExportResult.SUCCESS

        provider = TracerProvider()
        if mode == "smolagents-phoenix":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{phoenix}/v1/traces")))
        else:
            provider.add_span_processor(BatchSpanProcessor(Dropped()))
        SmolagentsInstrumentor().instrument(tracer_provider=provider)

    smolagents_add = tool(add)

    class Scripted(Model):
        def __init__(self, replies: list[Any]) -> None:
            super().__init__(model_id="scripted")
            self.replies = list(replies)

        def generate(self, messages: Any, stop_sequences: Any = None, **kwargs: Any) -> ChatMessage:
            reply = self.replies.pop(0)
            usage = TokenUsage(input_tokens=10, output_tokens=5)
            if isinstance(reply, str):
                return ChatMessage(role="assistant", content=reply, token_usage=usage)
            name, arguments = reply
            call = ChatMessageToolCall(
                id="c1", type="function", function=ChatMessageToolCallFunction(name=name, arguments=arguments)
            )
            return ChatMessage(role="assistant", content="", tool_calls=[call], token_usage=usage)

    def make() -> Any:
        if kind == "code":
            replies: list[Any] = ["<code>\nx = add(1, 2)\n</code>"] * steps + [
                "<code>\nfinal_answer(x)\n</code>"
            ]
            return CodeAgent(
                tools=[smolagents_add],
                model=Scripted(replies),
                verbosity_level=LogLevel.OFF,
                max_steps=steps + 1,
            )
        replies = [("add", {"a": 1, "b": 2})] * steps + [("final_answer", {"answer": "3"})]
        return ToolCallingAgent(
            tools=[smolagents_add], model=Scripted(replies), verbosity_level=LogLevel.OFF, max_steps=steps + 1
        )

    times: list[tuple[float, float]] = []
    make().run("Add 1 and 2.")  # warm-up
    for _ in range(runs):
        agent = make()
        started, cpu = time.perf_counter(), time.process_time()
        agent.run("Add 1 and 2.")
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        times.append((elapsed / (steps + 1) * 1000, cpu / (steps + 1) * 1000))
    if provider is not None:
        provider.force_flush()
    return times


# --- the hooks alone, with nothing tracing ----------------------------------------------------------


def hooks_when_off(repeat: int = 200_000) -> float:
    """Microseconds per step spent in the core's tracing hooks when no instrumentor is active: what a
    CodeAgent step calls (run, step, model, code and tool spans, the iterator wrapping, a capture)."""
    from smol_core import instrumentation

    assert not instrumentation.active()
    items = [1]
    started = time.perf_counter()
    for _ in range(repeat):
        scope = instrumentation.span("step", "step", None)
        for _item in instrumentation.traced_iter(scope, iter(items), end=False):
            pass
        if instrumentation.active():
            pass
        with instrumentation.span("model", "m", None):
            pass
        with instrumentation.span("code", "python", None) as code:
            code.set("output", None)
        instrumentation.capture()
        instrumentation.traced_call(None, "add", 1, add, (1, 2), {})
        scope.end()
    return (time.perf_counter() - started) / repeat * 1e6


# --- driver --------------------------------------------------------------------------------------


def child(args: argparse.Namespace) -> None:
    runner = _smolagents_run if args.mode.startswith("smolagents") else _smol_run
    times = runner(args.kind, args.mode, args.steps, args.runs, args.phoenix)
    print(
        json.dumps(
            {"wall": min(wall for wall, _ in times), "cpu": statistics.median(cpu for _, cpu in times)}
        )
    )


def measure(mode: str, kind: str, args: argparse.Namespace) -> dict[str, float] | str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "SMOL_TRACE"))}
    if mode == "absent":
        env["SMOL_DISABLE_PLUGINS"] = "smol-telemetry-otel"
    command = [sys.executable, __file__, "--child", "--mode", mode, "--kind", kind]
    command += ["--steps", str(args.steps), "--runs", str(args.runs)]
    if args.phoenix:
        command += ["--phoenix", args.phoenix]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        return "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:200]
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--phoenix", default=None, help="An OTLP/HTTP base URL (Phoenix) to export to as well."
    )
    parser.add_argument("--kinds", default="tool,code")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="off", help=argparse.SUPPRESS)
    parser.add_argument("--kind", default="tool", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    print(f"tracing hooks with nothing tracing: {hooks_when_off():.2f} µs per step (goal: <= 50 µs)")
    modes = SMOL_MODES + (["phoenix"] if args.phoenix else [])
    try:
        import smolagents  # noqa: F401

        modes += SMOLAGENTS_MODES + (["smolagents-phoenix"] if args.phoenix else [])
    except ImportError:
        print("(smolagents is not installed here: run in the bench-telemetry env to compare with it)")
    for kind in args.kinds.split(","):
        print(
            f"\n{kind} agent, {args.steps} scripted steps a run, {args.runs} runs, ms per step: the fastest"
            " run's wall time, and the median run's CPU time of the host process (threads included;"
            " the sandbox worker's not)"
        )
        baseline: dict[str, dict[str, float]] = {}
        for mode in modes:
            result = measure(mode, kind, args)
            if isinstance(result, str):
                print(f"  {mode:<20} {result}")
                continue
            family = "smolagents" if mode.startswith("smolagents") else "smol"
            base = baseline.setdefault(family, result)
            print(
                f"  {mode:<20} wall {result['wall']:7.3f} ({_delta(result['wall'], base['wall'])})"
                f"   cpu {result['cpu']:7.3f} ({_delta(result['cpu'], base['cpu'])})"
            )


def _delta(value: float, base: float) -> str:
    return f"{value - base:+.3f} = {(value - base) / base * 100:+.0f}%"


if __name__ == "__main__":
    main()
