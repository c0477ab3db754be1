"""Framework overhead of the agent loop, prompt size and import time: smol beside smolagents.

An instant scripted model answers every step, so what is measured is the framework itself: memory,
message building, parsing, the executor round trip, callbacks and console output. Each run is five
steps (four actions and a final answer). Logs "on" means the default console output at INFO level,
written to an in-memory stream.

    python bench/agent_overhead.py            # smol only
    pip install smolagents && python bench/agent_overhead.py   # side by side
"""

from __future__ import annotations

import io
import statistics
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from figures import figure  # noqa: E402

RUNS = 40
STEP_CODE = "x = sum(range(10))\nprint(x)"


def _replies() -> list[str]:
    action = f"Thought: compute.\n<code>\n{STEP_CODE}\n</code>"
    return [action] * 4 + ["Thought: done.\n<code>\nfinal_answer(x)\n</code>"]


def smol_per_step(logs: bool) -> float:
    from smol_core import CodeAgent, LogLevel
    from smol_core.testing import ScriptedModel

    stream = io.StringIO()
    agent = CodeAgent(
        tools=[], model=ScriptedModel([]), verbosity_level=LogLevel.INFO if logs else LogLevel.OFF
    )
    agent.logger._stream = stream
    times = []
    with agent:
        for _ in range(RUNS):
            agent.model = ScriptedModel(_replies())
            start = time.perf_counter()
            agent.run("Compute the sum of the first ten integers.")
            times.append((time.perf_counter() - start) / 5)
    return statistics.median(times[3:])


FRESH_AGENTS = 30


def smol_fresh_agent() -> tuple[float, float]:
    """Agents made back to back, each run once: median ms from the constructor to the first model
    call, and to the answer. The worker starts during the model call (its acknowledgements are
    collected before the first action), so the first figure is the agent's own cost."""
    from smol_core import CodeAgent, LogLevel
    from smol_core.messages import ChatMessage
    from smol_core.testing import FunctionModel

    first_call: list[float] = []

    def reply(messages: Any, **call: Any) -> ChatMessage:
        first_call.append(time.perf_counter())
        return ChatMessage("assistant", "Thought: done.\n<code>\nfinal_answer(1)\n</code>")

    to_call, to_answer, agents = [], [], []
    for _ in range(FRESH_AGENTS):
        first_call.clear()
        start = time.perf_counter()
        agent = CodeAgent(tools=[], model=FunctionModel(reply), verbosity_level=LogLevel.OFF)
        agent.run("Answer 1.")
        to_answer.append(time.perf_counter() - start)
        to_call.append(first_call[0] - start)
        agents.append(agent)
    for agent in agents:
        agent.python_executor.close()
    return statistics.median(to_call[3:]), statistics.median(to_answer[3:])


def smolagents_fresh_agent() -> tuple[float, float] | None:
    try:
        from smolagents import CodeAgent, LogLevel
        from smolagents.models import ChatMessage, MessageRole, Model
    except ImportError:
        return None
    first_call: list[float] = []

    class Answer(Model):
        def generate(self, messages: Any, stop_sequences: Any = None, **kwargs: Any) -> Any:
            first_call.append(time.perf_counter())
            return ChatMessage(
                role=MessageRole.ASSISTANT, content="Thought: done.\n<code>\nfinal_answer(1)\n</code>"
            )

    to_call, to_answer = [], []
    sink = io.StringIO()
    with redirect_stdout(sink), redirect_stderr(sink):
        for _ in range(FRESH_AGENTS):
            first_call.clear()
            start = time.perf_counter()
            CodeAgent(tools=[], model=Answer(model_id="x"), verbosity_level=LogLevel.OFF).run("Answer 1.")
            to_answer.append(time.perf_counter() - start)
            to_call.append(first_call[0] - start)
    return statistics.median(to_call[3:]), statistics.median(to_answer[3:])


def smol_fresh_five_steps() -> float:
    """A fresh agent per run, back to back (one per request, as servers make them): median ms from
    the constructor to the answer of the usual five scripted steps."""
    from smol_core import CodeAgent, LogLevel
    from smol_core.testing import ScriptedModel

    times, agents = [], []
    for _ in range(FRESH_AGENTS):
        start = time.perf_counter()
        agent = CodeAgent(tools=[], model=ScriptedModel(_replies()), verbosity_level=LogLevel.OFF)
        agent.run("Compute the sum of the first ten integers.")
        times.append(time.perf_counter() - start)
        agents.append(agent)
    for agent in agents:
        agent.python_executor.close()
    return statistics.median(times[3:])


def smolagents_fresh_five_steps() -> float | None:
    try:
        from smolagents import CodeAgent, LogLevel
        from smolagents.models import ChatMessage, MessageRole, Model
    except ImportError:
        return None

    class Scripted(Model):
        def __init__(self) -> None:
            super().__init__(model_id="x")
            self.replies = _replies()

        def generate(self, messages: Any, stop_sequences: Any = None, **kwargs: Any) -> Any:
            return ChatMessage(role=MessageRole.ASSISTANT, content=self.replies.pop(0))

    times = []
    sink = io.StringIO()
    with redirect_stdout(sink), redirect_stderr(sink):
        for _ in range(FRESH_AGENTS):
            start = time.perf_counter()
            agent = CodeAgent(tools=[], model=Scripted(), verbosity_level=LogLevel.OFF)
            agent.run("Compute the sum of the first ten integers.")
            times.append(time.perf_counter() - start)
    return statistics.median(times[3:])


