"""The test tree itself: pytest imports test modules by their file name (there are no packages
under tests/), so two test files with one name in one run make the second an import error that
stops the whole run before a single test."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# run in environments of their own (scripts/test), never in one session with the rest
OWN_ENVIRONMENTS = ("models/transformers", "models/mlx", "transports/ray", "telemetry/phoenix")


def test_every_test_file_name_is_used_once_per_run() -> None:
    places: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        relative = path.relative_to(TESTS).as_posix()
        if not relative.startswith(OWN_ENVIRONMENTS):
            places[path.name].append(relative)
    assert {name: where for name, where in places.items() if len(where) > 1} == {}
