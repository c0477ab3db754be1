"""`RemotePythonExecutor`: smolagents' base for executors whose kernel only runs source code.

Why smol has it: users wrote executors for their own kernels (a Jupyter kernel, a cloud sandbox's
`run_code`) by subclassing smolagents' `RemotePythonExecutor` and implementing one method,
`run_code_raise_errors(code) -> CodeOutput`. This class gives them the rest as smolagents does:
tools sent as source and defined in the kernel, variables sent inside code in `SafeSerializer`'s
format, and the final answer raised in the kernel as a `FinalAnswerException` whose value the
subclass hands to `_deserialize_final_answer`.

What differs from smol's own executors, and why they do not use it: here the kernel is the only
wall (the code runs unguarded in it) and tools run inside the kernel, from their source. Smol's
Docker, E2B and WebAssembly executors run smol's guarded worker instead (`WorkerExecutor`), with
tools on the host.

What differs from smolagents' class: which way pickle may go. Host -> kernel, `allow_pickle=True`
lets a variable JSON cannot hold travel as a pickle that the kernel loads (the host trusts its own
values, and the kernel runs whatever the host sends anyway). Kernel -> host, never: a final answer
is written by the model's code, and unpickling it would run that code on the host, so the kernel
always answers in JSON and a "pickle:" answer is refused even with `allow_pickle=True`. An answer
is also bounded in size before it is parsed.
"""

from __future__ import annotations

import textwrap
from typing import Any

from smol_core.executors.base import BASE_BUILTIN_MODULES, CodeOutput, PythonExecutor
from smol_core.serialization import SafeSerializer, SerializationError

__all__ = ["RemotePythonExecutor", "tools_definition_code"]

MAX_ANSWER_CHARS = 64 * 1024 * 1024
"""The longest encoded final answer the host decodes (a kernel could send gigabytes)."""

_KERNEL_HELPERS = '''

class Tool:
    """The kernel's stand-in for smol's Tool: calling a tool runs its forward()."""

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        pass


class FinalAnswerException(BaseException):
    def __init__(self, value):
        self.value = value


def _raise_final_answer(tool):
    def final_answer(*args, **kwargs):
        raise FinalAnswerException(SafeSerializer.dumps(tool(*args, **kwargs)))

    return final_answer
'''


class RemotePythonExecutor(PythonExecutor):
    """Runs code in a kernel reached by `run_code_raise_errors`, which subclasses implement.

    additional_imports: packages to install in the kernel (`install_packages`), as in smolagents.
    logger: an `AgentLogger` (or anything with `log(text)`) for the executor's progress messages.
    allow_pickle: let variables JSON cannot hold go to the kernel as pickles (host -> kernel only;
        a final answer is never read as a pickle: see the module docstring).
    """

    FINAL_ANSWER_EXCEPTION = "FinalAnswerException"
    """The name of the exception a final answer raises in the kernel; its value is encoded text."""

    def __init__(self, additional_imports: list[str], logger: Any, allow_pickle: bool = False) -> None:
        self.additional_imports = list(additional_imports or [])
        self.logger = logger
        self.allow_pickle = allow_pickle
        self.installed_packages: list[str] = []
        self.logger.log("Initializing executor, hold on...")

    def run_code_raise_errors(self, code: str) -> CodeOutput:
        """Run `code` in the kernel: a `CodeOutput`, with `is_final_answer` when it raised
        `FinalAnswerException` (decode its value with `_deserialize_final_answer`); an error in the
        code raises `AgentError` or `InterpreterError` with the kernel's traceback."""
        raise NotImplementedError

    def __call__(self, code_action: str) -> CodeOutput:
        return self.run_code_raise_errors(code_action)

    def install_packages(self, additional_imports: list[str]) -> list[str]:
        """`!pip install` them in the kernel (a Jupyter kernel runs `!` lines in a shell)."""
        if additional_imports:
            output = self.run_code_raise_errors(f"!pip install {' '.join(additional_imports)}")
            self.logger.log(output.logs)
        return additional_imports

    def send_tools(self, tools: dict[str, Any]) -> None:
        """Define the tools in the kernel from their source; `final_answer` raises the answer back."""
        wanted = {
            package
            for tool in tools.values()
            for package in tool.to_dict().get("requirements", [])
            if package not in [*self.installed_packages, "smolagents", "smol-core"]
        }
        if "PIL" in wanted:
            wanted.discard("PIL")
            wanted.add("pillow")
        if wanted:
            self.installed_packages += self.install_packages(sorted(wanted))
        output = self.run_code_raise_errors(tools_definition_code(tools))
        self.logger.log(output.logs)

    def send_variables(self, variables: dict[str, Any]) -> None:
        """Place `variables` in the kernel's namespace (JSON inside the code; pickles if allowed)."""
        if not variables:
            return
        encoded = SafeSerializer.dumps(variables, allow_pickle=self.allow_pickle)
        code = (
            SafeSerializer.get_deserializer_code(self.allow_pickle)
            + f"\nvars_dict = _deserialize({encoded!r})\nlocals().update(vars_dict)\n"
        )
        self.run_code_raise_errors(code)

    @staticmethod
    def _deserialize_final_answer(encoded_value: str, allow_pickle: bool = False) -> Any:
        """The final answer the kernel raised, decoded as hostile input: "safe:" JSON only, bounded.
        `allow_pickle` is taken for smolagents' callers and never makes a pickle readable here."""
        del allow_pickle
        if not isinstance(encoded_value, str):
            raise SerializationError(f"Unknown final answer format: {type(encoded_value).__name__}, not text")
        if len(encoded_value) > MAX_ANSWER_CHARS:
            raise SerializationError(
                f"The final answer is {len(encoded_value):,} characters, over the {MAX_ANSWER_CHARS:,} read"
            )
        if encoded_value.startswith(SafeSerializer.PICKLE_PREFIX):
            raise SerializationError(
                "Pickle data rejected: the kernel sent its final answer as a pickle, and smol never "
                "unpickles what a sandbox sends (it would run code on the host). Answer with values "
                "JSON can hold (text, numbers, lists, dicts, images...)."
            )
        if not encoded_value.startswith(SafeSerializer.SAFE_PREFIX):
            raise SerializationError("Unknown final answer format: expected 'safe:' or 'pickle:' prefix")
        try:
            return SafeSerializer.loads(encoded_value)
        except (ValueError, TypeError, KeyError, RecursionError) as error:
            raise SerializationError(
                f"The final answer could not be decoded ({type(error).__name__})"
            ) from None


def tools_definition_code(tools: dict[str, Any]) -> str:
    """Source that defines `tools` in a kernel that has only the standard library: `SafeSerializer`,
    a `Tool` base, each tool's class and instance, and `final_answer` raising `FinalAnswerException`."""
    dropped = {"from smol_core import Tool", "from __future__ import annotations"}

    def body(source: str) -> str:
        return "\n".join(line for line in source.splitlines() if line.strip() not in dropped)

    imports = "\n".join(f"import {module}" for module in BASE_BUILTIN_MODULES)
    parts = [
        "from __future__ import annotations\n\n" + imports,
        body(SafeSerializer.get_safe_serializer_code()),
        _KERNEL_HELPERS,
    ]
    for name, tool in tools.items():
        class_name = (
            "SimpleTool" if getattr(tool, "source_function", None) is not None else type(tool).__name__
        )
        parts.append(textwrap.dedent(body(tool.to_dict()["code"])) + f"\n\n{name} = {class_name}()\n")
        if name == "final_answer":
            parts.append("final_answer = _raise_final_answer(final_answer)\n")
    return "\n\n".join(parts)
