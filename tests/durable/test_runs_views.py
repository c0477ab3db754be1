"""`smol runs list` and `smol runs show` on a store someone handed you: every field that came from
the store is escaped (no control character, ANSI sequence or bidi override reaches the terminal, no
field starts a line that looks like another), `list` is a table with a header and aligned columns,
and odd values never end in a traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from smol_core.cli import smol
from smol_core.durable import SQLiteStore
from smol_core.durable.checkpoint import Checkpoint, dump

RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SHOW_FIELDS = (
    "run_id",
    "status",
    "agent",
    "task",
    "next_step",
    "max_steps",
    "steps",
    "variables",
    "not_saved",
    "model_replies_pending",
    "waiting_for_approval",
    "final_answer",
)


def _hostile_store(path: Path) -> None:
    """A store whose every field is hostile within what the checkpoint reader accepts (a field it
    refuses makes the checkpoint corrupt: tests/durable/test_file_format.py), as a file someone
    handed you may be."""
    state = Checkpoint(
        run_id="odd",
        agent="CodeAgent evil",
        task="pay\nstatus: finished\x1b[2J",
        step_number=3,
        namespace={"x\x1b[1A": float("nan")},
        uncaptured=[("a\x1b", "b\nfinal_answer: 42")],
        tool_ledger=[
            {
                "tool": "send\x1b[31m",
                "key": "k",
                "status": "awaiting_approval",
                "approval_key": "0123456789ab",
                "arguments": {"\x1b": [1e300, float("inf")], 3: None},
            }
        ],
        status="awaiting_approval",
        final_answer={"k": float("nan")},
    )
    document = json.loads(dump(state))
    store = SQLiteStore(path)
    for run_id, status in (("odd", "\x1b[2Jfinished\nfake row"), ("plain-run", "running")):
        lease = store.acquire(run_id)
        store.save(lease, 3, json.dumps(document).encode(), status=status, agent="\u202eA", task="t\x1b[1A\r")
        store.release(lease)


def test_list_is_an_escaped_table_with_a_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "runs.sqlite3"
    _hostile_store(path)
    assert smol.main(["runs", "--store", str(path), "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert RAW_CONTROLS.search("\n".join(lines)) is None
    assert len(lines) == 3 and lines[0].split() == [
        "RUN",
        "STATUS",
        "STEP",
        "UPDATED",
        "SIZE",
        "AGENT",
        "TASK",
    ]
    for title in ("STATUS", "STEP", "UPDATED", "SIZE", "AGENT", "TASK"):
        column = lines[0].index(title)
        assert all(line[column - 2 : column] == "  " and line[column] != " " for line in lines[1:]), title
    assert "\\x1b[2Jfinished\\nfake r…" in lines[2]  # cut, and marked so: `show` has it whole


def test_show_escapes_every_field_and_survives_odd_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "runs.sqlite3"
    _hostile_store(path)
    assert smol.main(["runs", "--store", str(path), "show", "odd"]) == 0
    shown = capsys.readouterr().out
    assert RAW_CONTROLS.search(shown) is None
    for line in shown.splitlines():  # a field never starts a line of its own that looks like another
        assert line.startswith("  ") or line.split(":")[0] in SHOW_FIELDS, line
    assert "task: pay\\nstatus: finished\\x1b[2J" in shown
    assert smol.main(["runs", "--store", str(path), "show", "odd", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["waiting_for_approval"]["tool"] == "send\x1b[31m"


def test_an_approval_key_that_is_not_hex_makes_the_checkpoint_corrupt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The key is printed in commands a person copies: a checkpoint cannot plant anything in it."""
    path = tmp_path / "runs.sqlite3"
    _hostile_store(path)
    store = SQLiteStore(path)
    stored = store.load("odd")
    assert stored is not None
    planted = stored.data.replace(b'"0123456789ab"', b'"ab; rm -rf ~"')
    lease = store.acquire("odd")
    store.save(lease, 3, planted)
    store.release(lease)
    assert smol.main(["runs", "--store", str(path), "show", "odd"]) == 2
    error = capsys.readouterr().err
    assert "is corrupt" in error and "rm -rf" not in error
