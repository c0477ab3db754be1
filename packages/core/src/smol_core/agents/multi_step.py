"""`MultiStepAgent`: the loop every agent runs — think, act, observe — until a final answer.

Subclasses (`CodeAgent`, `ToolCallingAgent`) decide how one action step is produced and executed
(`_step_stream`); this class owns everything around it: memory, planning, callbacks, final-answer
checks, the step budget, streaming, managed agents, and export.
"""

from __future__ import annotations

import copy
import inspect
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterable
from typing import Any, Literal, cast

from smol_core import instrumentation
from smol_core.agent_types import handle_agent_output_types
from smol_core.agents.duck_model import as_agent_model
from smol_core.agents.events import ActionOutput
from smol_core.agents.prompts import (
    EMPTY_PROMPT_TEMPLATES,
    PromptTemplates,
    merge_templates,
    populate_template,
)
from smol_core.agents.result import RunResult
from smol_core.agents.run_state import RunAttribute, RunState, _Binding, bound_to, current_run
from smol_core.agents.saved_settings import IgnoredSetting
from smol_core.durable import runner as durable
from smol_core.errors import AgentError, AgentGenerationError, AgentMaxStepsError, AgentParsingError
from smol_core.memory import (
    ActionStep,
    AgentMemory,
    CallbackRegistry,
    FinalAnswerStep,
    MemoryStep,
    PlanningStep,
    SystemPromptStep,
    TaskStep,
)
from smol_core.messages import ChatMessage, MessageRole, Timing, TokenUsage
from smol_core.models.base import Model
from smol_core.monitoring import AgentLogger, LogLevel, Monitor
from smol_core.tools.base_tools import TOOL_MAPPING, FinalAnswerTool
from smol_core.tools.decorator import as_tool
from smol_core.tools.time_limit import (
    DEFAULT_STEP_TOOL_BUDGET_SECONDS,
    DEFAULT_TOOL_TIMEOUT_SECONDS,
    StepToolBudget,
)
from smol_core.tools.tool import Tool

StreamEvent = Any
FinalAnswerCheck = Callable[..., bool]


