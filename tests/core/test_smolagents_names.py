"""A smolagents user changes `from smolagents import X` to `from smol_core import X` and nothing else."""

from __future__ import annotations

import importlib

import pytest

import smol_core
from smol_core import Tool
from smol_core.errors import DocstringParsingException
from smol_core.smolagents_names import ABSENT_CLASSES, PLUGIN_EXPORTS

SMOLAGENTS_CORE_NAMES = [
    "CodeAgent", "ToolCallingAgent", "MultiStepAgent", "Tool", "tool", "load_tool", "ToolCollection",
    "PromptTemplates", "PlanningPromptTemplate", "ManagedAgentPromptTemplate", "FinalAnswerPromptTemplate",
    "AUTHORIZED_TYPES", "get_clean_message_list", "tool_role_conversions", "ChatMessage", "MessageRole",
    "LocalPythonExecutor", "FinalAnswerTool", "UserInputTool", "PythonInterpreterTool", "AgentLogger",
    "LogLevel", "Monitor", "ActionStep", "TaskStep", "PlanningStep", "AgentMemory",
]  # fmt: skip


@pytest.mark.parametrize("name", SMOLAGENTS_CORE_NAMES)
def test_every_smolagents_core_name_imports(name: str) -> None:
    assert getattr(smol_core, name) is not None


@pytest.mark.parametrize("name", sorted(PLUGIN_EXPORTS))
def test_plugin_class_names_resolve_to_the_installed_plugin_or_say_what_to_install(name: str) -> None:
    module, distribution = PLUGIN_EXPORTS[name]
    try:
        importlib.import_module(module)
    except ImportError:
        absent = getattr(smol_core, name)  # imports, as in smolagents without the extra
        with pytest.raises(ImportError, match=f"plugin package {distribution!r}: install it: `"):
            absent(model_id="x")
        return
    assert getattr(smol_core, name) is getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("name", sorted(ABSENT_CLASSES))
def test_classes_smol_does_not_have_import_and_say_why_when_made(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from smol_core import {name}", namespace)
    with pytest.raises(ImportError) as caught:
        namespace[name]()  # type: ignore[operator]
    assert ABSENT_CLASSES[name] in str(caught.value)


def test_the_namespace_holds_only_public_names() -> None:
    for private in ("Any", "TYPE_CHECKING", "annotations", "importlib"):
        assert private not in dir(smol_core) and private not in smol_core.__all__
    with pytest.raises(ImportError, match="cannot import name 'NoSuchThing'"):
        exec("from smol_core import NoSuchThing", {})
    assert not hasattr(smol_core, "NoSuchThing")


def test_chat_messages_read_like_smolagents_dicts() -> None:
    from smol_core import ChatMessage, MessageRole

    message = ChatMessage("user", "hi")
    assert message["role"] is MessageRole.USER and message["content"] == "hi"
    assert message.get("tool_calls") is None and message.get("nope", 3) == 3
    with pytest.raises(KeyError):
        message["nope"]


def test_agent_logs_and_succinct_logs_as_older_smolagents_versions_named_them() -> None:
    from smol_core import CodeAgent
    from smol_core.testing import ScriptedModel

    agent = CodeAgent(tools=[], model=ScriptedModel(["Thought: go.\n<code>\nfinal_answer(4)\n</code>"]))
    with agent:
        assert agent.run("2+2") == 4
    assert agent.logs == agent.memory.steps
    assert agent.get_succinct_logs() == agent.memory.get_succinct_steps()


def test_a_tool_subclass_that_declares_no_inputs_reads_them_from_forward() -> None:
    class Hello(Tool):
        name = "hello"
        description = "Says hello."

        def forward(self) -> str:
            return "hi"

    class Add(Tool):
        name = "add"
        description = "Adds two numbers."

        def forward(self, a: int, b: int = 2) -> int:
            """Adds.

            Args:
                a: The first number.
                b: The second number.
            """
            return a + b

    assert (Hello.inputs, Hello.output_type, Hello()()) == ({}, "string", "hi")
    assert Add.inputs["a"] == {"type": "integer", "description": "The first number."}
    assert Add.output_type == "integer" and Add()(a=1) == 3


def test_a_tool_subclass_with_undocumented_arguments_and_no_inputs_is_a_clear_error() -> None:
    with pytest.raises(DocstringParsingException, match="declares no `inputs`"):

        class Bad(Tool):
            name = "bad"
            description = "No inputs and no docstring."

            def forward(self, query):  # type: ignore[no-untyped-def]
                return query


def test_an_unknown_executor_type_is_a_value_error_when_the_agent_is_made():
    from smol_core import CodeAgent
    from smol_core.testing import ScriptedModel

    with pytest.raises(ValueError, match="No executor named 'nosuch' is installed"):
        CodeAgent(tools=[], model=ScriptedModel([]), executor_type="nosuch")
