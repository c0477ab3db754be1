"""A CodeAgent on the WebAssembly executor, the shared escape corpus, and clear errors when set-up is missing."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from smol_core import CodeAgent, LogLevel, tool
from smol_core.executors.base import ExecutorUnavailableError, InterpreterError
from smol_core.testing import ScriptedModel

ESCAPES = sorted((Path(__file__).parents[2] / "security" / "escapes").glob("*.py"))


@tool
def population(city: str) -> int:
    """Population of a city.

    Args:
        city: The city's name.
    """
    return {"Paris": 2_100_000, "Lyon": 520_000}[city]


def code(body: str) -> str:
    return f"Thought: I act.\n<code>\n{body}\n</code>"


def test_code_agent_runs_through_the_wasm_executor(wasm_runtime):
    model = ScriptedModel(
        [
            code('p = population("Paris")\nl = population("Lyon")\nprint(p, l)'),
            code("import os"),
            code('final_answer("Paris" if p > l else "Lyon")'),
        ]
    )
    agent = CodeAgent(tools=[population], model=model, executor_type="wasm", verbosity_level=LogLevel.OFF)
    with agent:
        assert agent.run("Which city is bigger?") == "Paris"
    observations = [getattr(step, "observations", None) or "" for step in agent.memory.steps]
    assert any("2100000 520000" in o for o in observations)
    errors = [str(getattr(step, "error", "") or "") for step in agent.memory.steps]
    assert any("Import of os is not allowed" in e for e in errors)


def _header(path: Path, key: str) -> str:
    for line in path.read_text().splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{path.name} has no {key} header")


@pytest.fixture(scope="module")
def escape_executors(wasm_runtime):
    from smol_executor_wasm import WasmExecutor

    made: dict[tuple[str, ...], WasmExecutor] = {}

    def get(authorized: list[str]) -> WasmExecutor:
        key = tuple(sorted(authorized))
        if key not in made:
            made[key] = WasmExecutor(authorized, timeout_seconds=10)
        return made[key]

    yield get
    for ex in made.values():
        ex.close()


@pytest.mark.parametrize("path", ESCAPES, ids=[p.stem for p in ESCAPES])
def test_shared_escape_corpus_is_blocked(path, escape_executors):
    ex = escape_executors(ast.literal_eval(_header(path, "AUTHORIZED_IMPORTS")))
    with pytest.raises(InterpreterError) as info:
        out = ex(path.read_text())
        pytest.fail(f"not blocked: output={out.output!r} logs={out.logs!r}")
    assert "ESCAPED" not in (info.value.logs or "")
    assert ex("6 * 7").output == 42


def test_missing_pyodide_says_what_to_install(tmp_path):
    from smol_executor_wasm import WasmExecutor

    with pytest.raises(
        ExecutorUnavailableError, match=r"Pyodide was not found.*python -m smol_executor_wasm install"
    ):
        WasmExecutor(pyodide_dir=tmp_path)


def test_missing_node_says_what_to_install(tmp_path):
    from smol_executor_wasm import WasmExecutor

    with pytest.raises(ExecutorUnavailableError, match=r"Node.js .* was not found.*nodejs"):
        WasmExecutor(node_path=str(tmp_path / "no-node"))


def test_registered_as_the_wasm_executor():
    from smol_core.plugins.registry import get_registry

    spec = get_registry().executor("wasm")
    assert spec.isolation == "wasm"
