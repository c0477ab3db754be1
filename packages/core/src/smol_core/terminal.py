"""Text that reaches a terminal: escape the control characters a model or a sandbox could plant.

Why: what the code prints, what a tool returns and what the model answers are written by someone
else, and a terminal obeys escape sequences in anything it displays. OSC 52 writes the user's
clipboard, OSC 0/2 sets the window title, CSI sequences move the cursor and erase lines (so a log can
hide what really ran), a bare carriage return overwrites the start of a line, and bidirectional
overrides reorder what the eye reads ("Trojan Source"). So every piece of foreign text shown on the
console, and the final answer printed on stdout, goes through `escape_controls` first: each such
character is replaced by its visible Python escape (`\\x1b`, `\\r`, `\\u202e`), which keeps it
readable and keeps the data recoverable, while newlines and tabs stay as they are.

The check is one regular-expression search, so text without control characters (nearly all of it)
costs a fraction of a microsecond per line.
"""

from __future__ import annotations

import re

__all__ = ["escape_controls", "escape_line"]

# C0 controls but tab and newline, DEL, C1 controls, the invisible bidirectional marks and
# overrides, the Unicode line and paragraph separators, and lone surrogates (from JSON's "\ud800":
# not text at all, and printing one raises UnicodeEncodeError).
_CONTROL_CHARS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
)
_CONTROL = re.compile(f"[{_CONTROL_CHARS}]")
_LINE_BREAK = re.compile(f"[\n{_CONTROL_CHARS}]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x0D:
        return "\\r"
    if code == 0x0A:
        return "\\n"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """`text` with every terminal control character shown as its escape; newlines and tabs are kept."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(_visible, text)


def escape_line(text: str) -> str:
    """`text` as one line of a terminal: `escape_controls`, and newlines shown as `\\n` too (a viewer
    prints one record per line; a field of a file must not start a line that looks like another)."""
    if _LINE_BREAK.search(text) is None:
        return text
    return _LINE_BREAK.sub(_visible, text)
