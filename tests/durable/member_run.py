"""A durable manager whose team member makes a side effect, for tests/durable/test_team_members.py,
run as its own process:

    python member_run.py STORE LOG run|resume WHERE RESULT

The manager (a CodeAgent) calls its member `payer` (a CodeAgent), whose code charges a card (`charge`
appends to LOG each time it really runs), and then waits. WHERE says who waits, blocking in the first
process so that the test kills it there: "member" (the member, after its charge, in the same step)
or "manager" (the manager, after the member answered, in the same step). RESULT receives the answer.
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

MANAGER_STEP_1 = "<code>\nreport = payer(task='charge 10')\nsettled = {settle}\nprint(report)\n</code>"
MANAGER_STEP_2 = "<code>\nfinal_answer(f'{report}|{settled}')\n</code>"
PAYER_STEP_1 = "<code>\nreceipt = charge(amount=10)\nhold = {hold}\n</code>"
PAYER_STEP_2 = "<code>\nfinal_answer(receipt)\n</code>"


def main(store_path: str, log_path: str, mode: str, where: str, result: str) -> None:
    log = Path(log_path)

    def write(line: str) -> None:
        with log.open("a") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    @tool
    def charge(amount: int) -> str:
        """Charges the card (a side effect: it must happen once).

        Args:
            amount: how much.
        """
        write(f"charge {amount}")
        return f"receipt #{sum(1 for line in log.read_text().splitlines() if line.startswith('charge'))}"

    @tool
    def wait_here() -> str:
        """Waits for the bank (safe to repeat)."""
        write("wait")
        if mode == "run":
            Path(log_path + ".waiting").write_text(str(os.getpid()))
            time.sleep(600)
        return "settled"

    wait_here.idempotent = True

    def script(first: str, second: str) -> FunctionModel:
        def reply(messages: list[ChatMessage], **_: object) -> str:
            done = sum(1 for m in messages if m.role == MessageRole.ASSISTANT)
            return first if done == 0 else second

        return FunctionModel(reply)

    member_waits, manager_waits = where == "member", where == "manager"
    payer = CodeAgent(
        tools=[charge, wait_here],
        model=script(PAYER_STEP_1.format(hold="wait_here()" if member_waits else "None"), PAYER_STEP_2),
        name="payer",
        description="Pays.",
        verbosity_level=0,
    )
    manager = CodeAgent(
        tools=[wait_here],
        managed_agents=[payer],
        model=script(MANAGER_STEP_1.format(settle="wait_here()" if manager_waits else "'-'"), MANAGER_STEP_2),
        verbosity_level=0,
        checkpoint_store=SQLiteStore(store_path),
    )
    with manager:
        answer = manager.resume("job") if mode == "resume" else manager.run("Pay.", run_id="job")
    Path(result).write_text(json.dumps({"answer": str(answer)}))


if __name__ == "__main__":
    main(*sys.argv[1:6])
