"""Worked examples for small models: picked by the task's wording, never the bench's own tasks."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from smol_core.prompting.examples import CLASS_EXAMPLES, WORKED_EXAMPLES, WorkedExample, select_examples
from smol_core.prompting.grammar import code_action_grammar

BENCH = Path(__file__).resolve().parents[2] / "bench" / "agent_default_model.py"


def test_the_closest_example_comes_last():
    picked = select_examples("What is the biggest number in [3, 8, 1]?", count=3)
    assert len(picked) == 3
    assert "max(" in picked[-1].code


def test_synonyms_and_the_kind_of_data_steer_the_choice():
    assert "[::-1]" in select_examples("Spell 'drawer' backwards.", count=1)[0].code
    assert ".upper()" in select_examples("Turn 'abc' into uppercase.", count=1)[0].code
    assert "min(" in select_examples("Which is the least of [5, 2, 9]?", count=1)[0].code


def test_count_and_custom_examples():
    assert select_examples("anything", count=0) == []
    own = (WorkedExample("Greet Bob.", "final_answer('Hello Bob')"),)
    assert select_examples("Greet Ann.", count=3, examples=own) == list(own)


def test_every_example_runs_and_fits_the_small_model_block():
    for example in WORKED_EXAMPLES + CLASS_EXAMPLES:
        answers: list[object] = []
        exec(example.code, {"final_answer": answers.append})  # noqa: S102 - our own constant code
        assert len(answers) == 1, example.task
        lines = example.code.splitlines()
        # the small-model grammar allows one line, an optional print, then final_answer(...)
        assert len(lines) <= 2 and lines[-1].startswith("final_answer("), example.task
    assert code_action_grammar(thought_prefix=None, require_final_answer=True, max_code_lines=3)


def test_no_example_is_a_bench_task():
    spec = importlib.util.spec_from_file_location("bench_tasks", BENCH)
    assert spec and spec.loader
    source = BENCH.read_text() + (BENCH.parent / "agent_task_sets.py").read_text()
    tasks = {example.task.lower() for example in WORKED_EXAMPLES}
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith('("') and "?" in stripped or stripped.startswith('("') and "." in stripped:
            task = stripped[2:].split('", ')[0].lower()
            assert task not in tasks, task


def test_the_everyday_examples_are_tasks_of_the_banks_training_part_only():
    """Worked examples may come from the bank's training part; the held-out part is never shown."""
    import json

    bank = json.loads((BENCH.parent / "everyday_bank.json").read_text())
    parts = {entry["task"]: entry["part"] for entry in bank}
    for example in CLASS_EXAMPLES:
        assert parts.get(example.task) == "train", example.task
