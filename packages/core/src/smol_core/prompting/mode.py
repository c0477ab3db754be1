"""One line that says how a `CodeAgent` prompts its model, and why: for verbose output.

The same model behaves very differently under the small-model prompt with a GBNF grammar and under the
generic prompt with JSON actions, and which one a run gets depends on what was learned about the model
(its file size in process, what its server reported, a user's override). Saying so at the start of
each run turns "why does it do worse over HTTP?" into something a user can read.
"""

from __future__ import annotations

from typing import Literal

# How the agent constrains each reply: JSON `{thought, code}`, a GBNF grammar, or not at all.
ActionFormat = Literal["json", "grammar", "free"]

_ACTIONS: dict[ActionFormat, str] = {
    "json": "JSON-constrained actions (response_format)",
    "grammar": "GBNF-constrained actions (grammar)",
    "free": "unconstrained actions",
}


_SHORT_ACTIONS: dict[ActionFormat, str] = {"json": "JSON actions", "grammar": "grammar", "free": "free text"}


def describe_mode(
    *,
    small: bool,
    tools_used: bool,
    has_tools: bool,
    actions: ActionFormat,
    drafts: int,
    reason: object,
    short: bool = False,
) -> str:
    """`Model mode: small-model prompt, GBNF-constrained actions, 3 answer drafts (because ...)`.

    `small`: the small-model prompt; `has_tools`: tools besides final_answer and no team;
    `tools_used`: each block calls a tool first; `actions`: "json", "grammar" or "free";
    `drafts`: answers drafted per step; `reason`: what the model says of how its capabilities
    were learned (`capabilities_reason`), if it says anything. `short`: the few words a run opens
    with (`Model: small, grammar, 3 drafts`), the rest being for verbose output."""
    if short:
        words = ["small" if small else "generic", _SHORT_ACTIONS[actions]]
        if drafts > 1:
            words.append(f"{drafts} drafts")
        return f"Model: {', '.join(words)}"
    parts = ["small-model prompt with worked examples" if small else "generic prompt"]
    if small and has_tools:
        parts.append(
            "tool examples, each block calling a tool first"
            if tools_used
            else "no tool call (the task names nothing the tools are about)"
        )
    parts.append(_ACTIONS[actions])
    if drafts > 1:
        parts.append(f"{drafts} answer drafts per step")
    because = f" (because: {reason})" if isinstance(reason, str) and reason else ""
    return f"Model mode: {', '.join(parts)}{because}"
