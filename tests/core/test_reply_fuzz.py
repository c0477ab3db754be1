"""Fuzz: malformed model replies never make anything but the documented agent errors leave `run()`.

Each example is a hostile reply (random text, code-tag and JSON fragments, deep nesting, huge runs of
one character, content that is not text, tool calls with odd names and arguments), given to a
`CodeAgent` and a `ToolCallingAgent`. Afterwards the agent's memory must still serialize and turn
into messages. `SMOL_FUZZ_EXAMPLES` sets how many examples (the issue's bar is 10,000 per agent kind;
CI runs fewer on every push).
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings, strategies as st

from smol_core import CodeAgent, ToolCallingAgent, tool
from smol_core.errors import AgentError
from smol_core.messages import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction
from smol_core.testing import ScriptedModel

EXAMPLES = int(os.environ.get("SMOL_FUZZ_EXAMPLES", "150"))

FRAGMENTS = [
    "<code>", "</code>", "```py", "```", "{", "}", "[", "]", '"', "final_answer(", ")", "\n", "Thought:",
    'Action:\n{"name": ', '"arguments": ', "\\u0000", "\x1b[2J", "print(", "import os", "((((", "':'",
]  # fmt: skip

texts = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join),
    st.integers(min_value=1, max_value=5_000).map(lambda n: "{" * n),
    st.integers(min_value=1, max_value=5_000).map(lambda n: "[" * n + "1" + "]" * n),
    st.integers(min_value=1, max_value=200).map(lambda n: "<code>\n" + "(" * n + "\n</code>"),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)
contents: st.SearchStrategy[Any] = st.one_of(
    texts,
    st.none(),
    st.integers(),
    st.lists(
        st.dictionaries(st.sampled_from(["type", "text", "image"]), json_values, max_size=3), max_size=3
    ),
)
tool_calls = st.lists(
    st.builds(
        lambda name, arguments, call_id: ChatMessageToolCall(
            ChatMessageToolCallFunction(name, arguments), call_id
        ),
        st.one_of(st.sampled_from(["add", "final_answer", "nope", ""]), st.text(max_size=10), st.integers()),
        st.one_of(json_values, texts, st.integers(1, 3000).map(lambda n: "[" * n)),
        st.one_of(st.text(max_size=8), st.integers()),
    ),
    max_size=3,
)


@tool
def add(a: int, b: int) -> int:
    """Adds two integers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


def _check_memory(agent: Any) -> None:
    json.dumps(agent.memory.get_full_steps(), default=repr)
    for message in agent.write_memory_to_messages():
        json.dumps(message.dict(), default=repr)


def _run(agent: Any) -> None:
    try:
        agent.run("Add 2 and 3.")
    except AgentError:
        pass  # documented: e.g. the model failed after its replies ran out
    _check_memory(agent)


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@FUZZ
@given(contents)
def test_code_agent_survives_any_reply(content: Any) -> None:
    model = ScriptedModel([ChatMessage("assistant", content)], repeat_last=True)
    agent = CodeAgent(tools=[add], model=model, max_steps=2, verbosity_level=-1)
    with agent:
        _run(agent)


@FUZZ
@given(contents, tool_calls)
def test_tool_calling_agent_survives_any_reply(content: Any, calls: list[ChatMessageToolCall]) -> None:
    model = ScriptedModel([ChatMessage("assistant", content, tool_calls=calls or None)], repeat_last=True)
    _run(ToolCallingAgent(tools=[add], model=model, max_steps=2, verbosity_level=-1))
