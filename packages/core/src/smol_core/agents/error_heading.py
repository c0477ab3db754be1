"""A failed action's error, headed by the line of the action that failed.

Why: smolagents words a failed action as "Code execution failed at line '<line>' due to: <error>",
and models (and people reading logs) go straight to that line. smol keeps the real CPython
traceback, which says more (every frame, the exact expression); this puts smolagents' heading above
it, so both are there and the error itself is said once.
"""

from __future__ import annotations

import re

__all__ = ["with_failing_line"]

_MODULE_FRAME = re.compile(r'File "<code #\d+>", line (\d+), in <module>')


def with_failing_line(message: str, code: str) -> str:
    """A sandbox traceback headed, as smolagents words its errors, by the line of the action that
    failed: "Code execution failed at line '<line>' due to: <error>", then the traceback's frames
    (the error is said once). The line is read from the agent's own code (the traceback gives
    only its number); a message that is not such a traceback is returned as it is."""
    if not message.startswith("Traceback (most recent call last):"):
        return message
    numbers = _MODULE_FRAME.findall(message)
    code_lines = code.splitlines()
    if not numbers or not 0 < int(numbers[-1]) <= len(code_lines):
        return message
    failing = code_lines[int(numbers[-1]) - 1].strip()
    lines = message.splitlines()
    # the frames are indented; the error starts at the first line after the header that is not
    end = next((i for i in range(1, len(lines)) if not lines[i].startswith(" ")), len(lines))
    error = "\n".join(lines[end:]) or "the error above"
    return f"Code execution failed at line '{failing}' due to: {error}\n" + "\n".join(lines[:end])
