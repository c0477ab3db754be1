"""A scripted multi-step CodeAgent run for the durable-run tests, run as its own process.

    python scripted_run.py STORE RUN_ID run|resume|plain CALL_LOG RESULT [PAUSE_AT]

The model replies from SCRIPT by how many model calls the call log records (one line per real call,
across every process of the run), so a repeated call would shift the script and show in the log.
With SCRIPT_BY=conversation in the environment, the reply is chosen by what the model reads instead
(the plans and actions already in its memory), so a call repeated after a kill gets the same reply
and shows in the log as a duplicate index.
PAUSE_AT: the call index at which the model blocks (the parent kills the process there: a kill at a
step boundary); the tool `slow_double` blocks the first time it runs (a kill mid-step, after the
step's model reply was checkpointed). The process writes its final answer and namespace to RESULT.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from smol_core import CodeAgent, tool
from smol_core.durable import SQLiteStore
from smol_core.messages import ChatMessage, MessageRole
from smol_core.testing import FunctionModel


def code(body: str) -> str:
    return f"Thought: go on.\n<code>\n{body}\n</code>"


SCRIPT = [
    "1. set up 2. compute 3. answer<end_plan>",  # planning, step 1
    code("base = 7\nitems = [1, 2, 3]\nlabel = 'total'\nprint(base)"),
    code("pairs = {'a': (1, 2), 'b': {3, 4}}\ncount = len(items) + base"),
    "Updated: use the tool, then answer<end_plan>",  # planning, step 3
    code("doubled = slow_double(count)\nprint(doubled)"),
    code("final_answer(f'{label}={doubled + sum(items)}')"),
]


def _index_from_conversation(messages: list[ChatMessage], call: dict[str, object]) -> int:
    """Which SCRIPT entry this call is, from what the model reads: a planning call (it stops at
    <end_plan>) is the first plan or, once there are observations, the update; an action is the
    one after every plan and action already in the memory (each an assistant message)."""
    if "<end_plan>" in (call.get("stop_sequences") or []):  # type: ignore[operator]
        return 3 if any("Observation" in m.text for m in messages) else 0
    return sum(1 for m in messages if m.role == MessageRole.ASSISTANT)


def main(argv: list[str]) -> None:
    store_path, run_id, mode, call_log, result = argv[:5]
    pause_at = int(argv[5]) if len(argv) > 5 else -1
    log = Path(call_log)
    marker = Path(call_log + ".tool-started")
    by_conversation = os.environ.get("SCRIPT_BY") == "conversation"

    def reply(messages: list[ChatMessage], **call: object) -> str:
        calls = log.read_text().splitlines() if log.exists() else []
        index = _index_from_conversation(messages, call) if by_conversation else len(calls)
        if index == pause_at:
            Path(call_log + ".paused").write_text(str(os.getpid()))
            time.sleep(600)
        if by_conversation:
            time.sleep(0.03)  # a model takes time: kills land inside calls too
        with log.open("a") as handle:
            handle.write(f"{index}\n")
            handle.flush()
            os.fsync(handle.fileno())
        if by_conversation:
            time.sleep(0.03)
        return SCRIPT[index]

    @tool
    def slow_double(x: int) -> int:
        """Doubles a number, slowly the first time.

        Args:
            x: the number.
        """
        if pause_at == -2 and not marker.exists():
            marker.write_text(str(os.getpid()))
            time.sleep(600)
        return 2 * x

    slow_double.idempotent = True  # pure: a call a kill interrupted is made again on resume

    agent = CodeAgent(
        tools=[slow_double],
        model=FunctionModel(reply),
        planning_interval=2,
        verbosity_level=0,
        checkpoint_store=None if mode == "plain" else SQLiteStore(store_path),
    )
    with agent:
        if mode == "resume":
            answer = agent.resume(run_id)
        else:
            answer = agent.run("Compute the total.", run_id=None if mode == "plain" else run_id)
        namespace = agent.python_executor.namespace()
        steps = [type(step).__name__ for step in agent.memory.steps]
    Path(result).write_text(
        json.dumps(
            {
                "answer": str(answer),
                "namespace": {k: repr(v) for k, v in sorted(namespace.items())},
                "steps": steps,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
