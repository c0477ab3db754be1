"""Runs of the embedded model (SmolLM2-135M through llama.cpp), recorded, replayed with no model call.

The cassettes in tests/cassettes/embedded are what `smolagent TASK` asked the real model and what it
answered (`scripts/record_cassettes.py` records them). Replaying each through `smolagent --replay`
checks, in a second, what hand-written replies cannot: that the agent still asks the real model
exactly what it asked when recorded (a changed prompt, worked example or template fails at its first
step, with the diff), and that it still takes the real model's replies the same way, down to the
drafts' vote on their token log-probabilities (a reply replayed without them asked for another
draft). After an intended change, record them again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smol_core.cli import smolagent
from smol_core.replay import read_cassette
from smol_core.replay.cassette import ModelEvent

pytest.importorskip("smol_model_llamacpp", reason="the embedded model's plugin is not installed")

FOLDER = Path(__file__).resolve().parent.parent / "cassettes" / "embedded"
TASKS = json.loads((FOLDER / "tasks.json").read_text())


@pytest.mark.parametrize("entry", TASKS, ids=[entry["name"] for entry in TASKS])
def test_a_recorded_run_of_the_embedded_model_replays_to_its_answer(entry, capsys, monkeypatch):
    calls: list[object] = []
    from smol_model_llamacpp import LlamaCppModel

    real_call = LlamaCppModel._call
    monkeypatch.setattr(
        LlamaCppModel, "_call", lambda *args, **kwargs: calls.append(args) or real_call(*args, **kwargs)
    )
    tape = FOLDER / f"{entry['name']}.jsonl"
    assert read_cassette(tape).task == entry["task"]
    code = smolagent.main(["--replay", str(tape), "--verbosity-level", "-1"])
    out, err = capsys.readouterr()
    assert code == 0, err[-3000:]
    assert out.strip() == entry["answer"]
    assert calls == []  # every reply came from the cassette


def test_the_cassettes_hold_what_the_drafts_vote_on():
    """A small model's first draft is asked for its tokens' log-probabilities; they are on tape."""
    for entry in TASKS:
        first = next(
            e for e in read_cassette(FOLDER / f"{entry['name']}.jsonl").events if isinstance(e, ModelEvent)
        )
        assert first.reply.raw is not None, entry["name"]
    drafted = read_cassette(FOLDER / "vowels-two-drafts.jsonl").events
    assert sum(isinstance(event, ModelEvent) for event in drafted) == 2  # a vote of two drafts, replayed


def test_a_changed_prompt_diverges_at_the_first_step_of_a_real_recording(tmp_path, capsys):
    tape = FOLDER / "main-job.jsonl"
    code = smolagent.main(["What is 17 times 24?", "--replay", str(tape), "--verbosity-level", "-1"])
    err = capsys.readouterr().err
    assert code == 4
    assert err.startswith("smolagent: the replay diverged at step 1")
    assert "+What is 17 times 24?" in err and "-What is 17 times 23?" in err
