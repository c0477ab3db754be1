"""The everyday task bank (issue 38): 330 tasks from hand-written templates in eleven classes, with
the project's older task sets, split once into a training part and a held-out part.

Why: the project's own task sets read 80% while an outside set of short tasks read 60%; the prompts
and examples had been tuned while watching the sets they were measured on. The bank measures what
carries over: the held-out part is run, never read while tuning, and its figure is the only one
reported. Worked examples and prompts may be drawn from the training part only.

The split is by template, not by task: per class, the templates are ordered by a seeded hash of
their names and the first two of six go to the held-out part, whole. A held-out task is then worded
unlike any task of the training part, as an outside task would be, so a lever that merely teaches
the training part's sentences does not move the held-out figure. The older task sets of
`agent_default_model.py` and `agent_task_sets.py` (answered without tools) join the training part.

The bank is built once from the templates (`--write`) and kept in `everyday_bank.json`, so the split
cannot drift with a change of Python's random module; `load()` reads that file.

    hatch run dev:python bench/everyday_bank.py --write     # rebuild the JSON (changes the bank!)
    hatch run dev:python bench/everyday_bank.py             # counts per class and part
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from everyday_templates import TEMPLATES  # noqa: E402

BANK = Path(__file__).with_name("everyday_bank.json")
SEED = 38
PER_TEMPLATE = 5
HELDOUT_TEMPLATES_PER_CLASS = 2


def _hash(text: str) -> str:
    return hashlib.sha256(f"{SEED}:{text}".encode()).hexdigest()


def heldout_templates() -> set[str]:
    """The seeded rule: per class, the templates whose hashed names sort first."""
    chosen = set()
    for name, templates in TEMPLATES.items():
        ordered = sorted(templates, key=lambda template: _hash(f"{name}:{template.__name__}"))
        chosen |= {template.__name__ for template in ordered[:HELDOUT_TEMPLATES_PER_CLASS]}
    return chosen


def build() -> list[dict[str, Any]]:
    """Every task of the bank: PER_TEMPLATE different tasks from each template, then the older sets."""
    held_out = heldout_templates()
    bank: list[dict[str, Any]] = []
    for class_name, templates in TEMPLATES.items():
        for template in templates:
            rng = random.Random(_hash(template.__name__))
            seen: set[str] = set()
            while len(seen) < PER_TEMPLATE:
                task, answer = template(rng)
                if task in seen:
                    continue
                seen.add(task)
                part = "heldout" if template.__name__ in held_out else "train"
                bank.append(_entry(len(bank), class_name, template.__name__, part, task, answer))
    for task, expected in _older_sets():
        bank.append(_entry(len(bank), "older", "older_sets", "train", task, _older_spec(expected)))
    return bank


def _entry(number: int, class_name: str, template: str, part: str, task: str, answer: Any) -> dict[str, Any]:
    return {
        "id": number,
        "class": class_name,
        "template": template,
        "part": part,
        "task": task,
        "answer": answer,
    }


def _older_sets() -> list[tuple[str, Any]]:
    from agent_default_model import CHECK_TASKS, HELDOUT_TASKS, TASKS
    from agent_task_sets import (
        HELDOUT2_ONE_STEP,
        HELDOUT2_TWO_STEP,
        HELDOUT3_ONE_STEP,
        HELDOUT3_TWO_STEP,
        TWO_STEP_TASKS,
    )

    sets = [TASKS, CHECK_TASKS, HELDOUT_TASKS, TWO_STEP_TASKS, HELDOUT2_ONE_STEP, HELDOUT2_TWO_STEP]
    sets += [HELDOUT3_ONE_STEP, HELDOUT3_TWO_STEP]
    return [entry for tasks in sets for entry in tasks]


def _older_spec(expected: Any) -> dict[str, Any]:
    if isinstance(expected, list):
        return {"kind": "list", "items": expected, "ordered": True}
    if isinstance(expected, int | float):
        return {"kind": "number", "value": expected, "rel": 1e-9}
    return {"kind": "text", "value": expected, "case": True}


def load(part: str | None = None) -> list[dict[str, Any]]:
    """The bank as written to `everyday_bank.json`; `part`: "train" or "heldout" only."""
    bank: list[dict[str, Any]] = json.loads(BANK.read_text())
    return [entry for entry in bank if part is None or entry["part"] == part]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rebuild everyday_bank.json from the templates")
    args = parser.parse_args()
    if args.write:
        bank = build()
        BANK.write_text("[\n" + ",\n".join(json.dumps(entry) for entry in bank) + "\n]\n")
    counts = Counter((entry["class"], entry["part"]) for entry in load())
    for class_name in sorted({name for name, _ in counts}):
        print(
            f"{class_name:<15} train {counts[class_name, 'train']:>3}  heldout {counts[class_name, 'heldout']:>3}"
        )
    print(f"total {sum(counts.values())}: heldout {sum(v for (_, p), v in counts.items() if p == 'heldout')}")


if __name__ == "__main__":
    main()
