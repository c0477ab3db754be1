"""The tools every agent may have: `final_answer`, `python_interpreter`, `user_input`, and the base
toolbox `add_base_tools=True` adds (`TOOL_MAPPING`)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from smol_core.tools.tool import Tool


class FinalAnswerTool(Tool):
    name = "final_answer"
    description = "Gives the final answer to the task and ends the run."
    inputs = {"answer": {"type": "any", "description": "The final answer to the task."}}
    output_type = "any"
    idempotent = True  # it returns its argument: the loop's signal, never a side effect

    def forward(self, answer: Any) -> Any:
        return answer


class UserInputTool(Tool):
    name = "user_input"
    description = "Asks the user a question and returns their answer."
    inputs = {"question": {"type": "string", "description": "The question to ask the user."}}
    output_type = "string"
    idempotent = True  # a question asked again after a crash is harmless; one lost is not

    def forward(self, question: str) -> str:
        return input(f"{question} => ")


class PythonInterpreterTool(Tool):
    """Runs Python in the local sandboxed executor: for tool-calling agents that need to compute."""

    name = "python_interpreter"
    description = "Runs Python code and returns what it prints and the value of its last expression."
    inputs = {"code": {"type": "string", "description": "The Python code to run."}}
    output_type = "string"

    def __init__(
        self, authorized_imports: list[str] | None = None, timeout_seconds: float | None = 30.0
    ) -> None:
        super().__init__()
        self.authorized_imports = list(authorized_imports or [])
        self.timeout_seconds = timeout_seconds
        self._executor: Any = None
        self.description = (
            "Runs Python code and returns what it prints and the value of its last expression. "
            f"Importable modules: {', '.join(self._allowed_modules())}."
        )

    def fresh_copy(self) -> PythonInterpreterTool:
        """The same tool with a namespace of its own: an agent's `fresh_copy()` takes this, so two
        users of copies of one agent never share the variables their code left here."""
        return PythonInterpreterTool(self.authorized_imports, self.timeout_seconds)

    def _allowed_modules(self) -> list[str]:
        from smol_core.executors.base import BASE_BUILTIN_MODULES

        return sorted(set(BASE_BUILTIN_MODULES) | set(self.authorized_imports))

    def forward(self, code: str) -> str:
        """What the code printed and its last value. Code that fails, imports what is not allowed or
        runs past `timeout_seconds` raises `InterpreterError` (`ExecutionTimeoutError` for the time
        limit), as smolagents' tool does: an agent shows it to the model as the call's error."""
        from smol_core.loading import load_executor

        if self._executor is None:
            # the local sandbox, by the name its plugin registers (the kernel imports no executor)
            self._executor = load_executor(
                "local", self.authorized_imports, timeout_seconds=self.timeout_seconds
            )
            self._executor.send_tools({})
        result = self._executor(code)
        return f"Stdout:\n{result.logs}\nOutput: {result.output}"


class _BaseTools(Mapping[str, type[Tool]]):
    """smolagents' base toolbox, as far as it is installed: `python_interpreter`, and `web_search`
    (DuckDuckGo) and `visit_webpage` from the smol-tool-web plugin. Read when an agent asks for
    it, so that `import smol_core` never imports a plugin."""

    _WEB_TOOLS = ("DuckDuckGoSearchTool", "VisitWebpageTool")

    def _tools(self) -> dict[str, type[Tool]]:
        classes: list[type[Tool]] = [PythonInterpreterTool]
        try:
            web = importlib.import_module("smol_tool_web")
        except ImportError:
            web = None  # no web toolkit installed: only the interpreter
        if web is not None:
            classes += [getattr(web, name) for name in self._WEB_TOOLS]
        return {tool_class.name: tool_class for tool_class in classes}

    def __getitem__(self, name: str) -> type[Tool]:
        return self._tools()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools())

    def __len__(self) -> int:
        return len(self._tools())


TOOL_MAPPING: Mapping[str, type[Tool]] = _BaseTools()
"""Base tools added by `add_base_tools=True` (besides `final_answer`, which every agent has):
`python_interpreter` (tool-calling agents only: a CodeAgent runs code itself), and with smol-tool-web
installed `web_search` and `visit_webpage`, as in smolagents."""
