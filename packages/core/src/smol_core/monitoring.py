"""Console output for agent runs, and run metrics.

Each step is shown as users of this kind of tool expect: the model's thought, the code or tool call,
the observation, duration and tokens. Logs go to stderr so that the answer alone goes to stdout.

The renderer is a few lines of ANSI, not a rich-text library: rendering must cost microseconds, since
it runs on every step, and `import smol_core` must stay fast. Colour is used only on a terminal and
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
        return False


class AgentLogger:
    """Writes a run's steps to a stream (stderr by default), filtered by verbosity level."""

    def __init__(
        self, level: LogLevel | int = LogLevel.INFO, console: Any = None, stream: IO[str] | None = None
    ) -> None:
        # The seed takes any int as a verbosity (`verbosity_level=100` shows everything), not only
        # the named levels, and a rich `Console` to print to: both are accepted, the console by
        # writing plain text through it (so `Console(record=True).export_text()` sees the log).
        self.level: LogLevel | int = _as_level(level)
        self._console = console
        if stream is None and console is not None:
            stream = cast("IO[str]", _ConsoleStream(console))  # only write/flush/isatty are used
        self._stream = stream

    @property
    def stream(self) -> IO[str]:
        return self._stream if self._stream is not None else sys.stderr

    @property
    def console(self) -> Any:
        """The console given to the constructor (so `logger.console.export_text()` works as in the
        seed), else the logger itself: code that did `logger.console.print(...)` keeps working."""
        return self._console if self._console is not None else self

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
            self._emit(" ".join(escape_controls(str(o)) for o in objects))

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
        self, content: str, subtitle: str, title: str | None = None, level: LogLevel | int = LogLevel.INFO
    ) -> None:
        if level > self.level:
            return
        heading = escape_controls(f"New run - {title}" if title else "New run")
        self._emit(
            self._style(f"╭─ {heading} ", "bold", "magenta")
            + self._style(f"({escape_controls(subtitle)})", "dim")
        )
        for line in escape_controls(content).splitlines() or [""]:
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
        def lines(node: Any, indent: str) -> list[str]:
            out = [
                f"{indent}{type(node).__name__} {getattr(node, 'name', None) or ''} ({getattr(node.model, 'model_id', '')})"
            ]
            for tool_name in getattr(node, "tools", {}):
                out.append(f"{indent}  ├─ tool {tool_name}")
            for child in getattr(node, "managed_agents", {}).values():
                out.extend(lines(child, indent + "  "))
            return out

        self.print("\n".join(lines(agent, "")))


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
