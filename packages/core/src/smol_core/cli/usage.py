"""One style for every usage error of `smolagent` and `smol`: one line on stderr, exit status 2.

argparse prints the whole usage block (a dozen lines for `smolagent`) and then the error, while
the commands' own errors were one line, `program: what happened`: a user saw two styles, and the
line that mattered came last under the flags. Here a usage error reads as every other error does,
`smolagent: --max-steps must be at least 1, got 0 (see smolagent --help)`; `--help` still shows
the usage. Subcommands' parsers (`smol mcp serve`) are of the same class, so they say the same.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import NoReturn

from smol_core.terminal import escape_line


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: `prog: message (see prog --help)`."""

    def error(self, message: str) -> NoReturn:
        line = f"{self.prog}: {escape_line(message)} (see {self.prog} --help)"
        with contextlib.suppress(OSError, ValueError):  # no terminal to tell: the status still says it
            print(line, file=sys.stderr)
        raise SystemExit(2)
