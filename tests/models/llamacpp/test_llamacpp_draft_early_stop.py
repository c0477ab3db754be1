"""Answer drafting on the embedded SmolLM2-135M, in process: the main job (`smolagent "What is 17 times
23?"`) is one generation, not three, because the model is certain of its first draft; drafts that do
run share the prefill of the prompt's common beginning (llama.cpp's prompt cache, one slot)."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("xllamacpp")

from smol_model_llamacpp import LlamaCppModel

from smol_core import CodeAgent
from smol_core.monitoring import AgentLogger, LogLevel

pytestmark = [pytest.mark.llama, pytest.mark.slow]


@pytest.fixture
def model(embedded_gguf: Path) -> Iterator[LlamaCppModel]:
    model = LlamaCppModel(n_ctx=4096, n_threads=2, max_tokens=256)
    yield model.load()
    model.close()


def _run(model: LlamaCppModel, task: str) -> tuple[Any, list[tuple[dict[str, Any], dict[str, Any]]], str]:
    """The answer, each llama.cpp request with its result, and the vote's line."""
    calls: list[tuple[dict[str, Any], dict[str, Any]]] = []
    real_complete = model._complete

    def recording_complete(request: dict[str, Any]) -> dict[str, Any]:
        result = real_complete(request)
        calls.append((request, result))
        return result

    model._complete = recording_complete  # type: ignore[method-assign]
    stream = io.StringIO()
    agent = CodeAgent(tools=[], model=model, use_structured_outputs_internally=True)
    agent.logger = AgentLogger(level=LogLevel.INFO, stream=stream)
    with agent:
        answer = agent.run(task)
    line = next(line for line in stream.getvalue().splitlines() if line.startswith("Drafted"))
    return answer, calls, line


def test_the_main_job_is_one_generation_when_the_model_is_certain(model: LlamaCppModel) -> None:
    answer, calls, line = _run(model, "What is 17 times 23?")
    assert answer == 391
    assert len(calls) == 1, line
    request, result = calls[0]
    assert request["logprobs"] is True
    assert result["choices"][0]["logprobs"]["content"]  # llama.cpp reported each token's log-probability
    assert line == (
        "Drafted 1 of 3 answers: 391; kept 391 (1 draft, each token of its code at even odds or better; "
        "form as asked: a number)"
    )


def test_drafts_reuse_the_prefill_of_their_common_beginning(model: LlamaCppModel) -> None:
    # without log-probabilities the drafts run until they agree: the second is prefilled only after
    # the system prompt, which the first draft left in llama.cpp's cache
    model.capabilities = dataclasses.replace(model.capabilities, token_logprobs=False)
    answer, calls, _ = _run(model, "What is 17 times 23?")
    assert answer == 391
    assert len(calls) >= 2
    (_, first), (_, second) = calls[0], calls[1]
    assert all("logprobs" not in request for request, _ in calls)
    assert second["timings"]["cache_n"] > 0
    assert second["timings"]["prompt_n"] == second["usage"]["prompt_tokens"] - second["timings"]["cache_n"]
    assert second["timings"]["prompt_n"] < first["usage"]["prompt_tokens"]
