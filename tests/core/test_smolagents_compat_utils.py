"""smolagents' utilities in smol: sources of code written in IPython, classes written out as modules,
the saved agent's app template, function JSON schemas, the imports of code, and parse errors that
are ValueErrors."""

from __future__ import annotations

import ast
import sys
import textwrap

import pytest

from smol_core import (
    AgentParsingError,
    Tool,
    create_agent_gradio_app_template,
    make_init_file,
    parse_code_blobs,
    tool,
)
from smol_core.errors import DocstringParsingException, TypeHintParsingException
from smol_core.source_code import get_source, instance_to_source
from smol_core.type_hints import get_imports, get_json_schema


@pytest.fixture
def shell():
    """An IPython shell for this test only: IPython puts a `__main__` of its own (without `__spec__`)
    into sys.modules and hooks sys.displayhook, which later tests that start processes must not see."""
    from IPython.core.interactiveshell import InteractiveShell

    saved = sys.modules["__main__"], sys.displayhook, sys.excepthook
    shell = InteractiveShell.instance()
    shell.reset()
    try:
        yield shell
    finally:
        shell.reset()
        InteractiveShell.clear_instance()
        sys.modules["__main__"], sys.displayhook, sys.excepthook = saved


def test_source_of_a_class_defined_in_ipython_is_its_newest_cell(shell):
    shell.run_cell("class Greeter:\n    greeting = 'hi'", store_history=True)
    shell.run_cell("%time x = 1", store_history=True)  # a magic cell does not stop the search
    shell.run_cell("class Greeter:\n    greeting = 'hello'", store_history=True)
    assert get_source(shell.user_ns["Greeter"]) == "class Greeter:\n    greeting = 'hello'"


def test_source_errors_in_ipython_say_why(shell):
    shell.user_ns["In"] = [""]
    shell.run_cell("class Lost:\n    ...", store_history=True)
    with pytest.raises(ValueError, match="No code cells found in IPython session"):
        get_source(shell.user_ns["Lost"])
    shell.user_ns["In"] = ["", "print('nothing here')"]
    with pytest.raises(ValueError, match="Could not find source code for Lost in IPython history"):
        get_source(shell.user_ns["Lost"])
    with pytest.raises(TypeError, match="Expected class or callable"):
        get_source(None)


def test_a_tool_written_in_ipython_can_be_saved(shell, tmp_path):
    code = textwrap.dedent(
        f"""\
        from smol_core import Tool
        class Shout(Tool):
            name = "shout"
            description = "Shouts."
            inputs = {{"text": {{"type": "string", "description": "what to shout"}}}}
            output_type = "string"

            def forward(self, text: str):
                return text.upper()
        Shout().save("{tmp_path}", make_gradio_app=False)
        """
    )
    result = shell.run_cell(code, store_history=True)
    assert result.success, result.error_in_exec
    saved = (tmp_path / "tool.py").read_text()
    assert "class Shout(Tool):" in saved and "return text.upper()" in saved


class Doubler(Tool):
    name = "doubler"
    description = "Doubles."
    inputs = {"n": {"type": "integer", "description": "a number"}}
    output_type = "integer"

    def forward(self, n: int) -> int:
        import math

        return int(math.fsum([n, n]))


def test_instance_to_source_writes_a_module_that_imports_from_the_front_door():
    source = instance_to_source(Doubler(), base_cls=Tool)
    assert source.startswith("from smol_core import Tool\nimport math\n\nclass Doubler(Tool):\n")
    assert '    name = "doubler"' in source and "    def forward(self, n: int) -> int:" in source
    namespace: dict[str, object] = {}
    exec(compile(source, "<saved>", "exec"), namespace)
    assert namespace["Doubler"]().forward(4) == 8  # type: ignore[operator]


