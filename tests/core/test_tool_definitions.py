import pytest

from smol_core import Tool, tool
from smol_core.errors import AgentToolCallError, DocstringParsingException, TypeHintParsingException


@tool
def search(query: str, limit: int = 3) -> list:
    """Searches the catalogue.

    Args:
        query: What to look for.
        limit: How many results, at most.
    """
    return [query] * limit


def test_tool_decorator_reads_hints_and_docstring():
    assert search.name == "search"
    assert search.description == "Searches the catalogue."
    assert search.inputs["query"] == {"type": "string", "description": "What to look for."}
    assert search.inputs["limit"]["nullable"] is True
    assert search.output_type == "array"
    assert search("a", 2) == ["a", "a"]


def test_code_prompt_is_smolagents_signature():
    prompt = search.to_code_prompt()
    assert prompt.startswith("def search(query: string, limit: integer) -> array:")
    assert "What to look for." in prompt


def test_argument_validation_names_the_argument_and_type():
    with pytest.raises(AgentToolCallError, match="'query' should be string"):
        search(query=3, sanitize_inputs_outputs=True)
    with pytest.raises(AgentToolCallError, match="missing argument 'query'"):
        search(sanitize_inputs_outputs=True)
    with pytest.raises(AgentToolCallError, match="no argument 'q'"):
        search(q="x", sanitize_inputs_outputs=True)
    with pytest.raises(AgentToolCallError, match="'limit' should be integer"):
        search(query="x", limit=True, sanitize_inputs_outputs=True)


def test_missing_docstring_argument_is_a_clear_error():
    with pytest.raises(DocstringParsingException, match="no description for the argument .b."):

        @tool
        def add(a: int, b: int) -> int:
            """Adds.

            Args:
                a: first
            """
            return a + b


def test_missing_type_hint_is_a_clear_error():
    with pytest.raises(TypeHintParsingException, match="'b' has no type hint"):

        @tool
        def add(a: int, b) -> int:  # type: ignore[no-untyped-def]
            """Adds.

            Args:
                a: first
                b: second
            """
            return a + b


def test_tool_subclass_is_validated_when_made():
    class Bad(Tool):
        name = "bad"
        description = "Bad."
        inputs = {"x": {"type": "float", "description": "x"}}
        output_type = "string"

        def forward(self, x):
            return x

    with pytest.raises(ValueError, match="input 'x' has type 'float'"):
        Bad()

    class Mismatch(Tool):
        name = "mismatch"
        description = "Mismatch."
        inputs = {"x": {"type": "string", "description": "x"}}
        output_type = "string"

        def forward(self, y):
            return y

    with pytest.raises(ValueError, match="forward\\(\\) takes"):
        Mismatch()

    class BadName(
        Tool
    ):  # a class with a bad name can be defined (and reported on by validate_tool_attributes)
        name = "bad name"
        description = "."
        inputs = {}
        output_type = "string"

        def forward(self):
            return ""

    with pytest.raises(ValueError, match="valid Python identifier"):
        BadName()


def test_init_may_set_what_is_validated():
    class Named(Tool):
        name = "placeholder name"
        description = "Named in __init__."
        inputs = {"x": {"type": "string", "description": "x"}}
        output_type = "string"

        def __init__(self, name: str = "named") -> None:
            super().__init__()
            self.name = name

        def forward(self, x):
            return x

    assert Named().name == "named"
    with pytest.raises(ValueError, match="valid Python identifier"):
        Named(name="not valid")


def test_a_class_declaring_inputs_must_declare_output_type():
    class NoOutput(Tool):
        name = "no_output"
        description = "."
        inputs = {"x": {"type": "string", "description": "x"}}

        def forward(self, x: str) -> str:
            return x

    with pytest.raises(TypeError, match="You must set an attribute output_type"):
        NoOutput()


