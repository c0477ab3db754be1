"""`smol trace` on a hostile file: escapes everywhere, bounded memory, no recursion, one-line errors.

A trace file comes from anyone. Before: a trace id or a process id in the file printed raw terminal
escapes (OSC 52 writes the clipboard, OSC 0 the window title) in the header line, a chain of spans
deeper than Python's stack crashed with RecursionError, and a 42 MB line took about 1 GB to parse.
"""

from __future__ import annotations

import io
import json
import os
import re
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from smol_telemetry_otel.tree import MAX_INDENT, print_tree

from smol_core.terminal import escape_line

# what must never reach a terminal from a file: every control character but the line ends we print
_UNSAFE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"
TITLE = "\x1b]0;pwned\x07"


def _span(trace: str, span: str, parent: str = "", name: str = "s", **extra: Any) -> dict[str, Any]:
    return {
        "traceId": trace,
        "spanId": span,
        "parentSpanId": parent,
        "name": name,
        "startTimeUnixNano": "1000000",
        "endTimeUnixNano": "2000000",
        **extra,
    }


def _line(spans: list[dict[str, Any]], resource: list[dict[str, Any]] | None = None) -> str:
    request = {
        "resourceSpans": [{"resource": {"attributes": resource or []}, "scopeSpans": [{"spans": spans}]}]
    }
    return json.dumps(request)


def _show(path: Path, attributes: bool = True) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    import contextlib

    with contextlib.redirect_stderr(err):
        code = print_tree(str(path), show_attributes=attributes, out=out)
    return code, out.getvalue(), err.getvalue()


def _assert_safe(text: str) -> None:
    unsafe = _UNSAFE.search(text.replace("\t", " "))
    assert unsafe is None, repr(text[max(0, unsafe.start() - 40) : unsafe.end() + 40])


def test_header_fields_are_escaped(tmp_path):
    pid = {"key": "process.pid", "value": {"stringValue": TITLE + "1234"}}
    path = tmp_path / "t.jsonl"
    path.write_text(
        _line([_span(OSC52, "a", name=TITLE), _span(OSC52, "b", "a", name="\u202eevil")], [pid]) + "\n"
    )
    code, out, err = _show(path)
    assert code == 0
    _assert_safe(out + err)
    assert out.splitlines()[0].startswith("trace \\x1b]52;c;")


def test_newlines_in_fields_do_not_make_lines_of_their_own(tmp_path):
    path = tmp_path / "t.jsonl"
    fake = "ok\ntrace 00 (1 spans, processes: 1)\n  invoke_agent root  [1.0 ms]"
    attrs = [{"key": "error.type", "value": {"stringValue": fake}}]
    path.write_text(_line([_span("t", "a", name=fake, attributes=attrs)]) + "\n")
    code, out, _ = _show(path)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 3  # the header, the span, its one attribute
    assert not any(line.startswith(("trace 00", "  invoke_agent root")) for line in lines)


def test_a_deep_chain_of_spans_is_walked_without_recursion(tmp_path):
    depth = 30_000
    path = tmp_path / "chain.jsonl"
    with path.open("w") as out:
        for start in range(0, depth, 1000):
            spans = [
                _span("t", f"s{i}", f"s{i - 1}" if i else "", name=f"n{i}")
                for i in range(start, min(depth, start + 1000))
            ]
            out.write(_line(spans) + "\n")
    code, out, _ = _show(path, attributes=False)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == depth + 1
    assert max(len(line) for line in lines) < 4 * MAX_INDENT + 100  # indentation is bounded too
    assert lines[-1].strip().startswith(f"[{depth}] n{depth - 1}")


def test_parent_cycles_show_every_span_once(tmp_path):
    path = tmp_path / "cycle.jsonl"
    path.write_text(
        _line(
            [_span("t", "a", "b", name="A"), _span("t", "b", "a", name="B"), _span("t", "c", "c", name="C")]
        )
        + "\n"
    )
    code, out, _ = _show(path, attributes=False)
    assert code == 0
    names = [line.strip().split()[0] for line in out.splitlines()[1:]]
    assert sorted(names) == ["A", "B", "C"]


def test_deeply_nested_json_in_a_line_is_skipped(tmp_path):
    deep_value = '{"arrayValue": {"values": [' * 5000 + '{"stringValue": "x"}' + "]}}" * 5000
    deep_span = _line([_span("t", "a", attributes=[{"key": "k", "value": "DEEP"}])]).replace(
        '"DEEP"', deep_value
    )
    path = tmp_path / "deep.jsonl"
    lines = ["[" * 200_000 + "]" * 200_000, deep_span, _line([_span("t", "ok")])]
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = _show(path)
    assert code == 0
    assert "(2 line(s) that are not OTLP JSON were skipped)" in out


def _peak_bytes(function: Any) -> int:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_line_of_millions_of_values_is_refused_before_it_is_decoded(tmp_path):
    path = tmp_path / "many.jsonl"
    path.write_text(
        '{"resourceSpans": [' + ",".join(["{}"] * 2_000_000) + "]}\n" + _line([_span("t", "a")]) + "\n"
    )
    result: list[Any] = []
    peak = _peak_bytes(lambda: result.append(_show(path, attributes=False)))
    code, out, _ = result[0]
    assert code == 0 and "(1 line(s) that are not OTLP JSON were skipped)" in out
    assert peak < 40 * 1024 * 1024  # the file's 6 MB, not 2 million dicts


