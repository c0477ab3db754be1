"""The small-model draft vote says which drafts it dropped, and why.

"Drafted 3 answers: 391, 391; kept 391" listed two answers for three drafts: a draft that failed to
run, or whose answer the checks ranked below the others, vanished from the line without a word.
"""

from __future__ import annotations

import dataclasses
import io

from smol_core import CodeAgent, LogLevel
from smol_core.monitoring import AgentLogger
from smol_core.testing import ScriptedModel


def code(body: str) -> str:
    return f"Thought: I compute.\n<code>\n{body}\n</code>"


def _small(model: ScriptedModel) -> ScriptedModel:
    model.capabilities = dataclasses.replace(model.capabilities, small=True)
    return model


def _vote_line(replies: list[str], task: str) -> str:
    stream = io.StringIO()
    agent = CodeAgent(tools=[], model=_small(ScriptedModel(replies)), verbosity_level=LogLevel.INFO)
    agent.logger = AgentLogger(level=LogLevel.INFO, stream=stream)
    with agent:
        agent.run(task, max_steps=1)
    return next(line for line in stream.getvalue().splitlines() if line.startswith("Drafted"))


def test_a_draft_that_fails_to_run_is_named_with_its_error() -> None:
    line = _vote_line(
        [code("final_answer(17 * 23)"), code("final_answer(1 / 0)"), code("final_answer(17 * 23)")],
        "What is 17 times 23?",
    )
    assert "391, 391" in line and "kept 391" in line, line
    assert "dropped draft 2" in line and "ZeroDivisionError" in line, line


def test_a_draft_that_gives_no_answer_or_does_not_parse_is_named() -> None:
    line = _vote_line(
        [code("x = 17 * 23"), "no code at all", code("final_answer(17 * 23)")], "What is 17 times 23?"
    )
    assert "dropped draft 1 (no final_answer)" in line, line
    assert "dropped draft 2 (no code)" in line, line
