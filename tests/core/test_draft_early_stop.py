"""A small model's drafting stops once the other drafts could not change the vote (issue 28, part 4).

Three drafts cost three generations: the main job (`smolagent "What is 17 times 23?"`) paid them all
although the model wrote its first answer without hesitating. Now a first draft that fits every check
and whose tokens the model was sure of (`prompting/draft_certainty.py`) is kept alone, and two
drafts that agree at the best rank spare the third, which could not outvote them.
"""

from __future__ import annotations

import dataclasses
import io
import math
from types import SimpleNamespace

from smol_core import CodeAgent, LogLevel
from smol_core.executors.base import CodeOutput
from smol_core.messages import ChatMessage, MessageRole
from smol_core.monitoring import AgentLogger
from smol_core.prompting.draft_certainty import CERTAIN_LOGPROB, least_likely_choice, token_logprobs
from smol_core.prompting.drafts import DraftVote
from smol_core.testing import ScriptedModel

TASK = "What is 17 times 23?"
SURE = math.log(0.9)
UNSURE = math.log(0.2)


def tokens(*pieces: tuple[str, float]) -> list[tuple[str, float]]:
    return list(pieces)


def reply(result_line: str, operator_logprob: float) -> ChatMessage:
    """A draft as llama.cpp returns it with `logprobs=True`: `result = 17 <op> 23`, the operator's
    token at `operator_logprob`, every other token certain."""
    left, operator, right = result_line.partition(" = ")[2].split(" ")
    pieces = [
        ("<code>", 0.0),
        ("\n", 0.0),
        (f"# {TASK}", math.log(0.1)),  # the grammar writes the task: never counts
        ("\n", 0.0),
        ("result", math.log(0.05)),  # a name the code binds: never counts
        (" =", 0.0),
        (f" {left}", 0.0),
        (f" {operator}", operator_logprob),
        (f" {right}", 0.0),
        ("\n", 0.0),
        ("final", math.log(0.01)),  # required by the grammar: never counts
        ("_answer", 0.0),
        ("(result)", 0.0),
        ("\n", 0.0),
    ]
    text = "".join(piece for piece, _ in pieces)
    raw = {
        "choices": [
            {"logprobs": {"content": [{"token": piece, "logprob": value} for piece, value in pieces]}}
        ]
    }
    return ChatMessage(MessageRole.ASSISTANT, text + "</code>", raw=raw)


def _agent(model: ScriptedModel, logprobs: bool) -> tuple[CodeAgent, io.StringIO]:
    model.capabilities = dataclasses.replace(
        model.capabilities, small=True, grammar=True, token_logprobs=logprobs
    )
    stream = io.StringIO()
    agent = CodeAgent(
        tools=[], model=model, use_structured_outputs_internally=True, verbosity_level=LogLevel.INFO
    )
    agent.logger = AgentLogger(level=LogLevel.INFO, stream=stream)
    return agent, stream


def _vote_line(stream: io.StringIO) -> str:
    return next(line for line in stream.getvalue().splitlines() if line.startswith("Drafted"))


def test_a_certain_first_draft_is_kept_alone_and_only_it_asks_for_logprobs() -> None:
    model = ScriptedModel([reply("result = 17 * 23", SURE)] * 3)
    agent, stream = _agent(model, logprobs=True)
    with agent:
        assert agent.run(TASK) == 391
    assert len(model.calls) == 1
    assert model.calls[0].get("logprobs") is True
    assert _vote_line(stream) == (
        "Drafted 1 of 3 answers: 391; kept 391 (1 draft, each token of its code at even odds or better; "
        "form as asked: a number)"
    )


def test_an_uncertain_first_draft_drafts_on() -> None:
    # the model hesitated on its operator: the next draft is written (and, agreeing, spares the third)
    model = ScriptedModel([reply("result = 17 * 23", UNSURE)] + [reply("result = 17 * 23", SURE)] * 2)
    agent, stream = _agent(model, logprobs=True)
    with agent:
        assert agent.run(TASK) == 391
    assert len(model.calls) == 2
    assert [call.get("logprobs") for call in model.calls] == [True, None]
    assert _vote_line(stream).startswith("Drafted 2 of 3 answers: 391, 391")