def test_a_line_longer_than_the_bound_is_never_held_whole(tmp_path, monkeypatch):
    import smol_telemetry_otel.tree as tree

    monkeypatch.setattr(tree, "MAX_LINE_BYTES", 1024 * 1024)
    path = tmp_path / "long.jsonl"
    path.write_text(_line([_span("t", "a", name="x" * 20_000_000)]) + "\n" + _line([_span("t", "b")]) + "\n")
    result: list[Any] = []
    peak = _peak_bytes(lambda: result.append(_show(path, attributes=False)))
    code, out, _ = result[0]
    assert code == 0 and "(1 line(s) that are not OTLP JSON were skipped)" in out
    assert peak < 8 * 1024 * 1024


@pytest.mark.parametrize("kind", ["fifo", "device", "directory", "missing", "huge"])
def test_what_is_not_a_trace_file_is_one_line_on_stderr(tmp_path, monkeypatch, kind):
    import smol_telemetry_otel.tree as tree

    path = tmp_path / f"bad\x1b[2J{kind}"
    if kind == "fifo":
        os.mkfifo(path)  # opening it for reading would wait for a writer forever
    elif kind == "device":
        path = Path("/dev/zero")  # never ends
    elif kind == "directory":
        path.mkdir()
    elif kind == "huge":
        monkeypatch.setattr(tree, "MAX_FILE_BYTES", 100)
        path.write_text(_line([_span("t", "a")]) * 3)
    code, out, err = _show(path)
    assert code == 1 and out == ""
    assert err.startswith("smol trace: ") and err.count("\n") == 1
    _assert_safe(err)


def test_numbers_out_of_range_are_shown_not_raised(tmp_path):
    span = _span("t", "a", startTimeUnixNano=1e308, endTimeUnixNano="9" * 10_000)
    later = _span("t", "b", startTimeUnixNano="0", endTimeUnixNano="9" * 400)
    span["status"] = [2]
    span["events"] = {"not": "a list"}
    attrs = [{"key": "gen_ai.usage.input_tokens", "value": {"intValue": "NaN"}}, {"key": 5, "value": None}]
    path = tmp_path / "n.jsonl"
    path.write_text(_line([{**span, "attributes": attrs}, later]).replace("1e+308", "Infinity") + "\n")
    code, out, _ = _show(path)
    assert code == 0
    _assert_safe(out)


# --- fuzz: whatever the file holds, the viewer prints safe lines or one error, and never raises ----

_text = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40)
_any_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(-(10**500), 10**500)
    | st.floats(allow_nan=True)
    | _text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_text, children, max_size=4),
    max_leaves=20,
)
_otlp_value = st.one_of(
    st.fixed_dictionaries({"stringValue": _any_json}),
    st.fixed_dictionaries({"intValue": _any_json}),
    st.fixed_dictionaries({"arrayValue": st.fixed_dictionaries({"values": st.lists(_any_json, max_size=3)})}),
    _any_json,
)
_fuzz_span = st.fixed_dictionaries(
    {"traceId": _any_json, "spanId": _any_json},
    optional={
        "parentSpanId": _any_json,
        "name": _any_json,
        "startTimeUnixNano": _any_json,
        "endTimeUnixNano": _any_json,
        "status": st.one_of(_any_json, st.fixed_dictionaries({"code": st.just(2)})),
        "attributes": st.lists(st.fixed_dictionaries({"key": _any_json, "value": _otlp_value}), max_size=4),
        "events": st.one_of(_any_json, st.lists(st.fixed_dictionaries({"name": _any_json}), max_size=3)),
    },
)
_fuzz_line = st.one_of(
    st.lists(_fuzz_span, min_size=1, max_size=4).map(
        lambda spans: _line(spans, [{"key": "process.pid", "value": {"stringValue": "\x1b]0;t\x07"}}])
    ),
    _any_json.map(json.dumps),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_fuzz_line, max_size=5))
def test_fuzz_any_file_prints_safe_lines_or_one_error(tmp_path, lines):
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass"))
    code, out, err = _show(path)
    assert code in (0, 1)
    _assert_safe(out + err)
    assert err == "" or err.count("\n") == 1


def test_escape_line_is_the_one_helper():
    assert escape_line("a\nb\x1b\ud800\u2028") == "a\\nb\\x1b\\ud800\\u2028"


def test_what_is_held_is_what_is_shown(monkeypatch):
    import smol_telemetry_otel.tree as tree

    attrs = [{"key": f"k{i}", "value": {"intValue": "1"}} for i in range(100)]
    attrs.append({"key": "error.type", "value": {"stringValue": "Boom"}})
    events = [{"name": "retry"}, {"name": "x" * 1000}] * 50
    line = _line([_span("t", f"s{i}", attributes=attrs, events=events) for i in range(10)])
    spans, _ = tree.read_spans([line], all_attributes=False)
    assert all(s.attributes == {"error.type": "Boom"} and s.events == ["retry"] * 50 for s in spans)
    monkeypatch.setattr(tree, "MAX_HELD_ATTRIBUTES", 250)
    spans, _ = tree.read_spans([line], all_attributes=True)
    assert [len(s.attributes) for s in spans] == [101, 101, 101, 1, 1, 1, 1, 1, 1, 1]
