"""`smol trace FILE`: the spans of an OTLP JSON-lines file, printed as one tree per trace.

The file may come from anywhere (a colleague, a CI artifact), so it is read as untrusted text: a
line that is not OTLP JSON is skipped and counted, values are escaped before they reach the
terminal, and only a bounded number of spans is read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from smol_core.plugin_api import escape_controls

MAX_SPANS = 100_000
_SHOWN = (
    "gen_ai.request.model",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.tool.call.id",
    "error.type",
)


@dataclass
class SpanRecord:
    """What the tree shows of one span."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    error: bool
    attributes: dict[str, Any]
    pid: Any = None
    events: list[str] = field(default_factory=list)
    children: list[SpanRecord] = field(default_factory=list)


def _value(value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            return None
    if "arrayValue" in value:
        return [_value(v) for v in value["arrayValue"].get("values", []) if isinstance(v, dict)]
    return None


def _attributes(items: Any) -> dict[str, Any]:
    if not isinstance(items, list):
        return {}
    return {
        str(item["key"]): _value(item.get("value"))
        for item in items
        if isinstance(item, dict) and "key" in item
    }


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def read_spans(lines: Iterable[str]) -> tuple[list[SpanRecord], int]:
    """Every span in the lines, and how many lines could not be read."""
    spans: list[SpanRecord] = []
    skipped = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            for resource_spans in request["resourceSpans"]:
                resource = _attributes(resource_spans.get("resource", {}).get("attributes"))
                for scope_spans in resource_spans.get("scopeSpans", []):
                    for raw in scope_spans.get("spans", []):
                        if len(spans) >= MAX_SPANS:
                            return spans, skipped
                        spans.append(_record(raw, resource.get("process.pid")))
        except (ValueError, KeyError, TypeError, AttributeError):
            skipped += 1
    return spans, skipped


def _record(raw: dict[str, Any], pid: Any) -> SpanRecord:
    status = raw.get("status") or {}
    return SpanRecord(
        trace_id=str(raw["traceId"]),
        span_id=str(raw["spanId"]),
        parent_id=str(raw.get("parentSpanId") or ""),
        name=str(raw.get("name", "?")),
        start=_int(raw.get("startTimeUnixNano")),
        end=_int(raw.get("endTimeUnixNano")),
        error=status.get("code") == 2,
        attributes=_attributes(raw.get("attributes")),
        pid=pid,
        events=[str(e.get("name", "?")) for e in raw.get("events", []) if isinstance(e, dict)],
    )


def build_trees(spans: list[SpanRecord]) -> dict[str, list[SpanRecord]]:
    """Roots per trace id (a span whose parent is not in the file is a root), children by start time."""
    by_id = {(s.trace_id, s.span_id): s for s in spans}
    roots: dict[str, list[SpanRecord]] = {}
    for span in sorted(spans, key=lambda s: s.start):
        parent = by_id.get((span.trace_id, span.parent_id))
        if parent is not None and parent is not span:
            parent.children.append(span)
        else:
            roots.setdefault(span.trace_id, []).append(span)
    return roots


def render(roots: dict[str, list[SpanRecord]], show_attributes: bool = False) -> Iterator[str]:
    for trace_id, trace_roots in roots.items():
        pids = sorted({str(s.pid) for s in _walk(trace_roots) if s.pid is not None})
        yield f"trace {trace_id} ({len(list(_walk(trace_roots)))} spans, processes: {', '.join(pids) or '?'})"
        for root in trace_roots:
            yield from _render(root, 1, show_attributes)


def _walk(spans: list[SpanRecord]) -> Iterator[SpanRecord]:
    for span in spans:
        yield span
        yield from _walk(span.children)


def _render(span: SpanRecord, depth: int, show_attributes: bool) -> Iterator[str]:
    millis = max(0, span.end - span.start) / 1e6
    details = [f"{millis:.1f} ms"]
    if span.error:
        details.append("ERROR")
    for key in _SHOWN:
        if key in span.attributes:
            label = key.rsplit(".", 1)[-1] if ".usage." in key else key
            details.append(f"{label}={span.attributes[key]}")
    retries = span.events.count("retry")
    if retries:
        details.append(f"retries={retries}")
    line = f"{'  ' * depth}{span.name}  [{', '.join(details)}]"
    yield escape_controls(line)
    if show_attributes:
        for key, value in sorted(span.attributes.items()):
            yield escape_controls(f"{'  ' * (depth + 2)}{key} = {str(value)[:300]}")
    for child in span.children:
        yield from _render(child, depth + 1, show_attributes)


def print_tree(path: str, show_attributes: bool = False, out: TextIO | None = None) -> int:
    stream = out or sys.stdout
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            spans, skipped = read_spans(handle)
    except OSError as error:
        print(f"cannot read {path}: {error}", file=sys.stderr)
        return 1
    if not spans:
        print(f"{path} holds no spans", file=stream)
        return 1
    for line in render(build_trees(spans), show_attributes):
        print(line, file=stream)
    if skipped:
        print(f"({skipped} line(s) that are not OTLP JSON were skipped)", file=stream)
    return 0


def main(args: argparse.Namespace) -> int:
    return print_tree(args.path, show_attributes=bool(getattr(args, "attributes", False)))
