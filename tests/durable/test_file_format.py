"""Checkpoints and cassettes someone hands you: one header, one budget per file, one error class.

Before: each value of a file had a budget of its own, so a 2.6 MB checkpoint of many small
compressed images took 1.9 GB to read; `Infinity` or `1e300` in a numeric field ended `show`,
`approve`, `list` and `resume` in a traceback (`int(float('inf'))`); a checkpoint of any other smol
version was refused, so a patch upgrade stranded every run in flight.
"""

from __future__ import annotations

import json
import math
import resource
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hostile_files import HOSTILE_VALUES, SCALARS, image_value, paths, replaced, to_json
from hypothesis import HealthCheck, given, settings, strategies as st

import smol_core
from smol_core.durable import (
    CheckpointFormatError,
    RunLockedError,
    SQLiteStore,
    checkpoint as checkpoint_format,
)
from smol_core.durable.checkpoint import Checkpoint
from smol_core.durable.file_format import FILE_DECODED_BYTES
from smol_core.memory import ActionStep, TaskStep, ToolCall
from smol_core.messages import ChatMessage, ChatMessageToolCall, MessageRole, Timing, TokenUsage
from smol_core.replay.cassette import CassetteError, CassetteWriter, ModelEvent, ToolEvent, read_cassette

FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def _checkpoint() -> Checkpoint:
    reply = ChatMessage(
        role=MessageRole.ASSISTANT,
        content="x = 1",
        tool_calls=[
            ChatMessageToolCall.coerce({"id": "c1", "function": {"name": "f", "arguments": {"a": 1}}})
        ],
        token_usage=TokenUsage(10, 3),
    )
    step = ActionStep(
        step_number=1,
        timing=Timing(1.0, 2.0),
        tool_calls=[ToolCall("f", {"a": 1}, "c1")],
        model_output_message=reply,
        model_output="x = 1",
        code_action="x = 1",
        observations="ok",
        action_output=1,
        token_usage=TokenUsage(10, 3),
    )
    return Checkpoint(
        run_id="r1",
        agent="CodeAgent",
        task="add",
        step_number=2,
        steps=[TaskStep(task="add"), step],
        namespace={"x": 1, "y": [1.5, "a", {"k": (1, 2)}]},
        uncaptured=[("f", "function")],
        modules={"np": "numpy"},
        pending_replies=[reply],
        tool_states={"inbox": {"position": 3}},
        max_steps=10,
        planning_interval=2,
    )


GOOD_CHECKPOINT = json.loads(checkpoint_format.dump(_checkpoint()))
CHECKPOINT_PATHS = paths(GOOD_CHECKPOINT)


MEMORY_BOUND_MIB = FILE_DECODED_BYTES // 2**20 + 128
"""What reading one hostile file may add to this process's peak memory: the file's budget and parsing."""