def test_app_template_writes_values_as_literals_and_skips_the_class_key():
    rendered = create_agent_gradio_app_template().render(
        agent_name="agent",
        class_name="CodeAgent",
        agent_dict={
            "model": {"class": "LiteLLMModel", "data": {"model_id": "ollama/qwen", "class": "LiteLLMModel"}},
            "class": "CodeAgent",
            "max_steps": 5,
            "name": "x'); import os; os.system('boom'); ('",
            "tools": [],
            "managed_agents": {},
            "requirements": [],
            "prompt_templates": {},
        },
        tools={},
        managed_agents={},
        managed_agent_relative_path="",
    )
    tree = ast.parse(rendered)
    assert "from smol_core import CodeAgent, LiteLLMModel" in rendered and "class=" not in rendered
    calls = [
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "CodeAgent"
    ]
    keywords = {k.arg: k.value for k in calls[0].keywords}
    assert isinstance(keywords["name"], ast.Constant)  # the hostile value stays a string
    assert not any(getattr(n.func, "attr", "") == "system" for n in ast.walk(tree) if isinstance(n, ast.Call))


def test_json_schema_of_a_function():
    def plan(day: str, slots: tuple[int, int], notes: dict[str, float] | None = None) -> list[str] | str:
        """
        Plans a day.

        Args:
            day (str): The day (choices: ["mon", "tue"])
            slots: Start and end hours.
            notes: Weights.
        Returns:
            list[str]: The plan.
        """
        return []

    function = get_json_schema(plan)["function"]
    properties = function["parameters"]["properties"]
    assert properties["day"] == {"type": "string", "enum": ["mon", "tue"], "description": "The day"}
    assert properties["slots"]["prefixItems"] == [{"type": "integer"}, {"type": "integer"}]
    assert properties["notes"] == {
        "type": "object",
        "additionalProperties": {"type": "number"},
        "nullable": True,
        "description": "Weights.",
    }
    assert function["parameters"]["required"] == ["day", "slots"]
    assert function["return"] == {"type": "any", "description": "The plan."}


def test_json_schema_refuses_what_it_cannot_describe():
    def undocumented(x: int) -> int:
        return x

    def untyped(x):  # type: ignore[no-untyped-def]
        """Args:
        x: a value.
        """

    with pytest.raises(DocstringParsingException, match="no docstring"):
        get_json_schema(undocumented)
    with pytest.raises(TypeHintParsingException, match="missing a type hint"):
        get_json_schema(untyped)


def test_imports_of_code_skip_optional_and_relative_ones():
    code = "import numpy as np\nfrom torch.nn import Linear\ntry:\n    import rich\nexcept ImportError:\n    pass\nfrom .x import y\n"
    assert sorted(get_imports(code)) == ["numpy", "torch"]
    assert get_imports("import wikipediaapi") == ["wikipedia-api"]


def test_unreadable_code_reply_is_a_value_error_and_an_agent_parsing_error():
    with pytest.raises(ValueError) as caught:
        parse_code_blobs("Wrong blob!", ("<code>", "</code>"))
    assert isinstance(caught.value, AgentParsingError)


def test_make_init_file(tmp_path):
    make_init_file(tmp_path / "a" / "b")
    assert (tmp_path / "a" / "b" / "__init__.py").read_text() == ""


def test_instance_to_source_of_a_tool_function_holds_its_body() -> None:
    @tool
    def loud(text: str) -> str:
        """Says the text loudly.

        Args:
            text: What to say.
        """
        return text.upper() + "!"

    source = instance_to_source(loud, base_cls=Tool)
    assert source.startswith("from smol_core import Tool\n\nclass SimpleTool(Tool):\n")
    assert '    name = "loud"\n' in source and '    output_type = "string"\n' in source
    assert "    def forward(self, text: str) -> str:\n" in source
    assert '        return text.upper() + "!"' in source
    namespace: dict[str, object] = {}
    exec(source, namespace)  # the class it writes is a tool that works
    made = namespace["SimpleTool"]()  # type: ignore[operator]
    assert made("hi") == "HI!"