def test_optional_arguments_agree_between_inputs_and_forward():
    class DefaultNotNullable(Tool):
        name = "weather"
        description = "."
        inputs = {"celsius": {"type": "boolean", "description": "unit"}}
        output_type = "string"

        def forward(self, celsius: bool = False) -> str:
            return ""

    class NullableWithoutDefault(Tool):
        name = "weather"
        description = "."
        inputs = {"celsius": {"type": "boolean", "description": "unit", "nullable": True}}
        output_type = "string"

        def forward(self, celsius: bool) -> str:
            return ""

    class Agreeing(Tool):
        name = "weather"
        description = "."
        inputs = {"celsius": {"type": "boolean", "description": "unit", "nullable": True}}
        output_type = "string"

        def forward(self, celsius: bool | None = None) -> str:
            return ""

    for wrong in (DefaultNotNullable, NullableWithoutDefault):
        with pytest.raises(ValueError, match="Nullable argument 'celsius'"):
            wrong()
    Agreeing()


def test_tool_decorator_needs_a_return_type_hint():
    with pytest.raises(TypeHintParsingException, match="Tool return type not found"):

        @tool
        def add(a: int, b: int):  # type: ignore[no-untyped-def]
            """Adds.

            Args:
                a: first
                b: second
            """
            return a + b


def test_tool_calling_schema():
    schema = search.to_tool_calling_schema()
    assert schema["function"]["parameters"]["required"] == ["query"]
    assert schema["function"]["parameters"]["properties"]["limit"]["type"] == "integer"
    assert (
        schema["function"]["parameters"]["properties"]["limit"]["nullable"] is True
    )  # as smolagents sends it
    assert "nullable" not in schema["function"]["parameters"]["properties"]["query"]


def test_tool_save_and_load_round_trip(tmp_path):
    search.save(str(tmp_path))
    code = (tmp_path / "tool.py").read_text()
    loaded = Tool.from_code(code)
    assert loaded.name == "search"
    assert loaded("b", 1) == ["b"]


MODULE_CONSTANT = 3


def test_a_tool_functions_class_carries_the_source_it_is_saved_as():
    from smol_core.tools.validation import validate_tool_attributes

    @tool
    def shout(text: str) -> str:
        """Shouts.

        Args:
            text: what to shout
        """
        return text.upper()

    @tool
    def uses_module_name(text: str) -> str:
        """Uses a name its saved source would not have.

        Args:
            text: anything
        """
        return text * MODULE_CONSTANT

    assert validate_tool_attributes(shout.__class__) is None
    assert isinstance(shout, type(search).__mro__[1])  # still a FunctionTool
    with pytest.raises(ValueError, match="Name 'MODULE_CONSTANT' is undefined"):
        validate_tool_attributes(uses_module_name.__class__)


def test_a_tool_without_arguments_or_return_hint_returns_null():
    @tool
    def ring():  # type: ignore[no-untyped-def]
        """Rings the bell."""

    assert ring.output_type == "null"


def test_a_lone_dict_of_input_names_is_the_calls_arguments():
    @tool
    def visit(url: str) -> str:
        """Visits.

        Args:
            url: where
        """
        return url

    @tool
    def keys(data: dict) -> list:
        """Lists keys.

        Args:
            data: any mapping
        """
        return sorted(data)

    assert visit({"url": "https://example.com"}) == "https://example.com"  # one input, by name
    assert keys({"a": 1, "b": 2}) == ["a", "b"]  # keys that are not input names: the value itself
    assert keys({}) == []
    assert search({"query": "x", "limit": 2}) == ["x", "x"]


def test_a_forward_checked_once_is_still_checked_against_other_inputs():
    """The forward check is remembered per function and inputs (each agent of a team makes its own
    tools): an instance whose inputs no longer agree with the same forward is still refused."""

    class Greeter(Tool):
        name = "greeter"
        description = "Greets."
        inputs = {"who": {"type": "string", "description": "Whom."}}
        output_type = "string"

        def __init__(self, inputs: dict | None = None) -> None:
            if inputs is not None:
                self.inputs = inputs
            super().__init__()

        def forward(self, who: str) -> str:
            return f"hello {who}"

    Greeter()
    Greeter()  # remembered
    with pytest.raises(ValueError, match="forward\\(\\) takes"):
        Greeter({"whom": {"type": "string", "description": "Whom."}})
    with pytest.raises(ValueError, match="Nullable argument 'who'"):
        Greeter({"who": {"type": "string", "description": "Whom.", "nullable": True}})
