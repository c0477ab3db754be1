"""Tools behave as a smolagents 1.26 user expects: what found gaps when smolagents' own tests ran on smol."""

from __future__ import annotations

from typing import Literal

import pytest

from smol_core import AgentText, FinalAnswerTool, Tool, tool
from smol_core.tools.tool import validate_tool_arguments


@tool
def describe(name: str, count: int | None = None, scale: float = 1.0) -> str:
    """Describes something.

    Args:
        name: What to describe.
        count: How many, if known.
        scale: A scale factor.
    """
    return f"{name} {count} {scale}"


def test_validate_tool_arguments_accepts_what_the_tool_takes() -> None:
    validate_tool_arguments(describe, {"name": "a"})
    validate_tool_arguments(describe, {"name": "a", "count": None, "scale": 2})  # int for a number


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"count": 1}, ValueError, "Argument name is required"),
        ({"name": "a", "colour": "red"}, ValueError, "Argument colour is not in the tool's input schema"),
        ({"name": None}, TypeError, "Argument name has type 'null' but should be 'string'"),
        ({"name": "a", "count": True}, TypeError, "Argument count has type 'boolean'"),
    ],
)
def test_validate_tool_arguments_names_what_is_wrong(
    arguments: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        validate_tool_arguments(describe, arguments)


def test_validate_tool_arguments_takes_a_single_value_for_a_one_input_tool() -> None:
    validate_tool_arguments(FinalAnswerTool(), "anything")  # its input is "any"

    @tool
    def shout(text: str) -> str:
        """Shouts.

        Args:
            text: The text.
        """
        return text.upper()

    with pytest.raises(TypeError, match="should be 'string'"):
        validate_tool_arguments(shout, 3)


def test_literal_with_none_is_a_nullable_enum_of_its_type() -> None:
    @tool
    def pick(choice: Literal[1, 2, 3, None], unit: Literal["c", "f"] = "c") -> str:
        """Picks.

        Args:
            choice: The choice.
            unit: The unit.
        """
        return f"{choice}{unit}"

    assert pick.inputs["choice"]["type"] == "integer"
    assert pick.inputs["choice"]["enum"] == [1, 2, 3]
    assert pick.inputs["choice"]["nullable"] is True
    assert pick.inputs["unit"]["type"] == "string"
    assert pick.inputs["unit"]["enum"] == ["c", "f"]


@pytest.mark.parametrize(
    ("kind", "error", "message"),
    [
        ("colour", ValueError, "must be one of"),
        (["string", "colour"], ValueError, "must be one of"),
        ([1, "string"], TypeError, "when type is a list, all elements must be strings"),
        (3, TypeError, "must be a string or list of strings"),
    ],
)
def test_bad_input_types_raise_smolagents_exception_types(
    kind: object, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):

        class Bad(Tool):
            name = "bad"
            description = "A tool with a bad input type."
            inputs = {"x": {"type": kind, "description": "x"}}
            output_type = "string"

            def forward(self, x: object) -> str:
                return "x"

        Bad()


def test_sanitized_call_returns_agent_types() -> None:
    """`tool(..., sanitize_inputs_outputs=True)` wraps the output as smolagents does; a plain call does not."""
    answer = FinalAnswerTool()
    wrapped = answer("done", sanitize_inputs_outputs=True)
    assert isinstance(wrapped, AgentText)
    assert wrapped == "done"
    assert type(answer("done")) is str
    # agent types going in become plain values
    assert type(describe(AgentText("x"), sanitize_inputs_outputs=True)) is AgentText


def test_from_dict_without_code_says_which_key() -> None:
    with pytest.raises(ValueError, match="must contain 'code' key"):
        Tool.from_dict({"name": "nothing"})


def test_code_actions_get_what_forward_returned_not_an_agent_type() -> None:
    """A sanitized call wraps the output by `output_type`; code actions must not see that wrapping:
    a tool declared as returning a string that returns bytes still gives the code bytes, as
    smolagents' executor (which calls tools unsanitized) does."""
    from smol_core import CodeAgent, LogLevel
    from smol_core.testing import ScriptedModel

    @tool
    def blob() -> str:
        """Returns binary data (declared as text)."""
        return b"\x89PNG\x00"  # type: ignore[return-value]

    model = ScriptedModel(["<code>\ndata = blob()\nfinal_answer([type(data).__name__, len(data)])\n</code>"])
    with CodeAgent(tools=[blob], model=model, verbosity_level=LogLevel.OFF) as agent:
        assert agent.run("Get the blob.") == ["bytes", 5]
