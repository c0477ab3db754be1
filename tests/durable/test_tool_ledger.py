"""Tool calls of a durable run killed mid-step: a call that finished is not made again on resume (its
saved result is given back), and a call the kill interrupted is made again only when its tool is
declared safe to repeat; otherwise the model is told it may or may not have taken effect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from killed_run import killed_while_waiting_then_resumed  # noqa: E402

SCRIPT = Path(__file__).with_name("ledger_run.py")


def _killed_mid_step_then_resumed(tmp_path: Path, idempotent: str) -> dict[str, Any]:
    return killed_while_waiting_then_resumed(SCRIPT, tmp_path, idempotent)


def test_an_interrupted_call_that_is_not_safe_to_repeat_is_reported_not_made(tmp_path: Path) -> None:
    result = _killed_mid_step_then_resumed(tmp_path, "no")
    # send ran once (its saved result came back on resume); wait_here ran once, in the killed process
    assert (tmp_path / "calls.log").read_text().splitlines() == ["send hello", "wait"]
    sent, got = result["answer"].split("|", 1)
    assert sent == "sent #1"
    assert "may or may not have taken effect" in got and "wait_here" in got


def test_an_interrupted_call_that_is_safe_to_repeat_is_made_again(tmp_path: Path) -> None:
    result = _killed_mid_step_then_resumed(tmp_path, "yes")
    assert (tmp_path / "calls.log").read_text().splitlines() == ["send hello", "wait", "wait"]
    assert result["answer"] == "sent #1|waited"


def test_the_ledger_gives_back_saved_results_and_errors_in_process() -> None:
    from smol_core.durable.tool_ledger import RecordedToolError, ToolLedger

    saves: list[int] = []
    first = ToolLedger([], lambda: saves.append(1))
    assert first.call("add", {"a": 1}, False, lambda: 2) == 2
    with pytest.raises(ValueError):
        first.call("div", {"b": 0}, True, lambda: 1 / 0 if False else (_ for _ in ()).throw(ValueError("no")))
    # an unsafe call: saved before it runs and after; a safe one: after only
    assert len(saves) == 3
    resumed = ToolLedger(list(first.entries), lambda: None)
    calls: list[str] = []
    assert resumed.call("add", {"a": 1}, False, lambda: calls.append("add")) == 2
    with pytest.raises(RecordedToolError, match="ValueError: no"):
        resumed.call("div", {"b": 0}, True, lambda: calls.append("div"))
    assert resumed.call("add", {"a": 2}, False, lambda: 5) == 5  # other arguments: a new call
    assert calls == []


class _Stopped(BaseException):
    """What a process's stop raises in a call (as a team agent's SIGTERM does): no tool's error."""


def test_a_call_cut_short_by_a_stop_is_in_flight_not_failed() -> None:
    """A stop raised through a call (a team whose host died stops its agents with SIGTERM, raised
    where the agent is, often in `receive_messages`) was saved as the call's own failure: the
    resumed run was handed "TeamStopped" as the tool's result instead of making the call again."""
    from smol_core.durable.tool_ledger import ToolCallInterruptedError, ToolLedger

    def stopped() -> None:
        raise _Stopped

    first = ToolLedger([], lambda: None)
    for tool, safe in (("receive", True), ("pay", False)):
        with pytest.raises(_Stopped):
            first.call(tool, {}, safe, stopped)
    resumed = ToolLedger(list(first.entries), lambda: None)
    assert resumed.call("receive", {}, True, lambda: "made again") == "made again"
    with pytest.raises(ToolCallInterruptedError, match="may or may not have taken effect"):
        resumed.call("pay", {}, False, lambda: "paid twice")
