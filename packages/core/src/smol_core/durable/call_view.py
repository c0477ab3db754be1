"""A tool call as a person reads it before approving it: whole, escaped, and named by a short key.

Why whole: a person approves what they see, and the run makes exactly the call the ledger kept. A view
that showed the first few hundred characters let a long argument (a memo) push the recipient and the
amount of a transfer out of sight. So every view renders all of the call from the ledger's copy of its
arguments; a view that must be short (an exception's message) shortens each argument, never only the
end, and says so and how to see the call whole.

Why escaped: the arguments were written by the model, which read whatever a file or a web page said.
Each argument is shown as its `repr` (quotes, `\\n`, `\\x1b` visible), and the whole line goes through
`escape_line`, so control characters, ANSI sequences and bidirectional overrides appear as escapes
and cannot move the cursor, rewrite a line or reorder what the eye reads.

Why a key: `approve`/`deny` must act on the call the person saw, not on whatever waits by the time
they decide (a second operator, or the run moving on). The key is derived from the run, the step, the
call's canonical encoding and how many such calls the step made before (`approval_key`), so another
call, or the same call asked again in another step, has another key.
"""

from __future__ import annotations

import hashlib
from typing import Any

from smol_core.terminal import escape_line

APPROVAL_KEY_CHARS = 12
"""Hex characters of an approval key: 48 bits, short enough to type, far from any chance collision."""
ONE_LINE_CHARS = 100
"""A call longer than this is shown one argument per line."""
SHORT_ARGUMENT_CHARS = 160
"""How much of each argument a short view (a message) shows."""


def approval_key(attempt_key: str) -> str:
    """The key a person approves a call by, from the call's attempt key (the run id, the step, the
    call's tool and canonical arguments, and its occurrence in the step)."""
    return hashlib.sha256(f"approval\0{attempt_key}".encode()).hexdigest()[:APPROVAL_KEY_CHARS]


def _argument_texts(arguments: Any) -> list[str]:
    if isinstance(arguments, dict) and all(isinstance(name, str) for name in arguments):
        return [f"{escape_line(name)}={_repr(value)}" for name, value in arguments.items()]
    if isinstance(arguments, list | tuple):
        return [_repr(value) for value in arguments]
    return [] if arguments is None else [_repr(arguments)]


def _repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # a value whose repr fails is still shown, by its type
        text = f"<{type(value).__name__} whose repr failed>"
    return escape_line(text)


def describe_call(tool: str, arguments: Any) -> str:
    """The whole call, escaped: `send_email(to='a@b.c', body='hi')`, or, when long, one argument per
    line so each one's name starts a line of its own."""
    name = escape_line(str(tool))
    parts = _argument_texts(arguments)
    one_line = f"{name}({', '.join(parts)})"
    if len(one_line) <= ONE_LINE_CHARS:
        return one_line
    return name + "(\n" + "".join(f"    {part},\n" for part in parts) + ")"


def short_call(tool: str, arguments: Any, limit: int = SHORT_ARGUMENT_CHARS) -> tuple[str, bool]:
    """The call on one line with each argument cut to `limit` characters (every argument's name
    stays in sight); and whether anything was cut (the caller then says where to see it whole)."""
    cut = False
    shown = []
    for part in _argument_texts(arguments):
        if len(part) > limit:
            shown.append(f"{part[:limit]}…[{len(part) - limit:,} more characters]")
            cut = True
        else:
            shown.append(part)
    return f"{escape_line(str(tool))}({', '.join(shown)})", cut
