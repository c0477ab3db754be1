"""An agent's process on a Ray node: the team's agent body, with a transport that relays to its
supervisor (it imports no Ray at all).

Most agents are forked from their supervisor's warm template (`agent_template`), which calls
`run_agent`. Where no template can run (no `fork`, no pidfds: not Linux), the supervisor starts
`python -m smol_transport_ray.child` instead, which reads `(target, args, report_path,
worker_template)` pickled on stdin from the supervisor that started it (its parent, on the same
node: nothing else can write there). The supervisor learns the end from the exit, so the team's
`done` notice has nowhere to go.
"""

from __future__ import annotations

import os
import pickle
import shutil
import sys
from collections.abc import Callable
from typing import Any

from smol_core.plugin_api import TEMPLATE


class _NoNotice:
    """The team's `done` queue, where the supervisor needs none: it waits for the process itself."""

    def put(self, item: Any) -> None:
        """Dropped."""


def run_agent(
    target: Callable[..., None], args: tuple[Any, ...], report_path: str, worker_template: str | None
) -> None:
    """`target(*args, done, report_path)`, the sandbox worker forked from `worker_template` (the
    supervisor's, shared: a millisecond instead of a new interpreter; None: a new interpreter)."""
    supervisor = os.getppid()
    if worker_template is not None:
        TEMPLATE.join(worker_template)
    target(*args, _NoNotice(), report_path)
    if os.getppid() != supervisor:  # its parent was killed: no one else will remove its folder
        shutil.rmtree(os.path.dirname(report_path), ignore_errors=True)


def main() -> None:
    target, args, report_path, worker_template = pickle.loads(sys.stdin.buffer.read())
    sys.stdin.close()
    run_agent(target, args, report_path, worker_template)


if __name__ == "__main__":
    main()
