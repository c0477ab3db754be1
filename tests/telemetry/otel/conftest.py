"""Traces through the real OpenTelemetry SDK into its in-memory exporter and metric reader."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import smol_telemetry_otel
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from smol_core import instrumentation


@dataclass
class Traced:
    exporter: InMemorySpanExporter
    metrics: InMemoryMetricReader
    instrumentor: Any

    def spans(self) -> list[ReadableSpan]:
        self.instrumentor.flush(10)
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.name == name]

    def one(self, name: str) -> ReadableSpan:
        found = self.named(name)
        assert len(found) == 1, [s.name for s in self.spans()]
        return found[0]

    def children(self, parent: ReadableSpan) -> list[str]:
        return [
            s.name
            for s in sorted(self.spans(), key=lambda s: s.start_time or 0)
            if s.parent is not None and s.parent.span_id == parent.context.span_id
        ]

    def metric_points(self, name: str) -> list[Any]:
        data = self.metrics.get_metrics_data()
        points: list[Any] = []
        for resource in data.resource_metrics if data else []:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        points.extend(metric.data.data_points)
        return points


def _traced(capture_content: bool, max_chars: int = 4096) -> Iterator[Traced]:
    exporter = InMemorySpanExporter()
    reader = InMemoryMetricReader()
    made = smol_telemetry_otel.instrument(
        exporters=[exporter],
        capture_content=capture_content,
        meter_provider=MeterProvider(metric_readers=[reader]),
        max_attribute_chars=max_chars,
        environ={},
    )
    assert made is not None
    try:
        yield Traced(exporter, reader, made)
    finally:
        smol_telemetry_otel.uninstrument(made)
        assert made not in instrumentation.instrumentors()


@pytest.fixture
def traced() -> Iterator[Traced]:
    """Tracing on, content off (the default users get)."""
    yield from _traced(capture_content=False)


@pytest.fixture
def traced_content() -> Iterator[Traced]:
    """Tracing on, content opted in, attributes cut at 1,000 characters."""
    yield from _traced(capture_content=True, max_chars=1000)
