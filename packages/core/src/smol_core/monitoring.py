"""Console output for agent runs, and run metrics.

Each step is shown as users of this kind of tool expect: the model's thought, the code or tool call,
the observation, duration and tokens. Logs go to stderr so that the answer alone goes to stdout.

The renderer is a few lines of ANSI, not a rich-text library: rendering must cost microseconds, since
it runs on every step, and `import smol_core` must stay fast. A rich `Console` is made only when
someone asks for `logger.console` (smolagents' users do: `with agent.logger.console.capture()`), and
from then on the log goes through it, so what it captures or records is the log. Colour is used only on a terminal and
never when NO_COLOR is set. Everything shown that someone else wrote (the model's text, code, logs,
observations, errors, tool and agent names) has its terminal control characters escaped first
(`terminal.escape_controls`); only the logger's own styling codes reach the terminal raw.
"""

from __future__ import annotations

import os
import shutil
import sys
from enum import IntEnum
from typing import IO, TYPE_CHECKING, Any, cast

from smol_core.terminal import escape_controls

if TYPE_CHECKING:
    from smol_core.memory import ActionStep, PlanningStep
    from smol_core.messages import ChatMessage

__all__ = ["AgentLogger", "LogLevel", "Monitor"]


def shown(value: object) -> str:
    """Any value as text to show: bytes decoded (bad bytes replaced), None as nothing, anything else
    by `str`; then control characters escaped. A task, subtitle or observation may be any of these
    (smolagents logs a dict or bytes payload as it is), and the log must never be what fails."""
    if value is None:
        text = ""
    elif isinstance(value, bytes | bytearray | memoryview):
        text = bytes(value).decode("utf-8", errors="replace")
    else:
        text = value if isinstance(value, str) else str(value)
    return escape_controls(text)


# How much of a task the run's heading shows below DEBUG: a task read from a file may be a whole
# document (240,000 characters on one line), which buried the run's log and its error.
TASK_SHOWN_CHARS = 2000
TASK_SHOWN_LINES = 40


def task_lines(text: str) -> list[str]:
    """The lines of a task to show in the run's heading: at most `TASK_SHOWN_LINES` lines and
    `TASK_SHOWN_CHARS` characters, then one line that says how much was left out."""
    lines = text.splitlines() or [""]
    kept: list[str] = []
    used = 0
    for line in lines[:TASK_SHOWN_LINES]:
        room = TASK_SHOWN_CHARS - used
        if room <= 0:
            break
        kept.append(line[:room])
        used += len(line)
    if len(kept) == len(lines) and used <= TASK_SHOWN_CHARS:  # nothing left out
        return kept
    kept.append(
        f"… (the task is cut here in the log: {len(text):,} characters, {len(lines):,} line(s) in all; "
        "--verbosity-level 2 shows it whole)"
    )
    return kept


class LogLevel(IntEnum):
    OFF = -1
    ERROR = 0
    INFO = 1
    DEBUG = 2


_STYLES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
}


def _as_level(level: LogLevel | int) -> LogLevel | int:
    """A named LogLevel where there is one, else the int itself (levels are only ever compared)."""
    try:
        return LogLevel(level)
    except ValueError:
        return int(level)


class _ConsoleStream:
    """A text stream that writes through a rich-style `Console` (anything with `out`, or a `file`)."""

    def __init__(self, console: Any) -> None:
        self.console = console

    def write(self, text: str) -> int:
        out = getattr(self.console, "out", None)
        if callable(out):
            out(text, end="", highlight=False)
        else:
            self.console.file.write(text)
        return len(text)

    def flush(self) -> None:
        file = getattr(self.console, "file", None)
        if file is not None and hasattr(file, "flush"):
            file.flush()

    def isatty(self) -> bool:
        # a rich Console knows whether it writes to a terminal; anything else gets plain text
        return bool(getattr(self.console, "is_terminal", False))


