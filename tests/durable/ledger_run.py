"""A durable run whose first step sends a message (a side effect) and then blocks in a second tool
call, for tests/durable/test_tool_ledger.py, run as its own process:

    python ledger_run.py STORE LOG run|resume IDEMPOTENT RESULT

`send` appends to LOG each time it really runs; `wait_here` appends too, and blocks in the first
process (the parent kills it there, mid-step). IDEMPOTENT ("yes"/"no") declares `wait_here` safe to
repeat or not. RESULT receives the answer and the first step's observations.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from smol_core import CodeAgent, tool
from smol_core.durable import SQLiteStore
from smol_core.memory import ActionStep
from smol_core.messages import ChatMessage, MessageRole
from smol_core.testing import FunctionModel

STEP_1 = "<code>\nsent = send('hello')\ntry:\n    got = wait_here()\nexcept Exception as error:\n    got = str(error)\nprint(sent, got)\n</code>"
STEP_2 = "<code>\nfinal_answer(f'{sent}|{got}')\n</code>"


def main(store_path: str, log_path: str, mode: str, idempotent: str, result: str) -> None:
    log = Path(log_path)

    def write(line: str) -> None:
        with log.open("a") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    @tool
    def send(text: str) -> str:
        """Sends a message (a side effect: it must happen once).

        Args:
            text: what to send.
        """
        write(f"send {text}")
        return f"sent #{len(log.read_text().splitlines())}"

    @tool
    def wait_here() -> str:
        """Waits for something."""
        write("wait")
        if mode == "run":
            Path(log_path + ".waiting").write_text(str(os.getpid()))
            time.sleep(600)
        return "waited"

    wait_here.idempotent = idempotent == "yes"

    def reply(messages: list[ChatMessage], **_: object) -> str:
        done = sum(1 for m in messages if m.role == MessageRole.ASSISTANT)
        return STEP_1 if done == 0 else STEP_2

    agent = CodeAgent(
        tools=[send, wait_here],
        model=FunctionModel(reply),
        verbosity_level=0,
        checkpoint_store=SQLiteStore(store_path),
    )
    with agent:
        answer = agent.resume("job") if mode == "resume" else agent.run("Send, then wait.", run_id="job")
        observations = [s.observations for s in agent.memory.steps if isinstance(s, ActionStep)]
    Path(result).write_text(json.dumps({"answer": str(answer), "observations": observations}))


if __name__ == "__main__":
    main(*sys.argv[1:6])
