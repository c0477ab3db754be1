"""Agent factories the Temporal tests' workers register (this folder is on their PYTHONPATH).

A worker process started by a test serves `scripted` as `--agent scripted=temporal_agents:from_environment`,
its options (log files, where to block) in SMOL_TEST_AGENT, as JSON: the run's input names the
agent only.

The model picks its reply by the step it is asked for (the assistant messages already in the
conversation), not by how often it was called, so a fresh agent built for each step answers as one
agent would over a whole run. It logs every call (step index and process id) to a file, and so
does the side-effecting `record` tool: the tests read those logs to see what was repeated. Either
can block once, on a flag file, to be killed in the middle of it; the tool can also kill its
worker outright, the moment its side effect is made.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from smol_core import CodeAgent, tool
from smol_core.testing import FunctionModel

REPLIES = [
    "<code>\nx = 20\nname = 'answer'\n</code>",
    "<code>\nx = x + 1\nreceipt = record('order-1')\n</code>",
    "<code>\ny = x * 2\n</code>",
    "<code>\nfinal_answer(f'{name}={y}')\n</code>",
]
ANSWER = "answer=42"


def _block_once(flag: str | None) -> None:
    """Sleep (to be killed) the first time only: the flag file says it happened."""
    if flag is None or Path(flag).exists():
        return
    Path(flag).write_text(str(os.getpid()))
    time.sleep(120)


def _die_once(flag: str | None) -> None:
    """SIGKILL this worker process the first time only, the moment the call has taken effect."""
    if flag is None or Path(flag).exists():
        return
    Path(flag).write_text(str(os.getpid()))
    os.kill(os.getpid(), signal.SIGKILL)


def scripted_agent(
    calls: str,
    records: str,
    block_model_at: int | None = None,
    block_tool: bool = False,
    flag: str | None = None,
    die_in_tool: bool = False,
    needs_approval: bool = False,
) -> CodeAgent:
    def reply(messages: list[Any], **_: Any) -> str:
        step = sum(
            1 for message in messages if str(getattr(message.role, "value", message.role)) == "assistant"
        )
        with open(calls, "a") as log:
            log.write(f"{step} {os.getpid()}\n")
        if step == block_model_at:
            _block_once(flag)
        return REPLIES[step]

    @tool
    def record(item: str) -> str:
        """Records an order: a side effect that must not happen twice.

        Args:
            item: what to record.
        """
        with open(records, "a") as log:
            log.write(f"{item} {os.getpid()}\n")
        if die_in_tool:
            _die_once(flag)
        if block_tool:
            _block_once(flag)
        return f"recorded {item}"

    record.requires_approval = needs_approval
    return CodeAgent(tools=[record], model=FunctionModel(reply), verbosity_level=0)


def from_environment() -> CodeAgent:
    """`scripted_agent` with the options in SMOL_TEST_AGENT (JSON), set by the test that started
    the worker."""
    return scripted_agent(**json.loads(os.environ["SMOL_TEST_AGENT"]))


def not_an_agent() -> str:
    return "an agent"


SECRET = "sk-live-7c1e0f9a2b4d6e8f"
TOOL_SECRET = "tool-result-3f5a7c9e1b2d4f6a"


def secret_agent() -> CodeAgent:
    """Holds a secret in a sandbox variable and a tool's result in another, over two steps."""

    @tool
    def lookup(account: str) -> str:
        """Looks up an account's private note.

        Args:
            account: the account.
        """
        return f"{TOOL_SECRET} for {account}"

    replies = [
        f"<code>\napi_key = '{SECRET}'\nnote = lookup('acme')\n</code>",
        "<code>\nfinal_answer(len(api_key) + len(note))\n</code>",
    ]

    def reply(messages: list[Any], **_: Any) -> str:
        step = sum(1 for m in messages if str(getattr(m.role, "value", m.role)) == "assistant")
        return replies[step]

    return CodeAgent(tools=[lookup], model=FunctionModel(reply), verbosity_level=0)


BIG_CHARS = 3 * 1024 * 1024


