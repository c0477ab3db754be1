"""Sandbox output and final answers reach the user's terminal with control characters escaped.

The attacks: code (or a tool, or the model) prints OSC 52 (writes the clipboard), OSC 0 (sets the
window title), CSI cursor moves and erases (hide what ran), a bare carriage return (overwrite a
line), and a bidirectional override (reorder what is read). None of them may reach the terminal raw,
neither through the step log on stderr nor through the answer on stdout.
"""

from __future__ import annotations

import io

import pytest

from smol_core import CodeAgent, ToolCallingAgent, hookimpl
from smol_core.cli import smolagent
from smol_core.messages import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction
from smol_core.monitoring import AgentLogger, LogLevel
from smol_core.plugins.specs import ModelSpec
from smol_core.terminal import escape_controls
from smol_core.testing import ScriptedModel

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"
TITLE = "\x1b]0;pwned\x07"
ERASE = "\x1b[2K\x1b[1A"
OVERWRITE = "rm -rf ~\rls"
BIDI = "access\u202eevil"
PAYLOADS = [CLIPBOARD, TITLE, ERASE, OVERWRITE, BIDI, "\x9b31m", "\x00\x7f"]
RAW = ("\x1b", "\x07", "\r", "\u202e", "\x9b", "\x00", "\x7f")


def assert_no_raw_controls(text: str) -> None:
    found = [repr(c) for c in RAW if c in text]
    assert not found, f"raw control characters reached the terminal: {found}"


def call(name: str, arguments: dict[str, object], call_id: str) -> ChatMessageToolCall:
    return ChatMessageToolCall(ChatMessageToolCallFunction(name, arguments), call_id)


def code_reply(code: str) -> str:
    return f"Thought: go.\n<code>\n{code}\n</code>"


@pytest.mark.parametrize("payload", PAYLOADS)
def test_escape_controls_makes_each_payload_visible_and_inert(payload: str) -> None:
    shown = escape_controls(payload)
    assert_no_raw_controls(shown)
    # nothing was dropped: the escapes read back as the original characters
    assert shown.encode("ascii", "backslashreplace").decode("unicode_escape") == payload


def test_escape_controls_keeps_ordinary_text_newlines_and_tabs() -> None:
    text = "line 1\n\tline 2 — naïve café ✓ 日本"
    assert escape_controls(text) is text


def test_code_agent_step_log_escapes_what_the_sandbox_prints_and_answers() -> None:
    payload = "".join(PAYLOADS)
    model = ScriptedModel(
        [
            code_reply(f"print({payload!r})\n{payload!r}"),
            code_reply(f"final_answer({payload!r})"),
        ]
    )
    stream = io.StringIO()
    agent = CodeAgent(tools=[], model=model, logger=AgentLogger(LogLevel.DEBUG, stream=stream))
    with agent:
        answer = agent.run("show it")
    assert answer == payload  # the value itself is untouched: only its display is escaped
    log = stream.getvalue()
    assert_no_raw_controls(log)
    assert "\\x1b]52;c;" in log


def test_tool_calling_agent_step_log_escapes_tool_output_and_model_text() -> None:
    from smol_core import tool

    @tool
    def banner() -> str:
        """Returns a banner."""
        return TITLE + ERASE + "hello"

    model = ScriptedModel(
        [
            ChatMessage("assistant", CLIPBOARD, tool_calls=[call("banner", {}, "c1")]),
            ChatMessage("assistant", "", tool_calls=[call("final_answer", {"answer": BIDI}, "c2")]),
        ]
    )
    stream = io.StringIO()
    agent = ToolCallingAgent(tools=[banner], model=model, logger=AgentLogger(LogLevel.DEBUG, stream=stream))
    assert agent.run("show it") == BIDI
    assert_no_raw_controls(stream.getvalue())


class HostileAnswerPlugin:
    """A model whose code prints and answers terminal control sequences."""

    @hookimpl
    def smol_models(self) -> list[ModelSpec]:
        def factory(model_id: str | None = None, **kwargs: object) -> ScriptedModel:
            payload = "".join(PAYLOADS)
            return ScriptedModel([code_reply(f"print({payload!r})\nfinal_answer({payload!r})")])

        return [ModelSpec("hostile-answer", factory, "Answers with escape sequences.")]


def test_smolagent_prints_answer_and_logs_without_raw_controls(registry, capsys) -> None:
    registry.register(HostileAnswerPlugin(), name="hostile-answer-plugin")
    assert smolagent.main(["show it", "--model-type", "hostile-answer"]) == 0
    captured = capsys.readouterr()
    assert_no_raw_controls(captured.out)
    assert_no_raw_controls(captured.err)
    assert captured.out.startswith("\\x1b]52;c;")