class AgentLogger:
    """Writes a run's steps to a stream (stderr by default), filtered by verbosity level."""

    def __init__(
        self, level: LogLevel | int = LogLevel.INFO, console: Any = None, stream: IO[str] | None = None
    ) -> None:
        # smolagents takes any int as a verbosity (`verbosity_level=100` shows everything), not only
        # the named levels, and a rich `Console` to print to: both are accepted, the console by
        # writing plain text through it (so `Console(record=True).export_text()` sees the log).
        self.level: LogLevel | int = _as_level(level)
        # Set by a caller that reports the error ending a run itself (the `smolagent` command prints
        # it as its last line), so that the log does not say it first: one error, said once.
        self.caller_reports_run_end = False
        self._console = console
        if stream is None and console is not None:
            stream = cast("IO[str]", _ConsoleStream(console))  # only write/flush/isatty are used
        self._stream = stream

    @property
    def stream(self) -> IO[str]:
        return self._stream if self._stream is not None else sys.stderr

    @property
    def console(self) -> Any:
        """The rich `Console` the log is written through, as in smolagents (`.capture()`,
        `.export_text()`, `.print(...)`): the one given to the constructor, else one made now, on
        the logger's stream (stderr by default), through which the log goes from now on."""
        if self._console is None:
            from rich.console import Console

            if self._stream is None:
                self._console = Console(stderr=True, highlight=False, soft_wrap=True)
            else:
                self._console = Console(file=self._stream, highlight=False, soft_wrap=True)
            self._stream = cast("IO[str]", _ConsoleStream(self._console))
        return self._console

    def _color(self) -> bool:
        return not os.environ.get("NO_COLOR") and getattr(self.stream, "isatty", lambda: False)()

    def _style(self, text: str, *styles: str) -> str:
        if not styles or not self._color():
            return text
        codes = ";".join(_STYLES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def _width(self) -> int:
        return min(shutil.get_terminal_size((100, 20)).columns, 120)

    def print(self, *objects: Any, level: LogLevel | int = LogLevel.INFO, **kwargs: Any) -> None:
        """Print foreign objects (an observation, a tool's output): their control characters are escaped."""
        if level <= self.level:
            self._emit(" ".join(shown(o) for o in objects))

    def _emit(self, line: str) -> None:
        """Write a line the logger composed itself: its parts are escaped already, its styling is not."""
        print(line, file=self.stream)

    log = print

    def log_rule(self, title: str, level: LogLevel | int = LogLevel.INFO) -> None:
        if level > self.level:
            return
        title = escape_controls(title)
        side = max(3, (self._width() - len(title) - 2) // 2)
        self._emit(self._style(f"{'━' * side} {title} {'━' * side}", "yellow"))

    def log_task(
        self, content: Any, subtitle: Any, title: Any = None, level: LogLevel | int = LogLevel.INFO
    ) -> None:
        """The run's heading: its task (any value: a dict or bytes payload is shown as text)."""
        if level > self.level:
            return
        heading = f"New run - {shown(title)}" if title else "New run"
        sub = shown(subtitle)
        self._emit(
            self._style(f"╭─ {heading} ", "bold", "magenta") + (self._style(f"({sub})", "dim") if sub else "")
        )
        text = shown(content)
        lines = (text.splitlines() or [""]) if self.level >= LogLevel.DEBUG else task_lines(text)
        for line in lines:
            self._emit(self._style("│ ", "magenta") + self._style(line, "bold"))
        self._emit(self._style("╰─", "magenta"))

    def log_markdown(
        self, content: str, title: str | None = None, level: LogLevel | int = LogLevel.INFO, style: str = ""
    ) -> None:
        if level > self.level:
            return
        if title:
            self._emit(self._style(escape_controls(title), "bold"))
        self._emit(escape_controls(content))

    def log_code(self, title: str, content: str, level: LogLevel | int = LogLevel.INFO) -> None:
        if level > self.level:
            return
        self._emit(self._style(f"─ {escape_controls(title)} ", "dim") + self._style("─" * 20, "dim"))
        for line in escape_controls(content).splitlines():
            self._emit("  " + self._style(line, "cyan"))
        self._emit(self._style("─" * 40, "dim"))

    def log_messages(self, messages: list[ChatMessage], level: LogLevel | int = LogLevel.DEBUG) -> None:
        if level > self.level:
            return
        for message in messages:
            role = getattr(message.role, "value", message.role)
            self._emit(
                self._style(escape_controls(f"[{role}]"), "bold") + " " + escape_controls(message.text)
            )

    def log_final_answer(self, answer: Any, level: LogLevel | int = LogLevel.INFO) -> None:
        """The run's answer, styled: the answer's own control characters escaped, the style not."""
        if level <= self.level:
            text = shown(answer) if answer is not None else "None"
            self._emit(self._style(f"Final answer: {text}", "bold", "yellow"))

    def log_error(self, message: str) -> None:
        if self.level >= LogLevel.ERROR:
            self._emit(self._style(escape_controls(message), "bold", "red"))

    def log_step_summary(self, step: ActionStep | PlanningStep, step_number: int | None = None) -> None:
        if self.level < LogLevel.INFO:
            return
        parts = []
        if step_number is not None:
            parts.append(f"Step {step_number}")
        duration = step.timing.duration
        if duration is not None:
            parts.append(f"Duration {duration:.2f} seconds")
        if step.token_usage is not None:
            parts.append(f"Input tokens: {step.token_usage.input_tokens:,}")
            parts.append(f"Output tokens: {step.token_usage.output_tokens:,}")
        self._emit(self._style("[" + " | ".join(parts) + "]", "dim"))

    def visualize_agent_tree(self, agent: Any) -> None:
        """The agent, its tools and its managed agents, as a tree drawn like rich's `Tree`; shown at
        any verbosity, as in smolagents: the user asked for it."""
        self._emit("\n".join(shown(line) for line in _tree_lines(agent)))


def _tree_lines(agent: Any, name: str | None = None) -> list[str]:
    """`agent` as a headline and its branches (imports, description, tools, managed agents)."""
    headline = f"{name} | " if name else ""
    lines = [f"{headline}{type(agent).__name__} | {getattr(getattr(agent, 'model', None), 'model_id', None)}"]
    branches: list[list[str]] = []
    imports = getattr(agent, "additional_authorized_imports", None)
    if imports is not None:
        branches.append([f"Authorized imports: {imports}"])
    if name and getattr(agent, "description", None):
        branches.append([f"Description: {agent.description}"])
    tools = getattr(agent, "tools", {})
    branches.append(
        ["Tools:"] + [f"{tool_name}: {getattr(tool, 'description', '')}" for tool_name, tool in tools.items()]
    )
    managed = getattr(agent, "managed_agents", {}) or {}
    if managed:
        branches.append(
            ["Managed agents:"] + [line for n, a in managed.items() for line in _tree_lines(a, n)]
        )
    for index, branch in enumerate(branches):
        last = index == len(branches) - 1
        lines.append(("└── " if last else "├── ") + branch[0])
        lines.extend(("    " if last else "│   ") + "    " + line for line in branch[1:])
    return lines


class Monitor:
    """Totals over a run: steps, durations, tokens."""

    def __init__(self, tracked_model: Any = None, logger: AgentLogger | None = None) -> None:
        self.tracked_model = tracked_model
        self.logger = logger
        self.reset()

    def reset(self) -> None:
        self.step_durations: list[float] = []
        self.total_input_token_count = 0
        self.total_output_token_count = 0

    def get_total_token_counts(self) -> Any:
        from smol_core.messages import TokenUsage

        return TokenUsage(self.total_input_token_count, self.total_output_token_count)

    def update_metrics(self, step: ActionStep | PlanningStep) -> None:
        if step.timing.duration is not None:
            self.step_durations.append(step.timing.duration)
        if step.token_usage is not None:
            self.total_input_token_count += step.token_usage.input_tokens
            self.total_output_token_count += step.token_usage.output_tokens
