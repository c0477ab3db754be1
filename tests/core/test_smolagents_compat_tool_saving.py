"""Saving tools as a smolagents 1.26 user expects: the file is checked, self-contained, and loads back.

Found when smolagents' own tests ran on smol: `validate_tool_attributes` was missing, saved files
copied every import of the tool's module (a test module's `pytest`, a `from smolagents ...`) and not
the tool's `inputs`, and a `@tool`'s `forward` had no `self` nor `__source__`.
"""

from __future__ import annotations

import inspect
import json
import math
from pathlib import Path

import pytest

from smol_core import CodeAgent, Tool, tool
from smol_core.testing import ScriptedModel
from smol_core.tools.validation import validate_tool_attributes


class Hypotenuse(Tool):
    name = "hypotenuse"
    description = "Length of the hypotenuse."
    inputs = {
        "a": {"type": "number", "description": "One side."},
        "b": {"type": "number", "description": "The other side.", "nullable": True},
    }
    output_type = "number"

    def __init__(self, scale: float = 1.0) -> None:
        super().__init__()
        self.scale = scale

    def forward(self, a: float, b: float = 0.0) -> float:
        return math.hypot(a, b) * self.scale


class UsesModuleImport(Tool):
    name = "dumps"
    description = "Dumps a value."
    inputs = {"text": {"type": "string", "description": "A text."}}
    output_type = "string"

    def forward(self, text: str) -> str:
        return json.dumps(text)


class NeedsArgument(Tool):
    name = "needs"
    description = "Needs a URL."
    inputs = {"text": {"type": "string", "description": "A text."}}
    output_type = "string"

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    def forward(self, text: str) -> str:
        return self.url + text


class ComplexAttribute(Tool):
    name = "complex"
    description = "Has a computed class attribute."
    inputs = {"text": {"type": "string", "description": "A text."}}
    output_type = "string"
    table = [x * 2 for x in range(3)]

    def forward(self, text: str) -> str:
        return text


@tool
def greet(name: str, excited: bool = False, title: str | None = None) -> str:
    """Greets someone.

    Args:
        name: Who to greet.
        excited: Whether to shout.
        title: An optional title.
    """
    text = f"Hello {title + ' ' if title else ''}{name}"
    return text + "!" if excited else text


@tool
def dumps_tool(text: str) -> str:
    """Dumps a text as JSON.

    Args:
        text: A text.
    """
    return json.dumps(text)


def test_validate_tool_attributes_accepts_a_self_contained_tool() -> None:
    assert validate_tool_attributes(Hypotenuse) is None


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        (NeedsArgument, "Parameters in __init__ must have default values, found required parameters: url"),
        (
            ComplexAttribute,
            "Complex attributes should be defined in __init__, not as class attributes: table",
        ),
        (UsesModuleImport, "- forward: Name 'json' is undefined."),
    ],
)
def test_validate_tool_attributes_names_each_problem(cls: type[Tool], message: str) -> None:
    with pytest.raises(ValueError, match=f"Tool validation failed for {cls.__name__}") as caught:
        validate_tool_attributes(cls)
    assert message in str(caught.value)


