"""Record the cassettes in tests/cassettes/embedded from the embedded model, as `smolagent` runs it.

Why: `tests/core/test_embedded_cassettes.py` replays them with no model call. A change to what
the model is asked (a prompt, a worked example, a chat template, drafting) then fails there at the
first step that differs, with the diff, in seconds, and a change to how the agent takes a real
small model's replies (parsing, drafts' votes on their token log-probabilities, the final answer)
fails the same way. Record again after such a change on purpose: each task's answer is checked
against tasks.json, so a change that makes the model answer worse shows here, before it is kept.

    hatch run dev:python scripts/record_cassettes.py [NAME ...]
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent.parent / "tests" / "cassettes" / "embedded"


def main(names: list[str]) -> int:
    from smol_core.cli import smolagent

    tasks = json.loads((FOLDER / "tasks.json").read_text())
    wrong = 0
    for entry in tasks:
        if names and entry["name"] not in names:
            continue
        tape = FOLDER / f"{entry['name']}.jsonl"
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = smolagent.main([entry["task"], "--record", str(tape), "--verbosity-level", "-1"])
        answer = out.getvalue().strip()
        ok = code == 0 and answer == entry["answer"]
        wrong += not ok
        print(
            f"{'ok   ' if ok else 'WRONG'} {entry['name']}: {answer!r} (expected {entry['answer']!r}) -> {tape.name}"
        )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
