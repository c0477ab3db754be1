"""The vote among a step's drafted answers, for small models (`SmallModelPrompting.drafts_per_step`).

Self-consistency: one wrong operation (`%` for "divided by") decides a greedy reply, and a different
context (other worked examples) often avoids it while a right answer tends to recur. The agent drafts
and runs each answer; this module keeps the score: drafts that fail to parse or to run, call a tool
(their effects would repeat), or end without an answer do not vote; the others are ranked by the
checks of `prompting/draft_checks.py`, only the best-ranked vote, and the most common answer wins.
A draft whose answer is a function or its repr does not vote, and each answer is first put into the
form the question asks for, or taken from what the code printed (`prompting/answer_form.py`). The
vote's line says which drafts were dropped, and why, and what the kept answer passed ("2 of 3
drafts agreed", "form as asked: a number"): never that it is right.

Drafting stops early once the drafts still to come cannot matter (`DraftVote.decided`): when the
first draft fits every check and the model was sure of it (`prompting/draft_certainty.py`), or when
the leading answer, at the best rank a draft can reach, has more votes than any other could gather.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from smol_core.executors.base import CodeOutput
from smol_core.messages import ChatMessage, TokenUsage
from smol_core.prompting.answer_form import (
    FORM_NAMES,
    asked_form,
    fits_form,
    from_printed,
    in_asked_form,
    not_a_value,
)
from smol_core.prompting.draft_certainty import CERTAIN_LOGPROB
from smol_core.prompting.draft_checks import best_rank, draft_rank

__all__ = ["Draft", "DraftVote"]


@dataclass
class Draft:
    message: ChatMessage
    output: CodeOutput
    prompt: list[ChatMessage] | None  # what this draft was generated from
    rank: tuple[int, ...]  # how well it fits the task, before any vote (`prompting/draft_checks.py`)
    number: int = 0  # its place among the step's drafts, from 1, as the vote's line names it
    certainty: float | None = None  # the least likely token the model chose in its code (log-probability)

    @property
    def key(self) -> str:
        """What votes are counted on: the answer's repr, with 12.0 counted as 12 (a draft that
        divides and one that multiplies back agree on the number)."""
        value = self.output.output
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return repr(value)


@dataclass
class DraftVote:
    """The drafts of one step, as they come: counted, dropped with a reason, or kept to vote."""

    count: int  # how many answers the step drafts
    task: str
    tools: Iterable[str]  # the agent's tool names, final_answer included
    drafts: list[Draft] = field(default_factory=list)
    dropped: dict[int, str] = field(default_factory=dict)  # draft number -> why it did not vote
    input_tokens: int = 0
    output_tokens: int = 0
    drafted: int = 0  # how many drafts were generated: fewer than `count` when the vote was decided early

    def count_tokens(self, message: ChatMessage) -> None:
        """Every draft's tokens are the step's, whichever wins (called once per draft generated)."""
        self.drafted += 1
        if message.token_usage is not None:
            self.input_tokens += message.token_usage.input_tokens
            self.output_tokens += message.token_usage.output_tokens

    def calls_a_tool(self, code: str) -> bool:
        """Whether `code` names one of the agent's tools besides final_answer: drafts run for their
        answer alone, so such a draft is not run."""
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return False  # the executor reports it
        tools = set(self.tools) - {"final_answer"}
        return any(isinstance(node, ast.Name) and node.id in tools for node in ast.walk(tree))

    def drop(self, number: int, reason: str) -> None:
        self.dropped[number] = reason

    def drop_failed(self, number: int, error: BaseException) -> None:
        self.dropped[number] = _first_line(error)

    def add(
        self,
        number: int,
        message: ChatMessage,
        code: str,
        output: CodeOutput,
        prompt: list[ChatMessage] | None,
        certainty: float | None = None,
    ) -> None:
        """A draft that ran: it votes if it gave an answer, and that answer is a value (not a
        function or its repr). Its answer is first put into the form the task asks for
        (`prompting/answer_form.py`). `certainty`: see `Draft.certainty`."""
        if not output.is_final_answer:
            self.dropped[number] = "no final_answer"
            return
        output = self._in_form(output)
        reason = not_a_value(output.output)
        if reason is not None:
            self.dropped[number] = reason
            return
        rank = draft_rank(output.output, code, self.task)
        self.drafts.append(Draft(message, output, prompt, rank, number, certainty))

    def _in_form(self, output: CodeOutput) -> CodeOutput:
        """The answer in the form asked; where `final_answer` got a function or a value of another
        form and the code's last printed line has the form asked, that line's value."""
        answer = output.output
        form = asked_form(self.task)
        if not_a_value(answer) or not fits_form(answer, form, self.task):
            printed = from_printed(output.logs, self.task)
            if printed is not None:
                return CodeOutput(printed, output.logs, True)
        return CodeOutput(in_asked_form(answer, self.task), output.logs, True)

    def decided(self, remaining: int) -> bool:
        """Whether `remaining` more drafts could not change the winner: the only draft so far fits
        every check and the model was certain of it, or the leading answer at the best rank a draft
        can reach has more votes than `remaining` drafts could give any other answer."""
        best = best_rank(self.task)
        top = [draft for draft in self.drafts if draft.rank == best]
        if not top:
            return False
        if self.drafted == 1 and top[0].certainty is not None and top[0].certainty >= CERTAIN_LOGPROB:
            return True
        votes = [*sorted(Counter(draft.key for draft in top).values(), reverse=True), 0]
        return votes[0] - votes[1] > remaining

    def winner(self) -> Draft | None:
        """The most common answer among the best-ranked drafts (ties: the first drafted), with all
        drafts' tokens as its usage; None if no draft gave an answer."""
        if not self.drafts:
            return None
        voters = self._voters()
        votes = Counter(draft.key for draft in voters)
        winner = max(voters, key=lambda draft: votes[draft.key])
        winner.message.token_usage = TokenUsage(self.input_tokens, self.output_tokens)
        return winner

    def line(self, winner: Draft) -> str:
        """`Drafted 3 answers: 391, 392, 391; kept 391 (2 of 3 drafts agreed; form as asked: a
        number)`: what was checked, never a claim that the answer is right. When the vote was
        decided early: `Drafted 1 of 3 answers: 391; kept 391 (1 draft, each token of its code at
        even odds or better; ...)`."""
        best = max(draft.rank for draft in self.drafts)
        dropped = dict(self.dropped)
        for draft in self.drafts:
            if draft.rank != best:
                dropped[draft.number] = f"{draft.key}: {_ranked_lower(draft.rank, best)}"
        why = "".join(f"; dropped draft {number} ({reason})" for number, reason in sorted(dropped.items()))
        voters = self._voters()
        shown = ", ".join(draft.key for draft in voters)
        drafted = f"{self.drafted} of {self.count}" if self.drafted < self.count else f"{self.count}"
        return f"Drafted {drafted} answers: {shown}; kept {winner.key} ({self._checked(winner, voters)}){why}"

    def _checked(self, winner: Draft, voters: list[Draft]) -> str:
        """What the kept answer passed: how many drafts agreed (or the model's odds for a lone
        first draft), and whether its form matches the question's."""
        agreed = sum(draft.key == winner.key for draft in voters)
        if self.drafted == 1 and self.drafted < self.count:
            checked = "1 draft, each token of its code at even odds or better"
        elif agreed == len(voters):
            checked = f"{agreed} drafts agreed" if agreed > 1 else "1 draft gave an answer"
        else:
            checked = f"{agreed} of {len(voters)} drafts agreed"
        if 1 < self.drafted < self.count:
            checked += ", the rest could not outvote them"
        form = asked_form(self.task)
        if form is not None and fits_form(winner.output.output, form, self.task):
            checked += f"; form as asked: {FORM_NAMES[form]}"
        return checked

    def _voters(self) -> list[Draft]:
        best = max(draft.rank for draft in self.drafts)
        return [draft for draft in self.drafts if draft.rank == best]


def _first_line(error: BaseException) -> str:
    """An error as a few words for the vote's line: the code's own error (a traceback's last line),
    or the error's type and the first line of its message."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    if lines[0].startswith("Traceback"):
        return lines[-1][:100]
    return f"{type(error).__name__}: {lines[0][:80]}"


def _ranked_lower(rank: tuple[int, ...], best: tuple[int, ...]) -> str:
    """Why the checks put a draft below the best (`draft_checks.draft_rank`'s order)."""
    reasons = ("it repeats the task", "not the kind of answer asked", "does fewer of the task's operations")
    for position, reason in enumerate(reasons):
        if position < len(rank) and rank[position] != best[position]:
            return reason
    return "ranked lower"
