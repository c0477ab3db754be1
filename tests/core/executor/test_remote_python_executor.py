"""`RemotePythonExecutor`: smolagents' base for kernels that run source code, with a kernel of our own.

The kernel here is a separate namespace run by `exec` (what a Jupyter kernel does with a cell): the
class must define tools there from their source, send values inside code, and bring the final
answer back as JSON, never as a pickle.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import pytest

from smol_core import CodeOutput, RemotePythonExecutor, SerializationError, Tool
from smol_core.tools.base_tools import FinalAnswerTool


class Logger:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def log(self, text: Any, **_: Any) -> None:
        self.lines.append(str(text))


class ExecKernel(RemotePythonExecutor):
    """A kernel in a namespace of its own, as a subclass written by a user would reach one."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__([], Logger(), **kwargs)
        self.namespace: dict[str, Any] = {"__name__": "__kernel__"}

    def run_code_raise_errors(self, code: str) -> CodeOutput:
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(code, "<cell>", "exec"), self.namespace)
        except BaseException as raised:
            if type(raised).__name__ != self.FINAL_ANSWER_EXCEPTION:
                raise
            answer = self._deserialize_final_answer(raised.value, self.allow_pickle)  # type: ignore[attr-defined]
            return CodeOutput(answer, printed.getvalue(), is_final_answer=True)
        return CodeOutput(None, printed.getvalue())


class Shout(Tool):
    name = "shout"
    description = "Upper-cases the text."
    inputs = {"text": {"type": "string", "description": "The text."}}
    output_type = "string"

    def forward(self, text: str) -> str:
        return text.upper()


def test_tools_are_defined_in_the_kernel_and_the_answer_comes_back_as_json() -> None:
    kernel = ExecKernel()
    kernel.send_tools({"shout": Shout(), "final_answer": FinalAnswerTool()})
    output = kernel("final_answer({'said': shout('hi'), 'pair': (1, 2)})")
    assert output.is_final_answer and output.output == {"said": "HI", "pair": (1, 2)}
    assert kernel.logger.lines[0] == "Initializing executor, hold on..."


def test_variables_travel_inside_code_and_pickles_only_towards_the_kernel() -> None:
    kernel = ExecKernel()
    kernel.send_variables({"counter": 1, "tags": ("a", "b"), "blob": b"binary"})
    assert (kernel.namespace["counter"], kernel.namespace["tags"], kernel.namespace["blob"]) == (
        1,
        ("a", "b"),
        b"binary",
    )
    with pytest.raises(SerializationError):
        kernel.send_variables({"error": ValueError("boom")})  # JSON cannot hold it, and pickle is off
    trusting = ExecKernel(allow_pickle=True)
    with pytest.warns(FutureWarning):
        trusting.send_variables({"error": ValueError("boom")})
    assert str(trusting.namespace["error"]) == "boom"


def test_a_final_answer_sent_as_a_pickle_is_refused_even_when_pickles_are_allowed() -> None:
    kernel = ExecKernel(allow_pickle=True)
    kernel.send_tools({"final_answer": FinalAnswerTool()})
    forged = "import base64, pickle\nraise FinalAnswerException('pickle:' + base64.b64encode(pickle.dumps(1)).decode())"
    with pytest.raises(SerializationError, match="never unpickles"):
        kernel(forged)
    with pytest.raises(SerializationError, match="Unknown final answer format"):
        RemotePythonExecutor._deserialize_final_answer("legacy-unprefixed-payload", allow_pickle=True)
    with pytest.raises(SerializationError, match="characters"):
        RemotePythonExecutor._deserialize_final_answer("safe:" + " " * (64 * 1024 * 1024 + 1))
