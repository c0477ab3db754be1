"""smol-telemetry-otel's hooks. Imports nothing heavy: OpenTelemetry loads only when tracing is on.

The instrumentor's factory reads the standard environment first (`OTEL_SDK_DISABLED`,
`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, and smol's `SMOL_TRACE_FILE`):
an installed plugin nobody switched on returns None there and costs no import.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from typing import Any

from smol_core.plugin_api import CommandSpec, InstrumentorSpec, hookimpl


def tracing_wanted(environ: Any = None) -> bool:
    """Whether the environment asks for traces (and does not switch the SDK off)."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return bool(
        env.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        or env.get("SMOL_TRACE_FILE")
    )


def _from_environment() -> Any:
    if not tracing_wanted():
        return None
    from smol_telemetry_otel.setup import from_environment

    return from_environment()


def _configure_trace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="A file of OTLP JSON lines (`smolagent ... --trace-file run.jsonl`).")
    parser.add_argument("--attributes", action="store_true", help="Show every span's attributes.")


def _run_trace(args: argparse.Namespace) -> int:
    from smol_telemetry_otel.tree import main

    return main(args)


@hookimpl
def smol_instrumentors() -> Iterable[InstrumentorSpec]:
    return [
        InstrumentorSpec(
            "otel",
            _from_environment,
            "OpenTelemetry traces and metrics (GenAI conventions), on when OTEL_EXPORTER_OTLP_ENDPOINT "
            "or SMOL_TRACE_FILE is set.",
        )
    ]


@hookimpl
def smol_commands() -> Iterable[CommandSpec]:
    return [CommandSpec("trace", "Print the spans of a trace file as a tree.", _run_trace, _configure_trace)]