def test_a_first_draft_that_misses_an_operation_of_the_task_is_not_certain_however_sure() -> None:
    # "times" asks for a multiplication: `17 + 23` ranks below the best a draft can reach
    model = ScriptedModel(
        [reply("result = 17 + 23", SURE), reply("result = 17 * 23", SURE), reply("result = 17 * 23", SURE)]
    )
    agent, _ = _agent(model, logprobs=True)
    with agent:
        assert agent.run(TASK) == 391
    assert len(model.calls) == 3


def test_a_model_without_logprobs_is_never_asked_for_them_and_two_agreeing_drafts_spare_the_third() -> None:
    model = ScriptedModel([reply("result = 17 * 23", SURE)] * 2 + [reply("result = 17 + 23", SURE)])
    agent, stream = _agent(model, logprobs=False)
    with agent:
        assert agent.run(TASK) == 391
    assert len(model.calls) == 2
    assert all("logprobs" not in call for call in model.calls)
    assert _vote_line(stream) == (
        "Drafted 2 of 3 answers: 391, 391; kept 391 (2 drafts agreed, the rest could not outvote them; "
        "form as asked: a number)"
    )


def _vote_with(*answers: tuple[int, str, float | None]) -> DraftVote:
    vote = DraftVote(3, TASK, ["final_answer"])
    for number, (value, code, certainty) in enumerate(answers, start=1):
        vote.count_tokens(ChatMessage(MessageRole.ASSISTANT, code))
        vote.add(
            number,
            ChatMessage(MessageRole.ASSISTANT, code),
            code,
            CodeOutput(value, "", True),
            None,
            certainty,
        )
    return vote


def test_the_vote_is_decided_only_when_the_remaining_drafts_cannot_change_it() -> None:
    assert _vote_with((391, "final_answer(17 * 23)", SURE)).decided(remaining=2)
    assert not _vote_with((391, "final_answer(17 * 23)", UNSURE)).decided(remaining=2)
    assert not _vote_with((391, "final_answer(17 * 23)", None)).decided(remaining=2)
    assert not _vote_with((391, "final_answer(391)", SURE)).decided(remaining=2)  # no multiplication
    agreeing = _vote_with((391, "final_answer(17 * 23)", None), (391, "final_answer(23 * 17)", None))
    assert agreeing.decided(remaining=1) and not agreeing.decided(remaining=2)
    split = _vote_with((391, "final_answer(17 * 23)", None), (40, "final_answer(17 * 23 - 351)", None))
    assert not split.decided(remaining=1)


def test_certainty_counts_only_the_tokens_that_decide_what_the_code_computes() -> None:
    message = reply("result = 17 * 23", UNSURE)
    found = token_logprobs(message)
    assert found is not None
    code = "result = 17 * 23\nfinal_answer(result)"
    assert least_likely_choice(found, code) == UNSURE  # the operator, not the comment, name or final_answer
    assert least_likely_choice(token_logprobs(reply("result = 17 * 23", SURE)) or [], code) == SURE
    assert SURE >= CERTAIN_LOGPROB > UNSURE
    assert least_likely_choice([("# only a comment", -5.0)], code) is None


def test_logprobs_are_read_from_dicts_or_client_objects_and_missing_ones_are_none() -> None:
    entry = SimpleNamespace(token="x", logprob=-0.5)
    as_objects = SimpleNamespace(choices=[SimpleNamespace(logprobs=SimpleNamespace(content=[entry]))])
    assert token_logprobs(ChatMessage(MessageRole.ASSISTANT, "x", raw=as_objects)) == [("x", -0.5)]
    assert (
        token_logprobs(ChatMessage(MessageRole.ASSISTANT, "x", raw={"choices": [{"logprobs": None}]})) is None
    )
    assert token_logprobs(ChatMessage(MessageRole.ASSISTANT, "x")) is None
