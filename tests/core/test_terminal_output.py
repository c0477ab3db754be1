"""What a person sees on a terminal, read from a real pseudo-terminal (tests otherwise read pipes,
where there is no colour, and missed what a terminal showed)."""

from __future__ import annotations

import os
import pty
import select
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from smol_core import CodeAgent
from smol_core.monitoring import AgentLogger, LogLevel
from smol_core.testing import ScriptedModel


@contextmanager
def terminal() -> Iterator[tuple[IO[str], list[bytes]]]:
    """A pseudo-terminal: the stream a program writes to (a tty) and what reached the screen."""
    main, secondary = pty.openpty()
    screen: list[bytes] = []
    with os.fdopen(secondary, "w", buffering=1) as stream:
        try:
            yield stream, screen
            stream.flush()
        finally:
            while select.select([main], [], [], 0.2)[0]:
                chunk = os.read(main, 65536)
                if not chunk:
                    break
                screen.append(chunk)
            os.close(main)


def test_the_final_answer_line_is_styled_on_a_terminal_not_escaped() -> None:
    with terminal() as (stream, screen):
        assert stream.isatty()
        logger = AgentLogger(level=LogLevel.INFO, stream=stream)
        model = ScriptedModel(["<code>\nfinal_answer(391)\n</code>"])
        with CodeAgent(tools=[], model=model, logger=logger) as agent:
            agent.run("What is 17 times 23?")
    shown = b"".join(screen)
    assert b"\x1b[1;33mFinal answer: 391\x1b[0m" in shown
    assert b"\\x1b" not in shown  # the logger's own style codes were printed escaped


def test_an_answer_that_holds_escape_codes_reaches_the_terminal_escaped() -> None:
    with terminal() as (stream, screen):
        logger = AgentLogger(level=LogLevel.INFO, stream=stream)
        model = ScriptedModel(["<code>\nfinal_answer('\\x1b[2Jcleared')\n</code>"])
        with CodeAgent(tools=[], model=model, logger=logger) as agent:
            agent.run("Answer.")
    shown = b"".join(screen)
    assert b"\x1b[2J" not in shown and b"\\x1b[2Jcleared" in shown