@contextmanager
def _within_memory_bound() -> Iterator[None]:
    """Fails if the block raised this process's peak memory by more than the bound (a peak reached
    before, by another test, only makes the check weaker: it can never fail because of it)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    yield
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024
    assert grown < MEMORY_BOUND_MIB, f"reading one file raised the peak memory by {grown} MiB"


def _one_line(error: BaseException) -> str:
    text = str(error)
    assert text and "\n" not in text and "\r" not in text
    return text


# --- checkpoints ----------------------------------------------------------------------------------
def test_a_checkpoint_round_trips() -> None:
    state = checkpoint_format.load(checkpoint_format.dump(_checkpoint()))
    assert state.namespace == {"x": 1, "y": [1.5, "a", {"k": (1, 2)}]}
    assert state.steps[1].token_usage == TokenUsage(10, 3)  # type: ignore[attr-defined]
    assert state.planning_interval == 2 and state.uncaptured == [("f", "function")]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("step_number", "Infinity"),
        ("step_number", "1e300"),
        ("step_number", "NaN"),
        ("step_number", "-1"),
        ("step_number", '"3"'),
        ("max_steps", "Infinity"),
        ("planning_interval", "0"),
        ("run_id", "7"),
        ("run_id", '"r\\u001b[2J"'),
        ("status", '"on fire"'),
        ("namespace", "[]"),
        ("modules", '{"np": 3}'),
        ("uncaptured", '[["a"]]'),
        ("steps", '[{"type": "action"}]'),
        ("pending_replies", '[{"role": "assistant", "token_usage": [Infinity, 1]}]'),
        ("pending_replies", '[{"role": "assistant", "token_usage": [1e300, 1]}]'),
        ("pending_replies", '[{"role": "wizard"}]'),
        ("smol_version", '"1.0\\n2.0"'),
    ],
)
def test_a_bad_field_is_one_line_of_checkpoint_format_error(field: str, value: str) -> None:
    document = dict(GOOD_CHECKPOINT, **{field: "HOLE"})
    data = json.dumps(document).replace('"HOLE"', value).encode()
    with pytest.raises(CheckpointFormatError) as raised:
        checkpoint_format.load(data, "the checkpoint of run 'r1'")
    assert _one_line(raised.value).startswith("the checkpoint of run 'r1'")


def test_a_step_timing_of_infinity_is_refused() -> None:
    document = replaced(GOOD_CHECKPOINT, ("steps", 1, "timing"), [math.inf, 1.0])
    with pytest.raises(CheckpointFormatError, match="finite"):
        checkpoint_format.load(json.dumps(document).encode())


def test_every_field_of_a_checkpoint_given_each_hostile_value_is_one_error_class() -> None:
    for path in CHECKPOINT_PATHS:
        for value in SCALARS:
            data = to_json(replaced(GOOD_CHECKPOINT, path, value)).encode()
            try:
                checkpoint_format.load(data)
            except CheckpointFormatError as error:
                _one_line(error)


@FUZZ
@given(path=st.sampled_from(CHECKPOINT_PATHS), value=HOSTILE_VALUES)
def test_fuzz_checkpoint_load_raises_only_checkpoint_format_error(path: tuple[Any, ...], value: Any) -> None:
    data = to_json(replaced(GOOD_CHECKPOINT, path, value)).encode()
    with _within_memory_bound():
        try:
            checkpoint_format.load(data)
        except CheckpointFormatError as error:
            _one_line(error)


def test_one_budget_for_the_whole_checkpoint_not_one_per_value() -> None:
    """Each image fits the one-image limit; 40 of them decode to 1.3 GB, over the file's budget."""
    document = dict(GOOD_CHECKPOINT, namespace={f"v{n}": image_value() for n in range(40)})
    data = json.dumps(document).encode()
    assert len(data) < 2_000_000
    with pytest.raises(CheckpointFormatError) as raised:
        checkpoint_format.load(data)
    assert f"more than {FILE_DECODED_BYTES}" in _one_line(raised.value)


