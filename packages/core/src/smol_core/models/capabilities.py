"""`ModelCapabilities`: what a backend can do natively, declared so the agent adapts instead of guessing.

A model without `stop` support gets its reply cut client-side; one without native tools gets tool calls
parsed from text (or held to a JSON schema); a small one gets the compact prompt.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ModelCapabilities"]


@dataclass(frozen=True)
class ModelCapabilities:
    """What a backend can do natively. The agent and the base class work around what it cannot."""

    stop_sequences: bool = True
    tool_calling: bool = True
    structured_output: bool = False
    vision: bool = False
    streaming: bool = True
    grammar: bool = False
    """Takes `grammar=` (a GBNF grammar, as llama.cpp does): then constrained decoding can keep the
    plain-text action format that small models copy best, instead of JSON."""
    small: bool = False
    """A small model (some hundred million parameters) that copies patterns rather than following
    instructions: agents give it a compact prompt, worked examples picked for the task and, under a
    grammar, short code blocks that open with the task as a comment."""
    reports_usage: bool = True
    """Each reply carries its token counts (`ChatMessage.token_usage`). A model that cannot say (a
    plain function) declares False, and a tokens budget on it is refused when a run starts, rather
    than counting its calls as free."""
    token_logprobs: bool = False
    """Reports each reply token's log-probability when a request passes `logprobs=True`, in the reply's
    `raw` as OpenAI's chat completions shape it (`choices[0].logprobs.content[i].token / .logprob`):
    a small model's first drafted answer that it was sure of then needs no second draft
    (`smol_core.prompting.draft_certainty`)."""