class MultiStepAgent(ABC):
    """An agent that solves a task in steps (ReAct): each step, the model acts and sees the result."""

    # what one run changes as it goes lives in that run's `RunState` (agents/run_state.py)
    task: RunAttribute[str | None] = RunAttribute()
    memory: RunAttribute[AgentMemory] = RunAttribute()
    step_number: RunAttribute[int] = RunAttribute()
    state: RunAttribute[dict[str, Any]] = RunAttribute()
    interrupt_switch: RunAttribute[bool] = RunAttribute()

    def _run(self) -> RunState:
        """The run executing in this context, or else the last one started."""
        return current_run(self) or self._last_run

    def __init__(
        self,
        tools: Iterable[Tool | Callable[..., Any]],
        model: Model | Callable[..., Any],
        prompt_templates: PromptTemplates | dict[str, Any] | None = None,
        instructions: str | None = None,
        max_steps: int = 20,
        add_base_tools: bool = False,
        verbosity_level: LogLevel | int = LogLevel.INFO,
        managed_agents: list[MultiStepAgent] | None = None,
        step_callbacks: list[Callable[..., Any]] | dict[type[MemoryStep], Any] | None = None,
        planning_interval: int | None = None,
        name: str | None = None,
        description: str | None = None,
        provide_run_summary: bool = False,
        final_answer_checks: list[FinalAnswerCheck] | None = None,
        return_full_result: bool = False,
        logger: AgentLogger | None = None,
        tool_timeout_seconds: float | None = DEFAULT_TOOL_TIMEOUT_SECONDS,
        step_tool_budget_seconds: float | None = DEFAULT_STEP_TOOL_BUDGET_SECONDS,
        grammar: str | dict[str, Any] | None = None,
        checkpoint_store: Any = None,
    ) -> None:
        # where `run(..., run_id=...)` saves each step (a `smol_core.durable.CheckpointStore`);
        # None: the default SQLite file under the user's data folder
        self.checkpoint_store = checkpoint_store
        self._last_run = RunState(memory=AgentMemory(""))  # until the system prompt can be built
        self._active_runs = 0
        self._runs_lock = threading.Lock()
        self.model = as_agent_model(model)
        # how long one tool call may take (a tool's own `timeout_seconds` wins); None: no limit
        self.tool_timeout_seconds = tool_timeout_seconds
        # how long all tool calls of one step may take together; None: no limit
        self.tool_budget = StepToolBudget(step_tool_budget_seconds)
        self.prompt_templates: PromptTemplates = merge_templates(
            self.default_prompt_templates(), _with_seed_keys(prompt_templates)
        )
        self.instructions = instructions
        self.max_steps = max_steps
        self.planning_interval = planning_interval
        self.name = self._validate_name(name)
        self.description = description
        self.provide_run_summary = provide_run_summary
        self.final_answer_checks = list(final_answer_checks or [])
        self.return_full_result = return_full_result
        # smolagents' `grammar=`: every model call is constrained by it (see `_grammar_keywords`)
        self.grammar = grammar
        self.logger = logger or AgentLogger(level=verbosity_level)
        self.monitor = Monitor(self.model, self.logger)
        self._setup_managed_agents(managed_agents)
        self._setup_tools(tools, add_base_tools)
        self._setup_step_callbacks(step_callbacks)
        self._last_run.memory = AgentMemory(self.system_prompt)

    # --- set-up ------------------------------------------------------------------------------

    def default_prompt_templates(self) -> PromptTemplates:
        return EMPTY_PROMPT_TEMPLATES

    @staticmethod
    def _validate_name(name: str | None) -> str | None:
        if name is not None and (not name.isidentifier() or name in {"final_answer"}):
            raise ValueError(
                f"Agent name {name!r} must be a valid Python identifier (it is called like a function)."
            )
        return name

    def _setup_managed_agents(self, managed_agents: list[MultiStepAgent] | None) -> None:
        self.managed_agents: dict[str, MultiStepAgent] = {}
        for agent in managed_agents or []:
            if not agent.name or not agent.description:
                raise ValueError(
                    f"A managed agent needs a name and a description (got name={agent.name!r}, "
                    f"description={agent.description!r}): its manager calls it by name and reads the description."
                )
            if agent.name in self.managed_agents:
                raise ValueError(f"Two managed agents are named {agent.name!r}.")
            self.managed_agents[agent.name] = agent

    def _setup_tools(self, tools: Iterable[Tool | Callable[..., Any]], add_base_tools: bool) -> None:
        if tools is None:
            raise TypeError("`tools` must be a list (it may be empty).")
        self.tools: dict[str, Tool] = {}
        for item in tools:
            tool = as_tool(item)
            if tool.name in self.tools:
                raise ValueError(
                    f"Two tools are named {tool.name!r}; tool names must be unique. "
                    "(Each tool or managed_agent should have a unique name!)"
                )
            self.tools[tool.name] = tool
        if add_base_tools:
            for name, tool_class in TOOL_MAPPING.items():
                if name != "python_interpreter" or self._wants_python_interpreter_tool():
                    self.tools.setdefault(name, tool_class())
        self.tools.setdefault("final_answer", FinalAnswerTool())
        clash = set(self.tools) & set(self.managed_agents)
        if clash:
            raise ValueError(
                f"These names are used by both a tool and a managed agent: {sorted(clash)}. "
                "(Each tool or managed_agent should have a unique name!)"
            )
        if self.name is not None and (self.name in self.tools or self.name in self.managed_agents):
            # a manager calls this agent by its name, beside its own tools: one name, one thing
            raise ValueError(
                f"The agent is named {self.name!r}, as one of its tools or managed agents. "
                "(Each tool or managed_agent should have a unique name!)"
            )

    def _wants_python_interpreter_tool(self) -> bool:
        return True

    def _setup_step_callbacks(
        self, step_callbacks: list[Callable[..., Any]] | dict[type[MemoryStep], Any] | None
    ) -> None:
        self.step_callbacks = CallbackRegistry()
        if isinstance(step_callbacks, dict):
            for step_cls, callbacks in step_callbacks.items():
                for callback in callbacks if isinstance(callbacks, list) else [callbacks]:
                    self.step_callbacks.register(step_cls, callback)
        else:
            for callback in step_callbacks or []:
                self.step_callbacks.register(ActionStep, callback)
        self.step_callbacks.register(ActionStep, self.monitor.update_metrics)

    @property
    def system_prompt(self) -> str:
        return self.initialize_system_prompt()

    @system_prompt.setter
    def system_prompt(self, value: str) -> None:
        # the prompt is built from the templates at each run: a value set here would be lost
        raise AttributeError(
            """The 'system_prompt' property is read-only. Use 'self.prompt_templates["system_prompt"]' instead."""
        )

    @abstractmethod
    def initialize_system_prompt(self) -> str:
        """The system prompt, with tools and managed agents filled in."""

    def _managed_agents_section(self) -> str:
        from smol_core.agents.prompts import MANAGED_AGENTS_SECTION

        if not self.managed_agents:
            return ""
        listing = "\n".join(
            f"- {name}(task: str, additional_args: dict | None = None) -> str: {agent.description}"
            for name, agent in self.managed_agents.items()
        )
        return populate_template(MANAGED_AGENTS_SECTION, {"managed_agents_list": listing})

    def _custom_instructions(self) -> str:
        return f"\n{self.instructions}\n" if self.instructions else ""

    # --- running ------------------------------------------------------------------------------

    def run(
        self,
        task: str | None,
        stream: bool = False,
        reset: bool = True,
        images: list[Any] | None = None,
        additional_args: dict[str, Any] | None = None,
        max_steps: int | None = None,
        return_full_result: bool | None = None,
        run_id: str | None = None,
    ) -> Any:
        """Solve `task`. Returns the final answer, a `RunResult` (`return_full_result=True`) or, with
        `stream=True`, a generator of the run's events and steps.

        `run_id`: a durable run, checkpointed after every step (`checkpoint_store`), which
        `resume(run_id)` continues in any process after this one died (docs/durable.md).

        `task=None` (an agent of a team started without a task): wait for messages through the
        agent's `ReceiveMessagesTool` and take what arrives as the task."""
        max_steps = max_steps or self.max_steps
        run = self._start_run(reset)
        binding = _Binding(self, run)
        try:
            if run_id is not None:
                durable.start(self, run, run_id, max_steps, task)
            return self._run_bound(
                run, task, stream, reset, images, additional_args, max_steps, return_full_result
            )
        except BaseException:
            self._end_run(run)  # it failed before its events ran (idempotent if they did)
            raise
        finally:
            binding.close()

    def _start_run(self, reset: bool) -> RunState:
        """A new run's state. Alone, it continues the last run's memory and variables, as runs always
        did (`reset=False` keeps the steps); beside a run still going (a managed agent called twice at
        once) it gets a memory of its own and a copy of the variables, so neither sees the other."""
        previous = self._last_run
        with self._runs_lock:
            concurrent = self._active_runs > 0
            self._active_runs += 1
        if concurrent:
            memory = AgentMemory(self.system_prompt)
            if not reset:
                memory.steps = list(previous.memory.steps)
            run = RunState(memory=memory, state=dict(previous.state))
        else:
            run = RunState(memory=previous.memory, state=previous.state)
        self._last_run = run
        return run

    def resume(
        self,
        run_id: str,
        stream: bool = False,
        max_steps: int | None = None,
        return_full_result: bool | None = None,
    ) -> Any:
        """Continue the durable run `run_id` from its latest checkpoint (in this or another process):
        memory, step counter and sandbox variables restored, checkpointed model replies not asked again.
        Returns what `run()` returns. The agent must be configured as the one that started the run."""
        return durable.resume_run(self, run_id, stream, max_steps, return_full_result)

    def _end_run(self, run: RunState) -> None:
        durable.end(run)
        with self._runs_lock:
            if not run.ended:
                run.ended = True
                self._active_runs -= 1

    def _run_bound(
        self,
        run: RunState,
        task: str | None,
        stream: bool,
        reset: bool,
        images: list[Any] | None,
        additional_args: dict[str, Any] | None,
        max_steps: int,
        return_full_result: bool | None,
    ) -> Any:
        instrumentation.discover()
        trace_parent = None
        if task is None:
            task = self._task_from_messages()
            trace_parent = instrumentation.extract(self._message_trace_context())  # the sender's trace
        self.task = task
        if additional_args:
            self.state.update(additional_args)
            self.task += (
                "\nYou have been given these values, available as variables with these names:\n"
                + "\n".join(_describe_argument(key, value) for key, value in additional_args.items())
            )
        self.memory.system_prompt = SystemPromptStep(system_prompt=self.system_prompt)
        if reset:
            self.memory.reset()
            self.monitor.reset()
        self.logger.log_task(
            content=self.task.strip(),
            subtitle=" - ".join(
                filter(None, [type(self.model).__name__, str(getattr(self.model, "model_id", None) or "")])
            ),
            title=self.name,
            level=LogLevel.INFO,
        )
        self.memory.steps.append(TaskStep(task=self.task, task_images=images))
        self._prepare_run()
        events = bound_to(
            self, run, self._ending(run, self._traced_run(self.task, max_steps, images, trace_parent))
        )
        return self._deliver(run, events, stream, return_full_result)

    def _deliver(
        self, run: RunState, events: Generator[StreamEvent], stream: bool, return_full_result: bool | None
    ) -> Any:
        """The run's events as `run()` returns them: streamed, or consumed to the answer or result."""
        if stream:
            # a stream dropped before its first event never runs its `finally`: end the run when
            # the generator goes, or the agent's next run would take it for one still going
            weakref.finalize(events, self._end_run, run)
            return events
        start = time.time()
        final: FinalAnswerStep | None = None
        for event in events:
            if isinstance(event, FinalAnswerStep):
                final = event
        assert final is not None
        if return_full_result if return_full_result is not None else self.return_full_result:
            result = self._full_result(final.output, start)
            result.team_messages = self._team_messages()
            return result
        return final.output

    def _ending(self, run: RunState, events: Generator[StreamEvent]) -> Generator[StreamEvent]:
        """The run's events; when they end (or the consumer drops them), the run is no longer active."""
        try:
            yield from events
        finally:
            self._end_run(run)

    def _traced_run(
        self, task: str, max_steps: int, images: list[Any] | None, parent: Any
    ) -> Generator[StreamEvent]:
        """The run's events, under the run's span when something traces (`smol_core.instrumentation`)."""
        span = self._run().run_span = instrumentation.span(
            "agent",
            self.name or type(self).__name__,
            {
                "agent.name": self.name or type(self).__name__,
                "agent.id": f"{self.name or type(self).__name__}-{id(self):x}",
                "agent.description": self.description,
                "agent.class": type(self).__name__,
                "model.id": getattr(self.model, "model_id", None),
                "task": task,
            },
            parent=parent,
        )
        return instrumentation.traced_iter(span, self._run_stream(task, max_steps, images))  # type: ignore[return-value]

    def _message_trace_context(self) -> dict[str, str]:
        """The W3C trace context of the messages that became this run's task (empty if none)."""
        from smol_core.teams.tools import ReceiveMessagesTool

        for tool in self._message_tools():
            if isinstance(tool, ReceiveMessagesTool) and tool.trace_context:
                return tool.trace_context
        return {}

    def _message_tools(self) -> list[Tool]:
        from smol_core.teams.tools import ReceiveMessagesTool, SendMessageTool

        return [t for t in self.tools.values() if isinstance(t, ReceiveMessagesTool | SendMessageTool)]

    def _task_from_messages(self) -> str:
        from smol_core.teams.tools import ReceiveMessagesTool

        inbox = [t for t in self._message_tools() if isinstance(t, ReceiveMessagesTool)]
        if not inbox:
            raise ValueError(
                "run(task=None) waits for a task from other agents, which needs a ReceiveMessagesTool "
                "among this agent's tools: give it one, or give run() a task"
            )
        return inbox[0].wait_for_task(should_stop=lambda: self.interrupt_switch)

    def _team_messages(self) -> list[dict[str, Any]]:
        """Every message this agent's message tools sent or received, once each (they may share a log)."""
        seen: set[int] = set()
        records: list[dict[str, Any]] = []
        for found in self._message_tools():
            log = found.log  # type: ignore[attr-defined]
            if id(log) not in seen:
                seen.add(id(log))
                records.extend(log.records)
        return sorted(records, key=lambda record: record["timestamp"])

    def _prepare_run(self) -> None:
        """Hook for subclasses: send tools and state to an executor before the first step."""

    def _full_result(self, output: Any, start: float) -> RunResult:
        usage: TokenUsage | None = TokenUsage()
        for step in self.memory.steps:
            if isinstance(step, ActionStep | PlanningStep):
                if step.token_usage is None:
                    usage = None
                    break
                usage = step.token_usage + usage
        last = self.memory.steps[-1] if self.memory.steps else None
        state: Literal["success", "max_steps_error"] = (
            "max_steps_error" if isinstance(getattr(last, "error", None), AgentMaxStepsError) else "success"
        )
        return RunResult(
            output=output,
            state=state,
            steps=self.memory.get_full_steps(),
            token_usage=usage,
            timing=Timing(start_time=start, end_time=time.time()),
        )

    def _run_stream(
        self, task: str, max_steps: int, images: list[Any] | None = None
    ) -> Generator[StreamEvent]:
        self.step_number = durable.first_step(self, self._run())
        final_answer: Any = None
        returned_final_answer = False
        while not returned_final_answer and self.step_number <= max_steps:
            if self.interrupt_switch:
                raise AgentError("Agent interrupted.", self.logger)
            if self.planning_interval is not None and (
                self.step_number == 1 or (self.step_number - 1) % self.planning_interval == 0
            ):
                # as the seed: a run that continues a conversation (reset=False) or memory with
                # steps put in by hand plans with those steps in view, as an update
                first = len(self.memory.steps) == 1
                yield from self._generate_planning_step(
                    task, is_first_step=first, step=self.step_number, max_steps=max_steps
                )
            action_step = ActionStep(
                step_number=self.step_number,
                observations_images=images,
                repeat_tool_calls_in_messages=self._repeat_tool_calls,
            )
            self.logger.log_rule(f"Step {self.step_number}", level=LogLevel.INFO)
            self.tool_budget.start_step()
            step_span = instrumentation.span(
                "step", f"step {self.step_number}", {"step.number": self.step_number}
            )
            try:
                for event in instrumentation.traced_iter(
                    step_span, self._step_stream(action_step), end=False
                ):
                    yield event
                    if isinstance(event, ActionOutput) and event.is_final_answer:
                        self.logger.print(
                            self.logger._style(f"Final answer: {event.output}", "bold", "yellow")
                        )
                        if self.final_answer_checks:
                            with step_span.activate():
                                self._validate_final_answer(event.output)
                        final_answer = event.output
                        returned_final_answer = True
                        action_step.is_final_answer = True
            except AgentGenerationError as error:
                step_span.error(error)
                action_step.error = error
                action_step.timing.finish()
                self.memory.steps.append(action_step)
                raise
            except AgentError as error:
                step_span.error(error)
                action_step.error = error
                if not getattr(error, "logged", False):  # a subclass may skip our __init__
                    self.logger.log_error(str(error))
            except Exception as error:
                # An error of the host's making still ends the run, but the step that failed says why.
                step_span.error(error)
                action_step.error = AgentError(f"{type(error).__name__}: {error}"[:2000])
                raise
            finally:
                if action_step not in self.memory.steps:
                    self._finalize_step(action_step)
                    self.memory.steps.append(action_step)
                _end_step_span(step_span, action_step)
            durable.after_step(self, self._run())
            yield action_step
            self.step_number += 1
        if not returned_final_answer:
            final_answer = self._handle_max_steps_reached(task)
        # a str, image or audio answer becomes an agent type that displays (notebook, UI) and saves
        final_step = FinalAnswerStep(output=handle_agent_output_types(final_answer))
        self._run().run_span.set("output", final_step.output)
        durable.finished(self._run(), final_step)
        self.step_callbacks.callback(final_step, agent=self)
        yield final_step

    _repeat_tool_calls = True

    def _finalize_step(self, step: ActionStep | PlanningStep | FinalAnswerStep) -> None:
        """End the step's timing, log its summary, run the callbacks registered for its type."""
        if not isinstance(step, FinalAnswerStep):
            step.timing.finish()
        if isinstance(step, ActionStep):
            self.logger.log_step_summary(step, step.step_number)
        self.step_callbacks.callback(step, agent=self)

    def _validate_final_answer(self, final_answer: Any) -> None:
        for check in self.final_answer_checks:
            name = str(getattr(check, "__name__", "check"))
            try:
                with instrumentation.span("check", name, {"check.name": name}) as check_span:
                    passed = (
                        check(final_answer, self.memory, agent=self)
                        if _takes_agent(check)
                        else check(final_answer, self.memory)
                    )
                    check_span.set("check.passed", bool(passed))
            except Exception as error:
                # "Check <name> failed with error": the seed's wording, which callers match on
                raise AgentError(
                    f"The final answer was rejected by the check {getattr(check, '__name__', check)!r}: "
                    f"Check {name} failed with error: {error}",
                    self.logger,
                ) from error
            if not passed:
                # "Check <name> failed": the seed's wording, which callers match on
                raise AgentError(
                    f"Check {name} failed: the final answer {final_answer!r:.200} was rejected by the check "
                    f"{getattr(check, '__name__', check)!r}. Keep working and give a better answer.",
                    self.logger,
                )

    def _handle_max_steps_reached(self, task: str) -> Any:
        start = time.time()
        message = self.provide_final_answer(task)
        step = ActionStep(
            step_number=self.step_number,
            error=AgentMaxStepsError(
                f"Reached the maximum number of steps ({self.step_number - 1}).", self.logger
            ),
            timing=Timing(start_time=start),
            token_usage=message.token_usage,
        )
        step.action_output = message.text
        self._finalize_step(step)
        self.memory.steps.append(step)
        return message.text

    def _planning_step(self, task: str, is_first_step: bool, max_steps: int) -> Generator[StreamEvent]:
        """A planning step at the current step number (see `_generate_planning_step`)."""
        return self._generate_planning_step(task, is_first_step, self.step_number, max_steps)

    def _generate_planning_step(
        self, task: str, is_first_step: bool, step: int, max_steps: int | None = None
    ) -> Generator[StreamEvent]:
        """Ask the model for a plan (the first) or an updated one, at step `step` of `max_steps`
        (the agent's by default): smolagents' name and arguments, which its users' code calls."""
        max_steps = self.max_steps if max_steps is None else max_steps
        start = time.time()
        tools_text = "\n".join(f"- {tool.name}: {tool.description}" for tool in self.tools.values())
        variables: dict[str, Any] = {
            "task": task,
            "tools": tools_text,
            "managed_agents": self._managed_agents_section(),
        }
        templates = self.prompt_templates["planning"]
        if any("{%" in str(template) for template in templates.values()):
            # a seed-system Jinja template iterates over the tools: it gets them as plain views
            variables.update(tools=self.tools, managed_agents=self.managed_agents)
        if is_first_step:
            prompt = populate_template(templates["initial_plan"], variables)
            input_messages = [ChatMessage(MessageRole.USER, [{"type": "text", "text": prompt}])]
        else:
            pre = populate_template(templates["update_plan_pre_messages"], variables)
            post = populate_template(
                templates["update_plan_post_messages"],
                {**variables, "remaining_steps": max_steps - step},
            )
            input_messages = [
                ChatMessage(MessageRole.SYSTEM, [{"type": "text", "text": pre}]),
                # summary mode leaves out the system prompt and earlier plans, as in the seed
                *self.write_memory_to_messages(summary_mode=True),
                ChatMessage(MessageRole.USER, [{"type": "text", "text": post}]),
            ]
        try:
            with instrumentation.span("planning", "planning", {"step.number": self.step_number}):
                message = self.model.generate(input_messages, stop_sequences=["<end_plan>"])
        except Exception as error:
            raise AgentGenerationError(f"The model failed while planning: {error}", self.logger) from error
        plan = (message.text or "").split("<end_plan>")[0].strip()
        heading = "Here is the plan:" if is_first_step else "Here is the updated plan:"
        planning_step = PlanningStep(
            model_input_messages=input_messages,
            model_output_message=message,
            plan=f"{heading}\n{plan}",
            timing=Timing(start_time=start),
            token_usage=message.token_usage,
        )
        self.logger.log_markdown(title="Plan", content=plan, level=LogLevel.INFO)
        self._finalize_step(planning_step)
        self.memory.steps.append(planning_step)
        yield planning_step

    def _step_stream(self, memory_step: ActionStep) -> Generator[StreamEvent]:
        """Produce and execute one action; yield events, and an `ActionOutput` at the end.

        Not abstract, as in the seed: a subclass written against older versions overrides `step`
        (returning the final answer or None) instead, and runs through it."""
        if type(self).step is MultiStepAgent.step:
            raise NotImplementedError(f"{type(self).__name__} must implement _step_stream() or step().")
        output = self.step(memory_step)
        yield ActionOutput(output=output, is_final_answer=output is not None)

    def step(self, memory_step: ActionStep) -> Any:
        """Run one step; returns the final answer if this step produced one, else None."""
        result = None
        for event in self._step_stream(memory_step):
            if isinstance(event, ActionOutput) and event.is_final_answer:
                result = event.output
        return result

    def interrupt(self) -> None:
        """Stop the run before its next step."""
        self.interrupt_switch = True

    @property
    def logs(self) -> list[Any]:
        """The run's steps (`agent.memory.steps`), under the name older seed versions used."""
        return list(self.memory.steps)

    def get_succinct_logs(self) -> list[dict[str, Any]]:
        """The steps without model inputs (`agent.memory.get_succinct_steps()`), as older seed versions named it."""
        return self.memory.get_succinct_steps()

    def write_memory_to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        messages = self.memory.system_prompt.to_messages(summary_mode=summary_mode)
        for step in self.memory.steps:
            messages.extend(step.to_messages(summary_mode=summary_mode))
        return messages

    def _grammar_keywords(self) -> dict[str, Any]:
        """What `grammar=` adds to each model call: a string is a grammar (GBNF, for backends that
        decode under one), a dict a `response_format` (smolagents' `{"type": "regex", ...}` or a JSON
        schema), as providers take them. Nothing when unset, so models without these keywords work."""
        if self.grammar is None:
            return {}
        if isinstance(self.grammar, str):
            return {"grammar": self.grammar}
        return {"response_format": self.grammar}

    def extract_action(self, model_output: str, split_token: str) -> tuple[str, str]:
        """The rationale and the action of a reply written as `<thought><split_token><action>`
        (smolagents' helper for agents that parse their replies themselves); the last split wins."""
        parts = model_output.split(split_token)
        if len(parts) < 2:
            raise AgentParsingError(
                f"No '{split_token}' token provided in your output.\nYour output:\n{model_output}\n. "
                f"Be sure to include an action, prefaced with '{split_token}'!",
                self.logger,
            )
        return parts[-2].strip(), parts[-1].strip()

    def provide_final_answer(self, task: str, images: list[Any] | None = None) -> ChatMessage:
        """Ask the model for its best answer from the memory (used when the step budget runs out).

        Returns the model's message, as smolagents 1.26 does (`.content` is the answer); `images`
        (older smolagents took them) are shown to the model with the instructions."""
        try:
            return self.model.generate(self._final_answer_messages(task, images))
        except Exception as error:
            return ChatMessage(MessageRole.ASSISTANT, f"Error in generating final LLM output: {error}")

    def _final_answer_messages(self, task: str, images: list[Any] | None = None) -> list[ChatMessage]:
        templates = self.prompt_templates["final_answer"]
        content: list[dict[str, Any]] = [{"type": "text", "text": templates["pre_messages"]}]
        content += [{"type": "image", "image": image} for image in images or []]
        messages = [ChatMessage(MessageRole.SYSTEM, content)]
        messages += self.write_memory_to_messages()[1:]
        messages.append(
            ChatMessage(
                MessageRole.USER,
                [{"type": "text", "text": populate_template(templates["post_messages"], {"task": task})}],
            )
        )
        return messages

    def replay(self, detailed: bool = False) -> None:
        self.memory.replay(self.logger, detailed=detailed)

    def visualize(self) -> None:
        self.logger.visualize_agent_tree(self)

    # --- as a managed agent --------------------------------------------------------------------

    def __call__(self, task: str, additional_args: dict[str, Any] | None = None, **kwargs: Any) -> str:
        """Run as a team member: the manager's task in, a report out."""
        full_task = populate_template(
            self.prompt_templates["managed_agent"]["task"], {"name": self.name, "task": task}
        )
        result = self.run(full_task, additional_args=additional_args, **kwargs)
        output = result.output if isinstance(result, RunResult) else result
        report = populate_template(
            self.prompt_templates["managed_agent"]["report"], {"name": self.name, "final_answer": output}
        )
        if self.provide_run_summary:
            # smolagents' layout, which managers' prompts and parsers expect
            report += "\n\nFor more detail, find below a summary of this agent's work:\n<summary_of_work>\n"
            for message in self.write_memory_to_messages(summary_mode=True):
                report += "\n" + _truncated(message.text) + "\n---"
            report += "\n</summary_of_work>"
        return report

    # --- export -------------------------------------------------------------------------------

    # What the file or dict this agent was loaded from asked for and did not get (security settings
    # come only from code): filled by `from_folder`, `from_dict` and `from_hub`.
    ignored_settings: tuple[IgnoredSetting, ...] = ()
    # The security settings a trusted load (`from_hub(..., trust_remote_code=True)`) applied from
    # the saved files, each shown with a warning before it applied.
    applied_settings: tuple[IgnoredSetting, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The agent as data: tools with their source, managed agents, prompts and settings."""
        from smol_core.agents.serialization import agent_to_dict

        return agent_to_dict(self)

    @classmethod
    def from_dict(cls, agent_dict: dict[str, Any], **kwargs: Any) -> MultiStepAgent:
        """Rebuild an agent from `to_dict()`'s output. The dict's tools run as code (load only dicts
        you trust, as with folders); security settings (executor, authorized imports, output limits,
        the model's endpoint and credentials) come only from `kwargs`, never from the dict: what it
        asked for is warned about and listed in `agent.ignored_settings`."""
        from smol_core.agents.serialization import agent_from_dict

        return cast(MultiStepAgent, agent_from_dict(agent_dict, cls, **kwargs))

    def save(self, output_dir: str, relative_path: str | None = None) -> None:
        from smol_core.agents.serialization import save_agent

        save_agent(self, output_dir, relative_path)

    @classmethod
    def from_folder(cls, folder: str, **kwargs: Any) -> MultiStepAgent:
        """Load what `save()` wrote. `kwargs` override the saved settings and are the only source of
        security settings, e.g. `from_folder(path, additional_authorized_imports=["numpy"])`;
        `model_kwargs={...}` adds to the saved model's settings (its endpoint, for one)."""
        from smol_core.agents.serialization import agent_from_folder

        return cast(MultiStepAgent, agent_from_folder(folder, **kwargs))

    def push_to_hub(self, repo_id: str, **kwargs: Any) -> str:
        from smol_core.plugins.lazy import plugin_attribute

        push: Callable[..., str] = plugin_attribute("smol_tool_hub", "push_agent_to_hub", "smol-tool-hub")
        return push(self, repo_id, **kwargs)

    @classmethod
    def from_hub(
        cls, repo_id: str, token: str | None = None, trust_remote_code: bool = False, **kwargs: Any
    ) -> MultiStepAgent:
        from smol_core.plugins.lazy import plugin_attribute

        load: Callable[..., MultiStepAgent] = plugin_attribute(
            "smol_tool_hub", "agent_from_hub", "smol-tool-hub"
        )
        return load(repo_id, token=token, trust_remote_code=trust_remote_code, **kwargs)

    def fresh_copy(self) -> MultiStepAgent:
        """A copy that shares this agent's configuration (model, tools, prompts, callbacks, logger)
        and none of its state: an empty memory, its own variables and token counts, copies of its
        managed agents and of its tools that keep state (those with a `fresh_copy()`, such as
        `python_interpreter`), and (a `CodeAgent`) a sandbox of its own, made on first use.

        Why: a surface that serves several people (a chat page, a server) gives each their own
        agent, so no one reads another's conversation or the variables another's code left in the
        sandbox. Close the copy (`cleanup()`) when its user is gone."""
        twin = copy.copy(self)
        twin._active_runs = 0
        twin._runs_lock = threading.Lock()
        twin.monitor = Monitor(self.model, self.logger)
        twin.tool_budget = StepToolBudget(self.tool_budget.seconds)
        twin.managed_agents = {name: agent.fresh_copy() for name, agent in self.managed_agents.items()}
        # a tool that keeps state between calls (an interpreter's namespace) says so with a
        # fresh_copy() of its own; the others are configuration, shared
        twin.tools = {name: _own_copy(tool) for name, tool in self.tools.items()}
        twin.step_callbacks = self.step_callbacks.rebound(
            self.monitor.update_metrics, twin.monitor.update_metrics
        )
        twin._last_run = RunState(memory=AgentMemory(""))
        twin._last_run.memory = AgentMemory(twin.system_prompt)
        return twin

    def cleanup(self) -> None:
        """Release resources (executors of this agent and of its managed agents)."""
        for agent in self.managed_agents.values():
            agent.cleanup()

    def __enter__(self) -> MultiStepAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


def _own_copy(tool: Tool) -> Tool:
    """`tool.fresh_copy()` for a tool that keeps state between calls, else the tool itself."""
    make = getattr(tool, "fresh_copy", None)
    return cast(Tool, make()) if callable(make) else tool


def _end_step_span(scope: Any, step: ActionStep) -> None:
    """What the step came to, on its span (when something traces), then the span's end."""
    if scope is instrumentation.NO_SPAN:
        return
    if step.token_usage is not None:
        scope.set("usage.input_tokens", step.token_usage.input_tokens)
        scope.set("usage.output_tokens", step.token_usage.output_tokens)
    scope.set("step.final", bool(step.is_final_answer))
    scope.end()


def _with_seed_keys(templates: PromptTemplates | dict[str, Any] | None) -> dict[str, Any] | None:
    """Custom templates with smolagents' documented names read as the names it uses: its docstring
    calls the first planning template `plan`, its code `initial_plan`; both are taken."""
    if not templates:
        return None
    custom = dict(templates)
    planning = custom.get("planning")
    if isinstance(planning, dict) and "plan" in planning and "initial_plan" not in planning:
        planning = dict(planning)
        planning["initial_plan"] = planning.pop("plan")
        custom["planning"] = planning
    return custom


_SUMMARY_MESSAGE_CHARS = 20_000


def _truncated(text: str) -> str:
    """A message of a run summary, cut in the middle past `_SUMMARY_MESSAGE_CHARS` (as smolagents does)."""
    if len(text) <= _SUMMARY_MESSAGE_CHARS:
        return text
    half = _SUMMARY_MESSAGE_CHARS // 2
    return f"{text[:half]}\n..._This content has been truncated to stay below {_SUMMARY_MESSAGE_CHARS} characters_...\n{text[-half:]}"


def _takes_agent(check: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(check).parameters
    except (TypeError, ValueError):
        return False
    return "agent" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


_ARGUMENT_PREVIEW_CHARS = 200


def _describe_argument(key: str, value: Any) -> str:
    """One line of the task for a value handed over in `additional_args`.

    The seed shows the values themselves, so a short instruction or URL reaches the model; a long
    value is cut (it stays whole in the variable), and one whose repr fails shows its type only.
    """
    try:
        preview = repr(value)
    except Exception:
        return f"- {key}: {type(value).__name__}"
    if len(preview) > _ARGUMENT_PREVIEW_CHARS:
        preview = preview[:_ARGUMENT_PREVIEW_CHARS] + "..."
    return f"- {key}: {type(value).__name__} = {preview}"
