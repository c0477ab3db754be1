"""`smol team` on a hostile file: bounded before it is parsed, every field on one escaped line,
and one clear error for anything else.

Before: an out-of-range timestamp crashed the viewer, a 50 MB file took 2.4 GB (decoded whole before
any check of its shape), a FIFO or `/dev/zero` never ended, and a message body with newlines printed
lines that looked like the viewer's own.
"""

from __future__ import annotations

import json
import os
import re
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from smol_core.cli.smol import main as smol_main
from smol_core.teams.record import TeamRecordError, load_team_run, render_team_run

_UNSAFE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _record(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "format": "smol-team-run/1",
        "output": "8",
        "state": "success",
        "started": 10.0,
        "duration": 1.5,
        "agents": [{"agent_id": 0, "state": "success", "steps": 2, "output": "8", "error": None}],
        "messages": [
            {"direction": "sent", "id": "m1", "sender": 0, "recipient": 1, "timestamp": 10.5, "message": "hi"}
        ],
    }
    record.update(changes)
    return record


def _write(path: Path, record: Any) -> Path:
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    return path


def _assert_safe(text: str) -> None:
    unsafe = _UNSAFE.search(text)
    assert unsafe is None, repr(text[max(0, unsafe.start() - 40) : unsafe.end() + 40])


@pytest.mark.parametrize("started", ["1e300", "-1e300", "NaN", "Infinity", "9" * 400, "1e18", "-62135596801"])
def test_a_timestamp_out_of_range_is_shown_or_refused_never_raised(tmp_path, started):
    text = json.dumps(_record(started="STARTED")).replace('"STARTED"', started)
    try:
        record = load_team_run(_write(tmp_path / "run.json", text))
    except TeamRecordError as error:
        assert "\n" not in str(error)
        return
    shown = render_team_run(record)
    assert shown.startswith("Team run of 1 agents, ")


def test_an_integer_of_too_many_digits_is_one_error(tmp_path):
    text = json.dumps(_record()).replace('"agent_id": 0', '"agent_id": ' + "9" * 5000)
    with pytest.raises(TeamRecordError, match="not JSON"):
        load_team_run(_write(tmp_path / "run.json", text))


def _peak_bytes(function: Any) -> int:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_file_of_millions_of_values_is_refused_before_it_is_decoded(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(_record(messages=["MANY"])).replace('"MANY"', ",".join(["{}"] * 3_000_000)))

    def load() -> None:
        with pytest.raises(TeamRecordError, match="more than"):
            load_team_run(path)

    assert _peak_bytes(load) < 64 * 1024 * 1024  # the file's 9 MB (and its text), not 3 million dicts


@pytest.mark.parametrize("kind", ["fifo", "device", "directory", "missing"])
def test_what_is_not_a_team_run_file_is_one_clear_error(tmp_path, kind):
    path = tmp_path / f"run\x1b]0;t\x07{kind}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    with pytest.raises(TeamRecordError) as caught:
        load_team_run(path)
    assert "\n" not in str(caught.value)
    _assert_safe(str(caught.value))


def test_smol_team_prints_one_escaped_error_line(tmp_path, capsys):
    path = _write(tmp_path / "bad\x1b[2J.json", "not json")
    assert smol_main(["team", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("smol team: ") and err.count("\n") == 1
    _assert_safe(err)


def test_a_message_body_cannot_print_lines_of_its_own(tmp_path):
    body = "x\nagent 7: success, 1 steps - answer: 42\n\x1b]52;c;cHduZWQ=\x07"
    record = _record(
        messages=[
            {
                "direction": "sent",
                "id": "m\n1",
                "sender": 0,
                "recipient": 1,
                "timestamp": 11.0,
                "message": body,
            }
        ],
        state="ok\nAnswer: forged",
    )
    shown = render_team_run(load_team_run(_write(tmp_path / "run.json", record)))
    _assert_safe(shown.replace("\n", ""))
    assert not any(line.startswith(("agent 7", "Answer: forged")) for line in shown.splitlines())


# --- fuzz ---------------------------------------------------------------------------------------

_text = st.text(alphabet=st.characters(codec=None), max_size=30)
_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(-(10**500), 10**500)
    | st.floats(allow_nan=True, allow_infinity=True)
    | _text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_text, children, max_size=3),
    max_leaves=12,
)
_number = st.one_of(st.integers(), st.floats(allow_nan=True, allow_infinity=True), _json)
_agent = st.fixed_dictionaries(
    {"agent_id": st.one_of(st.integers(), _json), "state": st.one_of(_text, _json)},
    optional={
        "steps": _number,
        "output": st.one_of(st.none(), _text, _json),
        "error": st.one_of(st.none(), _text),
    },
)
_message = st.fixed_dictionaries(
    {"id": st.one_of(_text, _json), "sender": _number, "recipient": _number, "timestamp": _number},
    optional={"direction": st.sampled_from(["sent", "received", "other"]), "message": _json},
)
_fuzz_record = st.fixed_dictionaries(
    {
        "format": st.sampled_from(["smol-team-run/1", "x"]),
        "agents": st.one_of(st.lists(_agent, max_size=3), _json),
        "messages": st.one_of(st.lists(_message, max_size=4), _json),
    },
    optional={
        "output": st.one_of(st.none(), _text, _json),
        "state": st.one_of(_text, _json),
        "started": _number,
        "duration": st.one_of(st.none(), _number),
    },
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.one_of(_fuzz_record.map(json.dumps), _json.map(json.dumps), st.binary(max_size=100)))
def test_fuzz_any_file_shows_safe_lines_or_one_error(tmp_path, content):
    path = tmp_path / "run.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    try:
        record = load_team_run(path)
    except TeamRecordError as error:
        assert "\n" not in str(error)
        _assert_safe(str(error))
        return
    shown = render_team_run(record)
    for line in shown.splitlines():
        _assert_safe(line)