_PEAK = """
import json, resource, sys
sys.path.insert(0, {tests!r})
from hostile_files import image_bomb
from PIL import Image
import smol_core.durable.checkpoint as c
from smol_core.replay.cassette import read_cassette
kind, path = sys.argv[1], sys.argv[2]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    c.load(open(path, "rb").read()) if kind == "checkpoint" else read_cassette(path)
except Exception as error:
    print(type(error).__name__)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


def _peak_mib(tmp_path: Path, kind: str, path: Path) -> tuple[str, int]:
    script = _PEAK.format(tests=str(Path(__file__).parent))
    out = subprocess.run(
        [sys.executable, "-c", script, kind, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout.split()
    return out[0], int(out[-1])


def test_an_image_bomb_checkpoint_is_refused_within_a_memory_bound(tmp_path: Path) -> None:
    path = tmp_path / "bomb.json"
    document = dict(GOOD_CHECKPOINT, namespace={f"v{n}": image_value() for n in range(100)})
    path.write_text(json.dumps(document))
    error, peak = _peak_mib(tmp_path, "checkpoint", path)
    assert error == "CheckpointFormatError"
    assert peak < MEMORY_BOUND_MIB, f"reading a {path.stat().st_size:,} B checkpoint took {peak} MiB"


def test_a_checkpoint_of_another_smol_version_of_this_format_loads() -> None:
    document = dict(GOOD_CHECKPOINT, smol_version="0.0.1")
    assert checkpoint_format.load(json.dumps(document).encode()).run_id == "r1"


def test_a_checkpoint_of_another_format_version_is_refused_naming_both() -> None:
    document = dict(GOOD_CHECKPOINT, smol_version="2.0.0", format_version=2)
    with pytest.raises(CheckpointFormatError) as raised:
        checkpoint_format.load(json.dumps(document).encode())
    line = _one_line(raised.value)
    assert "format version 2" in line and "smol 2.0.0" in line
    assert f"smol {smol_core.__version__}" in line and "format version 1" in line


# --- cassettes ------------------------------------------------------------------------------------
def _cassette_lines(tmp_path: Path) -> list[Any]:
    path = tmp_path / "good.jsonl"
    writer = CassetteWriter(path, "add")
    reply = _checkpoint().pending_replies[0]
    writer.model(ModelEvent(1, ["[user]", "add"], reply))
    writer.tool(ToolEvent(1, "f", {"a": 1}, result=[1, 2.5]))
    writer.tool(ToolEvent(1, "g", {}, error="boom", agent="helper"))
    writer.close()
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write_lines(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join(to_json(line) + "\n" for line in lines))
    return path


def test_a_cassette_carries_the_common_header(tmp_path: Path) -> None:
    header = _cassette_lines(tmp_path)[0]
    assert header["format"] == "smol.cassette" and header["format_version"] == 1
    assert header["smol_version"] == smol_core.__version__


def test_a_cassette_of_the_older_header_still_reads(tmp_path: Path) -> None:
    lines = _cassette_lines(tmp_path)
    lines[0] = {"format": "smol.cassette", "version": 1, "task": "add"}
    cassette = read_cassette(_write_lines(tmp_path / "old.jsonl", lines))
    assert cassette.task == "add" and len(cassette.events) == 3


@pytest.mark.parametrize(
    ("line", "value"),
    [
        (1, {"step": math.inf}),
        (1, {"step": 1e300}),
        (2, {"step": -1}),
        (3, {"agent": 5}),
        (2, {"tool": None}),
    ],
)
def test_a_bad_cassette_field_is_one_line_of_cassette_error(tmp_path: Path, line: int, value: Any) -> None:
    lines = _cassette_lines(tmp_path)
    lines[line] = {**lines[line], **value}
    with pytest.raises(CassetteError) as raised:
        read_cassette(_write_lines(tmp_path / "bad.jsonl", lines))
    _one_line(raised.value)


def test_one_budget_for_the_whole_cassette(tmp_path: Path) -> None:
    lines = _cassette_lines(tmp_path)
    tool = lines[2]
    lines[2:] = [{**tool, "result": image_value()} for _ in range(40)]
    with pytest.raises(CassetteError) as raised:
        read_cassette(_write_lines(tmp_path / "bomb.jsonl", lines))
    assert f"more than {FILE_DECODED_BYTES}" in _one_line(raised.value)


def test_an_image_bomb_cassette_is_refused_within_a_memory_bound(tmp_path: Path) -> None:
    lines = _cassette_lines(tmp_path)
    path = _write_lines(tmp_path / "bomb.jsonl", [*lines, *[{**lines[2], "result": image_value()}] * 100])
    error, peak = _peak_mib(tmp_path, "cassette", path)
    assert error == "CassetteError"
    assert peak < MEMORY_BOUND_MIB, f"reading a {path.stat().st_size:,} B cassette took {peak} MiB"


def test_every_field_of_a_cassette_given_each_hostile_value_is_one_error_class(tmp_path: Path) -> None:
    lines = _cassette_lines(tmp_path)
    for n, line in enumerate(lines):
        for path in paths(line):
            for value in SCALARS:
                fuzzed = [*lines[:n], replaced(line, path, value), *lines[n + 1 :]]
                try:
                    read_cassette(_write_lines(tmp_path / "fuzzed.jsonl", fuzzed))
                except CassetteError as error:
                    _one_line(error)


@FUZZ
@given(data=st.data(), value=HOSTILE_VALUES)
def test_fuzz_cassette_read_raises_only_cassette_error(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, value: Any
) -> None:
    folder = tmp_path_factory.mktemp("cassette")
    lines = _cassette_lines(folder)
    line = data.draw(st.integers(0, len(lines) - 1))
    path = data.draw(st.sampled_from(paths(lines[line])))
    lines[line] = replaced(lines[line], path, value)
    with _within_memory_bound():
        try:
            read_cassette(_write_lines(folder / "fuzzed.jsonl", lines))
        except CassetteError as error:
            _one_line(error)


# --- the store's rows -----------------------------------------------------------------------------
_ROW = st.one_of(
    st.sampled_from([v for v in SCALARS if not isinstance(v, list | dict)]),
    st.integers(),
    st.floats(),
    st.text(max_size=30),
    st.binary(max_size=8),
)


@FUZZ
@given(step=_ROW, status=_ROW, updated_at=_ROW, agent=_ROW, task=_ROW, run_id=_ROW)
def test_fuzz_store_list_raises_only_checkpoint_format_error(
    tmp_path_factory: pytest.TempPathFactory, **row: Any
) -> None:
    store = SQLiteStore(tmp_path_factory.mktemp("store") / "runs.sqlite3")
    store.list()  # creates the file
    values = {key: (None if isinstance(v, float) and math.isnan(v) else v) for key, v in row.items()}
    with sqlite3.connect(store.path) as db:
        try:
            db.execute(
                "INSERT INTO runs (run_id, step, status, updated_at, agent, task, data) VALUES (?, ?, ?, ?, ?, ?, x'00')",
                tuple(
                    _sqlite(values[k]) for k in ("run_id", "step", "status", "updated_at", "agent", "task")
                ),
            )
        except sqlite3.IntegrityError:
            return  # a NULL the schema refuses: no such row can exist
    try:
        for record in store.list():
            assert type(record.step) is int and type(record.updated_at) is float
            assert math.isfinite(record.updated_at) and record.step >= 0
            assert all(type(v) is str for v in (record.run_id, record.status, record.agent, record.task))
    except CheckpointFormatError as error:
        _one_line(error)
    try:
        if type(values["run_id"]) is str:
            store.load(values["run_id"])
    except CheckpointFormatError as error:
        _one_line(error)
    finally:
        store.close()


@FUZZ
@given(
    owner=st.one_of(_ROW, st.sampled_from(["h|1|2|3", "h|x|2|3|4|5", "|||", "a|1|2|3|4|5|6"])),
    renewed_at=_ROW,
)
def test_fuzz_a_lease_row_is_taken_or_locked_never_a_traceback(
    tmp_path_factory: pytest.TempPathFactory, owner: Any, renewed_at: Any
) -> None:
    store = SQLiteStore(tmp_path_factory.mktemp("store") / "runs.sqlite3")
    store.list()
    with sqlite3.connect(store.path) as db:
        try:
            db.execute(
                "INSERT INTO leases (run_id, owner, renewed_at) VALUES ('r1', ?, ?)",
                (
                    _sqlite(owner),
                    _sqlite(None if isinstance(renewed_at, float) and math.isnan(renewed_at) else renewed_at),
                ),
            )
        except sqlite3.IntegrityError:
            return
    try:
        store.release(store.acquire("r1"))
    except RunLockedError as error:
        _one_line(error)
    finally:
        store.close()


def _sqlite(value: Any) -> Any:
    """The value as SQLite stores it (an int past 64 bits as text, as a hostile writer would)."""
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        return str(value)
    return value


def test_a_hostile_row_in_the_store_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    store.list()
    with sqlite3.connect(store.path) as db:
        db.execute(
            "INSERT INTO runs (run_id, step, status, updated_at, agent, task, data) "
            "VALUES ('r1', 9e999, 'running', 9e999, '', '', x'00')"
        )
    with pytest.raises(CheckpointFormatError) as raised:
        store.list()
    assert "r1" in _one_line(raised.value)


# --- the commands that read them --------------------------------------------------------------
@pytest.mark.parametrize(
    "action", [["list"], ["show", "r1"], ["approve", "r1", "0123456789ab"], ["resume", "r1"]]
)
@pytest.mark.parametrize("step_number", ["Infinity", "1e300", "NaN", '"3"'])
def test_smol_runs_on_a_hostile_checkpoint_says_one_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], action: list[str], step_number: str
) -> None:
    from smol_core.cli import smol

    store = SQLiteStore(tmp_path / "runs.sqlite3")
    lease = store.acquire("r1")
    data = json.dumps(dict(GOOD_CHECKPOINT, step_number="HOLE")).replace('"HOLE"', step_number)
    store.save(lease, 1, data.encode())
    store.release(lease)
    if action == ["list"]:  # list reads the rows, not the checkpoints: a row as hostile as the file
        with sqlite3.connect(store.path) as db:
            db.execute("UPDATE runs SET step = 9e999 WHERE run_id = 'r1'")
    store.close()
    code = smol.main(["runs", "--store", str(store.path), *action])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith(("smol runs: ", "smolagent: ")) and "\n" not in err, err
    assert "Traceback" not in err
