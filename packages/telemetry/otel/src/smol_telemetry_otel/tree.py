"""`smol trace FILE`: the spans of an OTLP JSON-lines file, printed as one tree per trace.

The file may come from anywhere (a colleague, a CI artifact), so it is read as untrusted text
(`smol_core.untrusted_files`): a regular file of bounded size, in lines of bounded length, each
line's JSON counted and measured before it is decoded; a line that is not OTLP JSON is skipped and
counted; only a bounded number of spans, attributes and characters per value is kept; the trees are
walked without recursion (a chain of a hundred thousand spans is a list, not a stack overflow), and
every line printed, headers included, goes through `escape_line`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from smol_core.plugin_api import UntrustedFileError, escape_line, loads_shaped, untrusted_lines

MAX_SPANS = 100_000
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_LINE_VALUES = 500_000
MAX_ATTRIBUTES = 128
MAX_HELD_ATTRIBUTES = 200_000
MAX_EVENTS = 256
MAX_VALUE_CHARS = 1000
MAX_ID_CHARS = 64
MAX_NAME_CHARS = 300
MAX_INDENT = 32

_SHOWN = (
    "gen_ai.request.model",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.tool.call.id",
    "error.type",
)
_SHOWN_KEYS = frozenset(_SHOWN)
_PID = frozenset({"process.pid"})


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
    """An OTLP AnyValue as a plain value: text cut, arrays bounded (their depth is bounded already:
    the line's JSON was measured before it was decoded)."""
    if not isinstance(value, dict):
        return None
    if "stringValue" in value:
        return _cut(value["stringValue"], MAX_VALUE_CHARS)
    for key in ("boolValue", "doubleValue"):
        if key in value:
            item = value[key]
            return item if isinstance(item, bool | int | float) else _cut(item, MAX_VALUE_CHARS)
    if "intValue" in value:
        return _int(value["intValue"])
    if "arrayValue" in value and isinstance(value["arrayValue"], dict):
        items = value["arrayValue"].get("values")
        if isinstance(items, list):
            return [_value(v) for v in items[:MAX_ATTRIBUTES] if isinstance(v, dict)]
    return None


def _cut(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _attributes(items: Any, keep: frozenset[str] | None = None) -> dict[str, Any]:
    """The attributes of a span: all of them (at most `MAX_ATTRIBUTES`), or those in `keep`."""
    if not isinstance(items, list):
        return {}
    kept: dict[str, Any] = {}
    for item in items[:MAX_ATTRIBUTES]:
        if not isinstance(item, dict) or "key" not in item:
            continue
        key = _cut(item["key"], MAX_NAME_CHARS)
        if keep is None or key in keep:
            kept[key] = _value(item.get("value"))
    return kept


def _int(value: Any) -> int:
    """An integer of the file (a time, a count), or 0: not a number, too many digits, infinite, or
    outside 64 bits (no clock or counter writes more, and a larger one would not fit a float)."""
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        return 0
    return number if -(2**63) <= number < 2**64 else 0


def read_spans(lines: Iterable[str | None], all_attributes: bool = True) -> tuple[list[SpanRecord], int]:
    """Every span in the lines, and how many lines could not be read (None: a line too long to
    read, from `untrusted_lines`). Without `all_attributes`, a span keeps only the attributes the
    tree shows: what is held stays a small multiple of the spans, not of the file."""
    keep = None if all_attributes else _SHOWN_KEYS
    spans: list[SpanRecord] = []
    skipped = held = 0
    for line in lines:
        if line is None:
            skipped += 1
            continue
        if not line.strip():
            continue
        try:
            request = loads_shaped(line, MAX_LINE_VALUES)
            for resource_spans in request["resourceSpans"]:
                resource = _attributes(resource_spans.get("resource", {}).get("attributes"), _PID)
                for scope_spans in resource_spans.get("scopeSpans", []):
                    for raw in scope_spans.get("spans", []):
                        if len(spans) >= MAX_SPANS:
                            return spans, skipped
                        if keep is None and held > MAX_HELD_ATTRIBUTES:
                            keep = _SHOWN_KEYS  # enough held: the rest keep what the tree shows
                        spans.append(_record(raw, resource.get("process.pid"), keep))
                        held += len(spans[-1].attributes)
        except (ValueError, KeyError, TypeError, AttributeError):
            skipped += 1
    return spans, skipped


def _record(raw: dict[str, Any], pid: Any, keep: frozenset[str] | None = None) -> SpanRecord:
    status = raw.get("status") or {}
    events = raw.get("events") or []
    return SpanRecord(
        trace_id=_cut(raw["traceId"], MAX_ID_CHARS),
        span_id=_cut(raw["spanId"], MAX_ID_CHARS),
        parent_id=_cut(raw.get("parentSpanId") or "", MAX_ID_CHARS),
        name=_cut(raw.get("name", "?"), MAX_NAME_CHARS),
        start=_int(raw.get("startTimeUnixNano")),
        end=_int(raw.get("endTimeUnixNano")),
        error=isinstance(status, dict) and status.get("code") == 2,
        attributes=_attributes(raw.get("attributes"), keep),
        pid=None if pid is None else _cut(pid, MAX_ID_CHARS),
        events=[  # only the events the tree counts
            "retry"
            for e in (events[:MAX_EVENTS] if isinstance(events, list) else [])
            if isinstance(e, dict) and e.get("name") == "retry"
        ],
    )


def build_trees(spans: list[SpanRecord]) -> dict[str, list[SpanRecord]]:
    """Roots per trace id (a span whose parent is not in the file is a root), children by start time.

    A file can make parents a cycle (A under B under A): such spans would hang from no root, so the
    first of each cycle becomes a root and every span is shown once."""
    by_id = {(s.trace_id, s.span_id): s for s in spans}
    roots: dict[str, list[SpanRecord]] = {}
    ordered = sorted(spans, key=lambda s: s.start)
    parent_of: dict[int, SpanRecord] = {}
    for span in ordered:
        parent = by_id.get((span.trace_id, span.parent_id))
        if parent is not None and parent is not span:
            parent.children.append(span)
            parent_of[id(span)] = parent
        else:
            roots.setdefault(span.trace_id, []).append(span)
    reached = {id(span) for span in _walk([r for rs in roots.values() for r in rs])}
    for span in ordered:
        if id(span) in reached:
            continue
        parent_of[id(span)].children.remove(span)  # cut the cycle above it
        roots.setdefault(span.trace_id, []).append(span)
        reached.update(id(s) for s in _walk([span]))
    return roots


def render(roots: dict[str, list[SpanRecord]], show_attributes: bool = False) -> Iterator[str]:
    for trace_id, trace_roots in roots.items():
        spans = list(_walk(trace_roots))
        pids = sorted({str(s.pid) for s in spans if s.pid is not None})
        yield _line(f"trace {trace_id} ({len(spans)} spans, processes: {', '.join(pids) or '?'})")
        for depth, span in _walk_with_depth(trace_roots, 1):
            yield from _render(span, depth, show_attributes)


def _walk(spans: list[SpanRecord]) -> Iterator[SpanRecord]:
    for _depth, span in _walk_with_depth(spans, 0):
        yield span


def _walk_with_depth(spans: list[SpanRecord], depth: int) -> Iterator[tuple[int, SpanRecord]]:
    """Each span before its children, depth first, with an explicit stack: no recursion."""
    stack = [(depth, span) for span in reversed(spans)]
    while stack:
        level, span = stack.pop()
        yield level, span
        stack.extend((level + 1, child) for child in reversed(span.children))


def _line(text: str) -> str:
    """One printed line: every control character shown as its escape, newlines included."""
    return escape_line(text)


def _indent(depth: int) -> str:
    """Indentation that stays readable (and bounded) however deep the tree goes."""
    return "  " * depth if depth <= MAX_INDENT else "  " * MAX_INDENT + f"[{depth}] "


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
    yield _line(f"{_indent(depth)}{span.name}  [{', '.join(details)}]")
    if show_attributes:
        for key, value in sorted(span.attributes.items()):
            yield _line(f"{_indent(depth + 2)}{key} = {str(value)[:300]}")


def print_tree(path: str, show_attributes: bool = False, out: TextIO | None = None) -> int:
    """Print the trees of the trace file at `path`; problems with the file are one line on stderr."""
    stream = out or sys.stdout
    try:
        lines = untrusted_lines(path, MAX_FILE_BYTES, MAX_LINE_BYTES)
        spans, skipped = read_spans(lines, all_attributes=show_attributes)
    except UntrustedFileError as error:
        print(f"smol trace: {_line(str(error))}", file=sys.stderr)
        return 1
    if not spans:
        print(_line(f"{path} holds no spans"), file=stream)
        return 1
    for line in render(build_trees(spans), show_attributes):
        print(line, file=stream)
    if skipped:
        print(f"({skipped} line(s) that are not OTLP JSON were skipped)", file=stream)
    return 0


def main(args: argparse.Namespace) -> int:
    return print_tree(args.path, show_attributes=bool(getattr(args, "attributes", False)))
