"""Tables on the terminal: a header and columns aligned by what the eye sees.

Why by display width: a cell's length in characters is not its width on screen (a CJK character
takes two columns, a combining accent none), so columns aligned by `len` drift apart on the first
name written in another script. Cells must already be escaped (`smol_core.terminal.escape_line`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence


def display_width(text: str) -> int:
    """The columns `text` takes in a terminal: wide characters count two, combining marks none."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of the table: the header, then each row, every column as wide as its widest cell."""
    widths = [display_width(title) for title in header]
    for row in rows:
        widths = [max(width, display_width(cell)) for width, cell in zip(widths, row, strict=True)]
    lines = []
    for row in [header, *rows]:
        cells = [cell + " " * (width - display_width(cell)) for cell, width in zip(row, widths, strict=True)]
        lines.append("  ".join(cells).rstrip())
    return lines


def print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    for line in format_table(header, rows):
        print(line)
