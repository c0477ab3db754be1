"""`python -m smol_transport_ray.child`: an agent's process on a Ray node, started by its supervisor.

It reads `(target, args, report_path)` pickled on stdin from the supervisor that started it (its
parent, on the same node: nothing else can write there) and runs `target(*args, done, report_path)`,
the team's agent body, with a transport that relays to the supervisor: it imports no Ray at all.
The supervisor learns the end from the exit, so the `done` notice has nowhere to go.
"""

from __future__ import annotations

import os
import pickle
import shutil
import sys
from typing import Any


class _NoNotice:
    """The team's `done` queue, where the supervisor needs none: it waits for the process itself."""

    def put(self, item: Any) -> None:
        """Dropped."""


def main() -> None:
    supervisor = os.getppid()
    target, args, report_path = pickle.loads(sys.stdin.buffer.read())
    sys.stdin.close()
    target(*args, _NoNotice(), report_path)
    if os.getppid() != supervisor:  # the supervisor was killed: no one else will remove its folder
        shutil.rmtree(os.path.dirname(report_path), ignore_errors=True)


if __name__ == "__main__":
    main()