def test_saving_a_tool_that_is_not_self_contained_fails_at_save_time(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Name 'json' is undefined"):
        UsesModuleImport().save(str(tmp_path))
    with pytest.raises(ValueError, match="found required parameters: url"):
        NeedsArgument("http://x/").to_dict()
    with pytest.raises(
        ValueError, match="SimpleTool validation failed for dumps_tool:\n- Name 'json' is undefined"
    ):
        dumps_tool.to_dict()


def test_saved_class_tool_holds_its_inputs_and_only_the_imports_it_needs(tmp_path: Path) -> None:
    Hypotenuse().save(str(tmp_path))
    code = (tmp_path / "tool.py").read_text(encoding="utf-8")
    assert "'nullable': True" in code and "import math" in code
    assert "pytest" not in code and "smolagents" not in code and "ScriptedModel" not in code
    loaded = Tool.from_code(code, scale=2.0)
    assert (loaded.name, loaded.inputs, loaded.output_type) == ("hypotenuse", Hypotenuse.inputs, "number")
    assert loaded(3, 4) == 10.0


def test_saved_function_tool_is_a_class_with_its_inputs_and_loads_back(tmp_path: Path) -> None:
    data = greet.to_dict()
    assert "class SimpleTool(Tool):" in data["code"]
    assert "excited: bool = False" in data["code"] and "'nullable': True" in data["code"]
    assert "pytest" not in data["code"]
    loaded = Tool.from_dict(data)
    assert loaded.inputs == greet.inputs and loaded.output_type == "string"
    assert loaded("Ada", excited=True, title="Dr") == "Hello Dr Ada!"
    greet.save(str(tmp_path))
    assert "from tool import SimpleTool" in (tmp_path / "app.py").read_text(encoding="utf-8")


def test_function_tool_forward_reads_like_smolagents() -> None:
    parameters = list(inspect.signature(greet.forward).parameters)
    assert parameters == ["self", "name", "excited", "title"]
    source = greet.forward.__source__
    assert source.startswith(
        "def forward(self, name: str, excited: bool = False, title: str | None = None) -> str:"
    )
    assert "def greet" not in source and "@tool" not in source
    assert greet.forward("Bo") == "Hello Bo" and greet("Bo", True) == "Hello Bo!"


def test_other_decorators_warn_that_they_are_not_saved() -> None:
    def passthrough(func):  # type: ignore[no-untyped-def]
        return func

    with pytest.warns(UserWarning, match="has decorators other than @tool"):

        @tool
        @passthrough
        def shout(text: str) -> str:
            """Shouts.

            Args:
                text: A text.
            """
            return text.upper()

    assert shout("a") == "A"
    assert "@passthrough" not in shout.forward.__source__


def test_an_agent_with_an_unsaveable_tool_exports_no_code_and_save_says_why(tmp_path: Path) -> None:
    agent = CodeAgent(tools=[UsesModuleImport(), greet], model=ScriptedModel([]), verbosity_level=-1)
    entries = {entry["name"]: entry for entry in agent.to_dict()["tools"]}
    assert entries["dumps"]["code"] is None and "class SimpleTool" in entries["greet"]["code"]
    with pytest.raises(ValueError, match="Name 'json' is undefined"):
        agent.save(str(tmp_path))


def test_save_writes_smolagents_files(tmp_path: Path) -> None:
    """`{tool_file_name}.py`; with `make_gradio_app`, an app.py importing it and requirements.txt."""
    greet.save(tmp_path / "plain", tool_file_name="greeting", make_gradio_app=False)
    assert sorted(p.name for p in (tmp_path / "plain").iterdir()) == ["greeting.py"]
    greet.save(tmp_path / "space", tool_file_name="greeting")
    assert sorted(p.name for p in (tmp_path / "space").iterdir()) == [
        "app.py",
        "greeting.py",
        "requirements.txt",
    ]
    assert "from greeting import SimpleTool" in (tmp_path / "space" / "app.py").read_text(encoding="utf-8")
    requirements = (tmp_path / "space" / "requirements.txt").read_text(encoding="utf-8").split()
    assert requirements == ["smol-core", "smol-ui-gradio"]


def test_requirements_name_what_the_code_imports_as_pip_knows_it() -> None:
    from smol_core.tools.serialization import code_requirements

    code = "from __future__ import annotations\nimport os, json\nfrom PIL import Image\nimport numpy.linalg\nfrom smol_core import Tool\nfrom . import sibling\n"
    assert code_requirements(code) == ["numpy", "pillow", "smol-core"]


def test_from_dict_keeps_the_output_schema() -> None:
    data = {**greet.to_dict(), "output_schema": {"type": "object", "properties": {"x": {"type": "integer"}}}}
    assert Tool.from_dict(data).output_schema == data["output_schema"]