def smolagents_per_step(logs: bool) -> float | None:
    try:
        from smolagents import CodeAgent, LogLevel
        from smolagents.models import ChatMessage, MessageRole, Model
        from smolagents.monitoring import TokenUsage
    except ImportError:
        return None

    class Scripted(Model):
        def __init__(self) -> None:
            super().__init__(model_id="scripted")
            self.replies = _replies()

        def generate(self, messages: Any, stop_sequences: Any = None, **kwargs: Any) -> Any:
            text = self.replies.pop(0)
            for stop in stop_sequences or []:
                text = text.split(stop)[0]
            return ChatMessage(role=MessageRole.ASSISTANT, content=text, token_usage=TokenUsage(10, 10))

    agent = CodeAgent(tools=[], model=Scripted(), verbosity_level=LogLevel.INFO if logs else LogLevel.OFF)
    times = []
    sink = io.StringIO()
    with redirect_stdout(sink), redirect_stderr(sink):
        for _ in range(RUNS):
            agent.model = Scripted()
            start = time.perf_counter()
            agent.run("Compute the sum of the first ten integers.")
            times.append((time.perf_counter() - start) / 5)
    return statistics.median(times[3:])


def prompt_sizes() -> tuple[int, int | None]:
    from smol_core import CodeAgent
    from smol_core.testing import ScriptedModel

    smol = len(CodeAgent(tools=[], model=ScriptedModel([])).system_prompt)
    try:
        from smolagents import CodeAgent as SmolagentsCodeAgent
        from smolagents.models import Model
    except ImportError:
        return smol, None
    return smol, len(SmolagentsCodeAgent(tools=[], model=Model(model_id="x")).system_prompt)


def count_tokens(texts: list[str]) -> list[float | None]:
    """Tokens with the embedded model's tokenizer (SmolLM2, through llama.cpp), when it is installed."""
    from tools_prompt_tokens import Tokenizer

    tokenizer = Tokenizer()
    try:
        if tokenizer.server is None:
            return [None for _ in texts]
        return [tokenizer.count(text) for text in texts]
    finally:
        tokenizer.close()


def import_time(module: str) -> float | None:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    samples = []
    for _ in range(5):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if out.returncode != 0:
            return None
        samples.append(float(out.stdout))
    return min(samples)


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 1000:.3f} ms"


def _in_ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1e3


def main() -> None:
    from smol_core import CodeAgent
    from smol_core.testing import ScriptedModel

    per_step, their_step = smol_per_step(False), smolagents_per_step(False)
    figure(
        "agent: framework overhead per step, logs off", per_step * 1e3, "ms", smolagents=_in_ms(their_step)
    )
    rows = [
        ("overhead per step, logs off", _ms(per_step), _ms(their_step)),
        ("overhead per step, logs on", _ms(smol_per_step(True)), _ms(smolagents_per_step(True))),
    ]
    smol_fresh, smolagents_fresh = smol_fresh_agent(), smolagents_fresh_agent()
    figure(
        "fresh agent: constructor to answer, 1 step",
        smol_fresh[1] * 1e3,
        "ms",
        smolagents=_in_ms(smolagents_fresh and smolagents_fresh[1]),
    )
    rows.append(
        (
            "fresh agent: constructor to first model call",
            _ms(smol_fresh[0]),
            _ms(smolagents_fresh and smolagents_fresh[0]),
        )
    )
    rows.append(
        (
            "fresh agent: constructor to answer",
            _ms(smol_fresh[1]),
            _ms(smolagents_fresh and smolagents_fresh[1]),
        )
    )
    five, their_five = smol_fresh_five_steps(), smolagents_fresh_five_steps()
    figure(
        "fresh agent: a 5-step run, constructor to answer",
        five * 1e3,
        "ms",
        smolagents=_in_ms(their_five),
        goal=10.0,
    )
    rows.append(("fresh agent: a 5-step run, constructor to answer", _ms(five), _ms(their_five)))
    smol_chars, smolagents_chars = prompt_sizes()
    prompts = [CodeAgent(tools=[], model=ScriptedModel([])).system_prompt]
    if smolagents_chars is not None:
        from smolagents import CodeAgent as SmolagentsCodeAgent
        from smolagents.models import Model

        prompts.append(SmolagentsCodeAgent(tools=[], model=Model(model_id="x")).system_prompt)
    tokens = count_tokens(prompts) + [None]
    rows.append(("CodeAgent system prompt, characters", str(smol_chars), str(smolagents_chars or "n/a")))
    rows.append(
        ("CodeAgent system prompt, tokens (SmolLM2)", str(tokens[0] or "n/a"), str(tokens[1] or "n/a"))
    )
    rows.append(("import time", _ms(import_time("smol_core")), _ms(import_time("smolagents"))))
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'smol':>14}  {'smolagents':>18}")
    for name, ours, theirs in rows:
        print(f"{name:<{width}}  {ours:>14}  {theirs:>18}")


if __name__ == "__main__":
    main()
