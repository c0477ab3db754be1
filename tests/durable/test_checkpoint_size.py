"""A checkpoint over the size a load accepts is refused when it is written, and the last good one stays.

Before: it was saved without complaint over the last good one, and the run could never be resumed,
shown or approved again (every load refused it as too big).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_files import image_value

from smol_core import CodeAgent
from smol_core.durable import CheckpointError, SQLiteStore, checkpoint as checkpoint_format
from smol_core.durable.checkpoint import Checkpoint, CheckpointTooLargeError
from smol_core.durable.file_format import FILE_DECODED_BYTES
from smol_core.durable.runner import read_checkpoint
from smol_core.testing import ScriptedModel

LIMIT = 200_000
GROWS = [
    "Thought: a\n<code>\nx = 40\n</code>",
    "Thought: b\n<code>\nbig = 'a' * 300_000\n</code>",
    "Thought: c\n<code>\nfinal_answer(x + 2)\n</code>",
]


def _agent(store: SQLiteStore, replies: list[object]) -> CodeAgent:
    return CodeAgent(tools=[], model=ScriptedModel(replies), verbosity_level=0, checkpoint_store=store)


def test_a_run_whose_variables_grow_past_the_limit_keeps_its_last_good_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    monkeypatch.setattr(checkpoint_format, "MAX_CHECKPOINT_BYTES", LIMIT)
    with _agent(store, GROWS) as agent, pytest.raises(CheckpointError) as raised:
        agent.run("grow", run_id="r1")
    line = str(raised.value)
    assert "\n" not in line and f"over the {LIMIT:,}" in line
    assert "variable 'big'" in line and "resume" in line  # what is big, and what to do
    stored = store.load("r1")
    assert stored is not None and len(stored.data) <= LIMIT
    state = read_checkpoint(store, "r1")  # the last good one loads under the same limit
    assert state is not None and state.step_number == 2 and "big" not in state.namespace
    # ... and resumes: the journaled step-2 reply comes back first, so the model is asked for step 3
    with _agent(store, [GROWS[2]]) as agent:
        monkeypatch.setattr(checkpoint_format, "MAX_CHECKPOINT_BYTES", 10 * LIMIT)
        assert agent.resume("r1") == 42


def test_the_store_itself_refuses_a_checkpoint_no_load_would_accept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    lease = store.acquire("r1")
    store.save(lease, 1, b"small")
    monkeypatch.setattr("smol_core.durable.sqlite_store.MAX_CHECKPOINT_BYTES", 100)
    with pytest.raises(CheckpointError, match="over the 100"):
        store.save(lease, 2, b"x" * 101)
    assert store.load("r1").data == b"small"  # type: ignore[union-attr]


def test_a_checkpoint_whose_images_would_decode_past_the_budget_is_refused_when_written() -> None:
    """Each image is 8 million pixels (32 MiB once decoded) in 8 kB: what is saved must load again."""
    state = Checkpoint(run_id="r1", agent="CodeAgent", task="look", step_number=2)
    fits = FILE_DECODED_BYTES // (2896 * 2896 * 4)
    data = checkpoint_format.dump(
        state, encoded_namespace={f"shot{n}": image_value() for n in range(fits - 1)}
    )
    assert len(checkpoint_format.load(data).namespace) == fits - 1
    with pytest.raises(CheckpointTooLargeError) as raised:
        checkpoint_format.dump(state, encoded_namespace={f"shot{n}": image_value() for n in range(fits + 1)})
    assert "decode to" in str(raised.value) and "variable 'shot" in str(raised.value)