def big_agent() -> CodeAgent:
    """Holds a variable of 3 MiB (over Temporal's 2 MB payload limit) from its first step on."""
    replies = [
        f"<code>\nbig = 'x' * {BIG_CHARS}\n</code>",
        "<code>\nbig = big + 'y'\n</code>",
        "<code>\nfinal_answer(len(big))\n</code>",
    ]

    def reply(messages: list[Any], **_: Any) -> str:
        step = sum(1 for m in messages if str(getattr(m.role, "value", m.role)) == "assistant")
        return replies[step]

    return CodeAgent(tools=[], model=FunctionModel(reply), verbosity_level=0)


def plant_marker(path: str) -> str:
    """What a client who could name code in a run's input would have a worker run: it leaves a file."""
    with open(path, "w") as marker:
        marker.write(str(os.getpid()))
    return "planted"


def two_approvals_agent(records: str) -> CodeAgent:
    """Calls `record` (which needs approval) in two steps: the run pauses twice."""
    replies = [
        "<code>\na = record('first')\n</code>",
        "<code>\nb = record('second')\n</code>",
        "<code>\nfinal_answer('done')\n</code>",
    ]

    def reply(messages: list[Any], **_: Any) -> str:
        step = sum(1 for m in messages if str(getattr(m.role, "value", m.role)) == "assistant")
        return replies[step]

    @tool
    def record(item: str) -> str:
        """Records an order: a side effect a person approves.

        Args:
            item: what to record.
        """
        with open(records, "a") as log:
            log.write(f"{item}\n")
        return f"recorded {item}"

    record.requires_approval = True
    return CodeAgent(tools=[record], model=FunctionModel(reply), verbosity_level=0)


def manager_with_member(records: str, member_asks: bool = False) -> CodeAgent:
    """A manager whose team member records an order: the member's own run is a durable sub-run of
    the manager's, saved in the step's store beside the manager's checkpoint."""

    def script(replies: list[str]) -> FunctionModel:
        def reply(messages: list[Any], **_: Any) -> str:
            return replies[sum(1 for m in messages if str(getattr(m.role, "value", m.role)) == "assistant")]

        return FunctionModel(reply)

    @tool
    def record(item: str) -> str:
        """Records an order.

        Args:
            item: what to record.
        """
        with open(records, "a") as log:
            log.write(f"{item} {os.getpid()}\n")
        return f"recorded {item}"

    record.requires_approval = member_asks
    clerk = CodeAgent(
        tools=[record],
        model=script(["<code>\nr = record('order-7')\n</code>", "<code>\nfinal_answer(r)\n</code>"]),
        name="clerk",
        description="Records orders.",
        verbosity_level=0,
    )
    return CodeAgent(
        tools=[],
        managed_agents=[clerk],
        model=script(
            [
                "<code>\nreport = clerk(task='record order-7')\n</code>",
                "<code>\nfinal_answer(report)\n</code>",
            ]
        ),
        verbosity_level=0,
    )


GROWING_STEPS = 8


def growing_agent() -> CodeAgent:
    """Keeps 100 KB of random text in a variable, new at each step (each step's memory holds as
    much), then answers its length: each step's checkpoint is big, and the history grows fast."""
    replies = [
        "<code>\nimport random\nheap = ''\n</code>",
        *["<code>\nheap = heap + ''.join(random.choice('abcdefgh') for _ in range(50_000))\n</code>"] * 2,
        *["<code>\nheap = heap[:50_000] + ''.join(random.choice('abcdefgh') for _ in range(50_000))\n</code>"]
        * (GROWING_STEPS - 3),
        "<code>\nfinal_answer(len(heap))\n</code>",
    ]

    def reply(messages: list[Any], **_: Any) -> str:
        step = sum(1 for m in messages if str(getattr(m.role, "value", m.role)) == "assistant")
        return replies[step]

    return CodeAgent(
        tools=[], model=FunctionModel(reply), verbosity_level=0, additional_authorized_imports=["random"]
    )
