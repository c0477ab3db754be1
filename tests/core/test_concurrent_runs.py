"""A run is not the agent: two runs of one agent at once each keep their own task, memory and sandbox.

A managed agent is called by its manager's tool calls, which a ToolCallingAgent runs in threads: two
calls in one reply used to write into one memory (and one CodeAgent's worker).
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from smol_core import CodeAgent, ToolCallingAgent
from smol_core.messages import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction
from smol_core.testing import FunctionModel


def task_of(messages: list[ChatMessage]) -> str:
    for message in messages:
        found = re.search(r"job-(\d+)", message.text)
        if found:
            return found.group(0)
    raise AssertionError("no task in the messages")


def slow_echo(messages: list[ChatMessage], **call: Any) -> ChatMessage:
    """Answers each run with its own task, after a pause that lets the runs overlap; the code keeps
    the task in a variable first, so two runs in one worker would see each other's."""
    job = task_of(messages)
    time.sleep(0.3)
    return ChatMessage(
        "assistant",
        f"Thought: go.\n<code>\nmine = {job!r}\nimport time\ntime.sleep(0.3)\nfinal_answer(mine)\n</code>",
    )


def test_two_runs_of_one_code_agent_at_once_keep_their_own_state() -> None:
    agent = CodeAgent(tools=[], model=FunctionModel(slow_echo), verbosity_level=0)
    answers: dict[str, Any] = {}
    memories: dict[str, list[str]] = {}

    def run(job: str) -> None:
        result = agent.run(f"Do {job}.", return_full_result=True)
        answers[job] = result.output
        memories[job] = [step["task"] for step in result.steps if "task" in step and step["task"]]

    with agent:
        threads = [threading.Thread(target=run, args=(f"job-{n}",)) for n in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert answers == {f"job-{n}": f"job-{n}" for n in range(3)}
    for job, tasks in memories.items():
        assert len(tasks) == 1 and job in tasks[0]


def test_a_manager_calling_one_managed_agent_twice_in_one_reply_gets_both_answers() -> None:
    helper = ToolCallingAgent(
        tools=[],
        model=FunctionModel(lambda messages, **call: call_final(task_of(messages))),
        name="helper",
        description="Does a job.",
        verbosity_level=0,
    )
    calls = [
        ChatMessageToolCall(ChatMessageToolCallFunction("helper", {"task": f"Do job-{n}."}), f"c{n}")
        for n in range(2)
    ]
    replies = iter([ChatMessage("assistant", "", tool_calls=calls), call_final("done")])
    manager = ToolCallingAgent(
        tools=[],
        model=FunctionModel(lambda messages, **call: next(replies)),
        managed_agents=[helper],
        verbosity_level=0,
    )
    assert manager.run("Do two jobs.") == "done"
    observations = str(manager.memory.steps[1].observations)
    assert "job-0" in observations and "job-1" in observations
    assert len(helper.memory.steps) >= 2  # the last run's memory, whole, not two runs mixed
    tasks = [getattr(step, "task", None) for step in helper.memory.steps if getattr(step, "task", None)]
    assert len(tasks) == 1


def call_final(answer: str) -> ChatMessage:
    time.sleep(0.2)
    return ChatMessage(
        "assistant",
        "",
        tool_calls=[
            ChatMessageToolCall(ChatMessageToolCallFunction("final_answer", {"answer": answer}), "f")
        ],
    )


def test_after_a_run_the_agent_shows_its_memory_and_reset_false_continues_it() -> None:
    agent = CodeAgent(tools=[], model=FunctionModel(slow_echo), verbosity_level=0)
    with agent:
        agent.run("Do job-1.")
        first = len(agent.memory.steps)
        agent.run("Do job-2.", reset=False)
        assert len(agent.memory.steps) > first
        assert agent.task.startswith("Do job-2")
        agent.run("Do job-3.")
        assert len(agent.memory.steps) == first


def test_a_stream_dropped_before_its_first_event_is_no_run_still_going() -> None:
    """Before: the dropped stream stayed an active run, so the next run took the concurrent path
    (a memory of its own, a second sandbox worker) and `reset=False` continued nothing."""
    agent = CodeAgent(tools=[], model=FunctionModel(slow_echo), verbosity_level=0)
    with agent:
        agent.run("Do job-1.")
        steps = len(agent.memory.steps)
        stream = agent.run("Do job-2.", stream=True)
        del stream  # never iterated
        assert agent._runs.active == 0
        agent.run("Do job-3.", reset=False)
        assert len(agent.memory.steps) > steps  # it continued the last memory, as a lone run does
        assert agent.python_executor is agent._executor  # and used the agent's own worker
