"""A status line on the terminal while a step runs: what the agent is doing, and for how long.

Why: a step of a small local model on a loaded machine takes minutes, and at
`--verbosity-level -1` (or between two log lines at any level) the command printed nothing all
that time, so a user could not tell a slow model from a hung one. The line says
`step 2: waiting for the model… 12 s`, `step 2: running code… 3 s` or `step 2: calling web_search…`,
is redrawn each second in place, and is erased as soon as the phase ends, before the agent logs
anything: the log reads as it would without it.

Only when stderr is a terminal: a pipe or a file (`2> log`, CI) gets nothing extra. The agent
loop already reports its phases to tracing (`smol_core.instrumentation`); the status line is one
more instrumentor, so the loop needs no hook of its own.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator, Mapping
from typing import IO, Any

from smol_core import instrumentation
from smol_core.terminal import escape_line

SHOW_AFTER_SECONDS = 1.0
"""A phase shorter than this is never drawn: no flicker for quick steps."""
_CLEAR = "\r\x1b[2K"


def _phase(kind: str, name: str, attributes: Mapping[str, Any], quiet: bool) -> str | None:
    # In a quiet run (nothing logged between phases), a step is waiting for its model whenever
    # nothing inside it (code, a tool) is under way: a model that overrides `generate` the smolagents
    # way makes no span of its own. With a log, its lines would land on the drawn status line.
    if kind == "model" or (kind == "step" and quiet):
        return "waiting for the model"
    if kind == "code":
        return "running code"
    if kind == "tool":
        return f"calling {escape_line(str(attributes.get('tool.name', name)))[:40]}"
    if kind == "planning":
        return "planning"
    return None


class _Handle:
    """One span: it enters its phase when started and leaves it when ended."""

    def __init__(self, line: StatusLine, phase: str | None) -> None:
        self.line, self.phase, self.ended = line, phase, False
        if phase is not None:
            line.enter(self)

    def set(self, key: str, value: Any) -> None:
        pass

    def event(self, name: str, attributes: Mapping[str, Any]) -> None:
        pass

    def error(self, error: BaseException) -> None:
        pass

    def activate(self) -> contextlib.AbstractContextManager[Any]:
        return contextlib.nullcontext()

    def end(self) -> None:
        if not self.ended:
            self.ended = True
            if self.phase is not None:
                self.line.leave(self)


class StatusLine:
    """An instrumentor that draws the current step and phase on `stream`, a terminal."""

    def __init__(self, stream: IO[str], quiet: bool = False) -> None:
        self.stream, self.quiet = stream, quiet
        self.step: int | None = None
        self.phases: list[tuple[_Handle, float]] = []
        self.drawn = False
        self.shown = ""
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._redraw, name="smol-status-line", daemon=True)

    # the Instrumentor protocol
    def start_span(self, kind: str, name: str, attributes: Mapping[str, Any], parent: Any) -> _Handle:
        if kind == "step" and isinstance(attributes.get("step.number"), int):
            self.step = attributes["step.number"]
        return _Handle(self, _phase(kind, name, attributes, self.quiet))

    def add_event(self, name: str, attributes: Mapping[str, Any]) -> None:
        pass

    def capture(self) -> Any:
        return None

    def inject(self, context: Any) -> dict[str, str]:
        return {}

    def extract(self, carrier: Mapping[str, str]) -> Any:
        return None

    def flush(self, timeout_seconds: float) -> None:
        pass

    # phases
    def enter(self, handle: _Handle) -> None:
        with self.lock:
            self._erase()
            self.phases.append((handle, time.monotonic()))

    def leave(self, handle: _Handle) -> None:
        with self.lock:
            self._erase()  # before the agent logs what the phase gave
            self.phases = [(h, started) for h, started in self.phases if h is not handle]
            if self.phases:  # the phase beneath starts again: its time so far was the inner one's
                self.phases[-1] = (self.phases[-1][0], time.monotonic())

    def text(self, now: float) -> str | None:
        """The line for the innermost phase under way, once it has lasted SHOW_AFTER_SECONDS."""
        if not self.phases:
            return None
        handle, started = self.phases[-1]
        elapsed = now - started
        if elapsed < SHOW_AFTER_SECONDS:
            return None
        prefix = f"step {self.step}: " if self.step is not None else ""
        return f"{prefix}{handle.phase}… {int(elapsed)} s"

    def _erase(self) -> None:
        if self.drawn:
            self._write(_CLEAR)
            self.drawn = False

    def _write(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.stream.write(text)
            self.stream.flush()

    def _redraw(self) -> None:
        while not self.stop.wait(0.25):
            with self.lock:
                line = self.text(time.monotonic())
                if line is not None:
                    line = line[: _columns(self.stream) - 1]  # one row: a wrapped line could not be erased
                    if not self.drawn or line != self.shown:
                        self._write(_CLEAR + line)
                        self.drawn, self.shown = True, line

    def close(self) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join(2)
        with self.lock:
            self._erase()


def _columns(stream: IO[str]) -> int:
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 80
    return columns if columns >= 20 else 80  # 0: a terminal that did not say its size


def wanted(stream: IO[str]) -> bool:
    """A status line only on a terminal that can erase a line (not a pipe, a file, TERM=dumb)."""
    try:
        terminal = stream.isatty()
    except (OSError, ValueError, AttributeError):
        return False
    return terminal and os.environ.get("TERM", "") != "dumb"


@contextlib.contextmanager
def status_line(stream: IO[str], quiet: bool = False) -> Iterator[StatusLine | None]:
    """Show the agent's progress on `stream` for the `with` block, if it is a terminal. `quiet`: the
    agent logs nothing between its phases (verbosity 0 or -1)."""
    if not wanted(stream):
        yield None
        return
    line = StatusLine(stream, quiet)
    instrumentation.add_instrumentor(line)
    line.thread.start()
    try:
        yield line
    finally:
        instrumentation.remove_instrumentor(line)
        line.close()
