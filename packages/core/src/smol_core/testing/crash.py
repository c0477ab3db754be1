"""`ResumableScript`: scripted replies that a resumed run gets again, and a crash on cue.

Why: testing a durable run (or a durable team) means killing its process mid-run and checking what
the resumed one does. A `ScriptedModel` counts its replies in the process, so a resumed process
would start its script over. `ResumableScript` chooses each reply from the conversation itself,
by how many actions the agent has taken (its own assistant messages), so a resumed run gets the
reply the first attempt would have got; it can log each call (to show a call was not made twice)
and SIGKILL its own process at a chosen call, once, as an out-of-memory kill would.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from smol_core.messages import ChatMessage, MessageRole


class ResumableScript:
    """A `FunctionModel` function: `FunctionModel(ResumableScript(replies, ...))`.

    `replies[i]` answers the call made after the agent's i-th action. `log`: a file that gets the
    index of each call, one per line, across processes. `crash_at`: the index at which the process
    kills itself with SIGKILL, the first time only (`marker`, a file, records that it did: its
    path is required with `crash_at`). `pause_seconds`: how long each reply takes (after the call is
    logged), as a real model's does, so that a kill from outside can land inside a call. Plain data,
    so it pickles into a team's agent processes.
    """

    def __init__(
        self,
        replies: Sequence[str],
        log: str | os.PathLike[str] | None = None,
        crash_at: int | None = None,
        marker: str | os.PathLike[str] | None = None,
        pause_seconds: float = 0.0,
    ) -> None:
        if crash_at is not None and marker is None:
            raise ValueError("crash_at needs a marker file, which records that the crash happened")
        self.replies = list(replies)
        self.log = None if log is None else str(log)
        self.crash_at = crash_at
        self.marker = None if marker is None else str(marker)
        self.pause_seconds = pause_seconds

    def __call__(self, messages: list[ChatMessage], **call: Any) -> str:
        index = sum(1 for message in messages if message.role == MessageRole.ASSISTANT)
        if index == self.crash_at and self.marker is not None and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        if self.log is not None:
            with open(self.log, "a", encoding="utf-8") as handle:
                handle.write(f"{index}\n")
        if self.pause_seconds:
            time.sleep(self.pause_seconds)
        if index >= len(self.replies):
            raise IndexError(f"the script has {len(self.replies)} replies; the agent asked for reply {index}")
        return self.replies[index]
