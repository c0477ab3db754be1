"""`MultiStepAgent`: the loop every agent runs — think, act, observe — until a final answer.

Subclasses (`CodeAgent`, `ToolCallingAgent`) decide how one action step is produced and executed
(`_step_stream`). This class is the agent's configuration and its step strategy: the loop that
decides when to plan, act, check the answer and stop. Each `run()` is an `AgentRun` (`smol_core.agents.run`),
which owns the run's state and everything around the steps (binding, tracing, streaming, ending, the
result); the agent's `memory`, `task`, `state`... are views of the current run. The steps' parts
live beside it: planning.py, final_answer.py, managed_call.py, agent_setup.py, fresh_copy.py.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterable
from typing import Any, cast

from smol_core import instrumentation
from smol_core.agent_types import handle_agent_output_types
from smol_core.agents.agent_setup import (
    managed_agents_by_name,
    step_callback_registry,
    tools_by_name,
    with_smolagents_keys,
)
from smol_core.agents.budget import RunBudget
from smol_core.agents.duck_model import as_agent_model
from smol_core.agents.events import ActionOutput
from smol_core.agents.final_answer import (
    answer_at_max_steps,
    ask_for_final_answer,
    final_answer_messages,
    validate_final_answer,
)
from smol_core.agents.fresh_copy import fresh_copy
from smol_core.agents.managed_call import managed_agent_report, managed_agents_section
from smol_core.agents.parsing import split_action
from smol_core.agents.planning import planning_step
from smol_core.agents.prompts import (
    EMPTY_PROMPT_TEMPLATES,
    PromptTemplates,
    merge_templates,
)
from smol_core.agents.run import AgentRun, end_step_span
from smol_core.agents.run_state import AgentRuns, RunAttribute, RunState, current_run
from smol_core.agents.saved_settings import IgnoredSetting
from smol_core.effects import RunExtension
from smol_core.errors import AgentError, AgentGenerationError
from smol_core.loading import load_checkpoint_store
from smol_core.memory import (
    ActionStep,
    AgentMemory,
    FinalAnswerStep,
    MemoryStep,
    PlanningStep,
)
from smol_core.messages import ChatMessage
from smol_core.models.base import Model
from smol_core.models.options import grammar_options
from smol_core.monitoring import AgentLogger, LogLevel, Monitor
from smol_core.plugins.lazy import plugin_attribute
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
        return current_run(self) or self._runs.last

    @property
    def model(self) -> Model:
        """The agent's model. While one of its runs executes with extensions at its door (a durable
        run, a budget, a tape), that run's `RunModel`: the same model, its calls through the door
        (`smol_core.effects`); the model object itself is never copied or changed."""
        run = current_run(self)
        # a RunModel has the model's interface (its calls, and every attribute through the model)
        return cast(Model, run.door.model(self._model)) if run is not None else self._model

    @model.setter
    def model(self, model: Model) -> None:
        self._model = model

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
        budget: RunBudget | None = None,
    ) -> None:
        # where `run(..., run_id=...)` saves each step: a `smol_core.durable.CheckpointStore`, a store
        # plugin's name ("sqlite"), or None: the default SQLite file under the user's data folder
        self.checkpoint_store = (
            load_checkpoint_store(checkpoint_store) if isinstance(checkpoint_store, str) else checkpoint_store
        )
        # what each run may spend (tokens, cost, time, steps); `run(budget=...)` overrides it
        self.budget = budget
        # what joins the door of every run of this agent, besides what each run asks for itself
        # (effects.py); `smol_core.replay.recording(...)` adds its tape here for its block
        self.run_extensions: list[RunExtension] = []
        self._runs = AgentRuns()
        self.model = as_agent_model(model)
        # how long one tool call may take (a tool's own `timeout_seconds` wins); None: no limit
        self.tool_timeout_seconds = tool_timeout_seconds
        # how long all tool calls of one step may take together; None: no limit
        self.tool_budget = StepToolBudget(step_tool_budget_seconds)
        self.prompt_templates: PromptTemplates = merge_templates(
            self.default_prompt_templates(), with_smolagents_keys(prompt_templates)
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
        self._runs.last.memory = AgentMemory(self.system_prompt)

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
        self.managed_agents: dict[str, MultiStepAgent] = managed_agents_by_name(managed_agents)

    def _setup_tools(self, tools: Iterable[Tool | Callable[..., Any]], add_base_tools: bool) -> None:
        self.tools: dict[str, Tool] = tools_by_name(
            tools, add_base_tools, self._wants_python_interpreter_tool(), self.managed_agents, self.name
        )

    def _setup_step_callbacks(
        self, step_callbacks: list[Callable[..., Any]] | dict[type[MemoryStep], Any] | None
    ) -> None:
        self.step_callbacks = step_callback_registry(step_callbacks, self.monitor.update_metrics)

    def _wants_python_interpreter_tool(self) -> bool:
        return True

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
        return managed_agents_section(self.managed_agents)

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
        budget: RunBudget | None = None,
    ) -> Any:
        """Solve `task`. Returns the final answer, a `RunResult` (`return_full_result=True`) or, with
        `stream=True`, a generator of the run's events and steps. Each call is an `AgentRun`
        (`smol_core.agents.run`); the agent's `memory`, `task`, `state`... are views of the current one.

        `run_id`: a durable run, checkpointed after every step (`checkpoint_store`), which
        `resume(run_id)` continues in any process after this one died (docs/durable.md).

        `budget`: what this run may spend (`smol_core.agents.budget`; the agent's `budget` by default). A run
        that reaches it stops before its next step with `BudgetExceededError`, or a `RunResult` whose
        state is "budget_exceeded"; a durable run resumes with a larger one.

        `task=None` (an agent of a team started without a task): wait for messages through the
        agent's `ReceiveMessagesTool` and take what arrives as the task."""
        run = AgentRun.start(self, reset)
        run.stream, run.return_full_result = stream, return_full_result
        run.budget = budget or self.budget
        return run.execute(task, reset, images, additional_args, max_steps or self.max_steps, run_id)

    def resume(
        self,
        run_id: str,
        stream: bool = False,
        max_steps: int | None = None,
        return_full_result: bool | None = None,
        budget: RunBudget | None = None,
    ) -> Any:
        """Continue the durable run `run_id` from its latest checkpoint (in this or another process):
        memory, step counter and sandbox variables restored, checkpointed model replies not asked again.
        Returns what `run()` returns. The agent must be configured as the one that started the run."""
        run = AgentRun.start(self, True)
        run.stream, run.return_full_result = stream, return_full_result
        run.budget = budget or self.budget
        return run.resume(run_id, max_steps)

    def _current_run(self) -> AgentRun | None:
        """The run of this agent executing in this context, if any (for floors below, by duck typing)."""
        return cast("AgentRun | None", current_run(self))

    def _end_run(self, run: RunState) -> None:
        """Hook for subclasses: `run` has ended (once per run, however it ended)."""

    def _prepare_run(self) -> None:
        """Hook for subclasses: send tools and state to an executor before the first step."""

    def _run_stream(
        self, task: str, max_steps: int, images: list[Any] | None = None
    ) -> Generator[StreamEvent]:
        """The run's steps: planning where due, action steps until one gives the final answer or
        `max_steps` are taken (then the last-chance answer), and the final answer's step."""
        door = self._run().door
        self.step_number = door.first_step()
        answered, final_answer = False, None
        while not answered and self.step_number <= max_steps:
            door.step_starting()
            if self.interrupt_switch:
                raise AgentError("Agent interrupted.", self.logger)
            yield from self._plan_if_due(task, max_steps)
            action_step = ActionStep(
                step_number=self.step_number,
                observations_images=images,
                repeat_tool_calls_in_messages=self._repeat_tool_calls,
            )
            answered, final_answer = yield from self._action_step_events(action_step)
            door.step_ended()
            yield action_step
            self.step_number += 1
        if not answered:
            final_answer = self._handle_max_steps_reached(task)
        yield self._final_answer_step(final_answer)

    def _plan_if_due(self, task: str, max_steps: int) -> Generator[StreamEvent]:
        """A planning step at the first step and every `planning_interval` steps after it."""
        interval = self.planning_interval
        if interval is None or (self.step_number != 1 and (self.step_number - 1) % interval != 0):
            return
        # as in smolagents: a run that continues a conversation (reset=False) or memory with steps
        # put in by hand plans with those steps in view, as an update
        first = len(self.memory.steps) == 1
        yield from self._generate_planning_step(
            task, is_first_step=first, step=self.step_number, max_steps=max_steps
        )

    def _action_step_events(self, action_step: ActionStep) -> Generator[StreamEvent, None, tuple[bool, Any]]:
        """One action step under its span: its events, then (whether it gave the final answer, the
        answer). An error of the model's making is the step's observation and the run goes on; any
        other ends the run, with the failed step in memory saying why."""
        self.logger.log_rule(f"Step {self.step_number}", level=LogLevel.INFO)
        self.tool_budget.start_step()
        step_span = instrumentation.span(
            "step", f"step {self.step_number}", {"step.number": self.step_number}
        )
        answered, final_answer = False, None
        try:
            for event in instrumentation.traced_iter(step_span, self._step_stream(action_step), end=False):
                yield event
                if isinstance(event, ActionOutput) and event.is_final_answer:
                    self.logger.log_final_answer(event.output)
                    if self.final_answer_checks:
                        with step_span.activate():
                            self._validate_final_answer(event.output)
                    answered, final_answer = True, event.output
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
            step_span.error(error)
            action_step.error = AgentError(f"{type(error).__name__}: {error}"[:2000])
            raise
        finally:
            if action_step not in self.memory.steps:
                self._finalize_step(action_step)
                self.memory.steps.append(action_step)
            end_step_span(step_span, action_step)
        return answered, final_answer

    def _final_answer_step(self, final_answer: Any) -> FinalAnswerStep:
        """The run's last event. A str, image or audio answer becomes an agent type that displays
        (notebook, UI) and saves."""
        final_step = FinalAnswerStep(output=handle_agent_output_types(final_answer))
        run = self._run()
        run.run_span.set("output", final_step.output)
        run.door.run_finished(final_step.output)
        self.step_callbacks.callback(final_step, agent=self)
        return final_step

    _repeat_tool_calls = True

    def _finalize_step(self, step: ActionStep | PlanningStep | FinalAnswerStep) -> None:
        """End the step's timing, log its summary, run the callbacks registered for its type."""
        if not isinstance(step, FinalAnswerStep):
            step.timing.finish()
        if isinstance(step, ActionStep):
            self.logger.log_step_summary(step, step.step_number)
        self.step_callbacks.callback(step, agent=self)

    def _validate_final_answer(self, final_answer: Any) -> None:
        validate_final_answer(self, final_answer)

    def _handle_max_steps_reached(self, task: str) -> Any:
        return answer_at_max_steps(self, task)

    def _planning_step(self, task: str, is_first_step: bool, max_steps: int) -> Generator[StreamEvent]:
        """A planning step at the current step number (see `_generate_planning_step`)."""
        return self._generate_planning_step(task, is_first_step, self.step_number, max_steps)

    def _generate_planning_step(
        self, task: str, is_first_step: bool, step: int, max_steps: int | None = None
    ) -> Generator[StreamEvent]:
        """Ask the model for a plan (the first) or an updated one, at step `step` of `max_steps`
        (the agent's by default): smolagents' name and arguments, which its users' code calls."""
        max_steps = self.max_steps if max_steps is None else max_steps
        return planning_step(self, task, is_first_step, step, max_steps)

    def _step_stream(self, memory_step: ActionStep) -> Generator[StreamEvent]:
        """Produce and execute one action; yield events, and an `ActionOutput` at the end.

        Not abstract, as in smolagents: a subclass written against older versions overrides `step`
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
        """The run's steps (`agent.memory.steps`), under the name older smolagents versions used."""
        return list(self.memory.steps)

    def get_succinct_logs(self) -> list[dict[str, Any]]:
        """The steps without model inputs (`agent.memory.get_succinct_steps()`), as older smolagents versions named it."""
        return self.memory.get_succinct_steps()

    def write_memory_to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        messages = self.memory.system_prompt.to_messages(summary_mode=summary_mode)
        for step in self.memory.steps:
            messages.extend(step.to_messages(summary_mode=summary_mode))
        return messages

    def _grammar_keywords(self) -> dict[str, Any]:
        return grammar_options(self.grammar)

    def extract_action(self, model_output: str, split_token: str) -> tuple[str, str]:
        """The rationale and the action of a reply written as `<thought><split_token><action>`."""
        return split_action(model_output, split_token, self.logger)

    def provide_final_answer(self, task: str, images: list[Any] | None = None) -> ChatMessage:
        """Ask the model for its best answer from the memory (used when the step budget runs out).

        Returns the model's message, as smolagents 1.26 does (`.content` is the answer); `images`
        (older smolagents took them) are shown to the model with the instructions."""
        return ask_for_final_answer(self, task, images)

    def _final_answer_messages(self, task: str, images: list[Any] | None = None) -> list[ChatMessage]:
        return final_answer_messages(self, task, images)

    def replay(self, detailed: bool = False) -> None:
        self.memory.replay(self.logger, detailed=detailed)

    def visualize(self) -> None:
        self.logger.visualize_agent_tree(self)

    # --- as a managed agent --------------------------------------------------------------------

    def __call__(self, task: str, additional_args: dict[str, Any] | None = None, **kwargs: Any) -> str:
        """Run as a team member: the manager's task in, a report out (`smol_core.agents.managed_call`)."""
        return managed_agent_report(self, task, additional_args, kwargs)

    # --- export -------------------------------------------------------------------------------

    # What the file or dict this agent was loaded from asked for and did not get (security settings
    # come only from code): filled by `from_folder`, `from_dict` and `from_hub`.
    approval_policy: Callable[[str, Any], bool] | None = None  # (tool, arguments) -> ask a person first?
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
        """Save the agent as a Hub repository (needs smol-tool-hub)."""
        return str(
            plugin_attribute("smol_tool_hub", "push_agent_to_hub", "smol-tool-hub")(self, repo_id, **kwargs)
        )

    @classmethod
    def from_hub(
        cls, repo_id: str, token: str | None = None, trust_remote_code: bool = False, **kwargs: Any
    ) -> MultiStepAgent:
        """Load an agent saved on the Hub (needs smol-tool-hub and trust_remote_code=True)."""
        load = plugin_attribute("smol_tool_hub", "agent_from_hub", "smol-tool-hub")
        return cast(MultiStepAgent, load(repo_id, token=token, trust_remote_code=trust_remote_code, **kwargs))

    def fresh_copy(self) -> MultiStepAgent:
        """A copy that shares this agent's configuration (model, tools, prompts, callbacks, logger)
        and none of its state: an empty memory, its own variables and token counts, copies of its
        managed agents and of its tools that keep state (those with a `fresh_copy()`, such as
        `python_interpreter`), and (a `CodeAgent`) a sandbox of its own, made on first use.

        Why: a surface that serves several people (a chat page, a server) gives each their own
        agent, so no one reads another's conversation or the variables another's code left in the
        sandbox. Close the copy (`cleanup()`) when its user is gone (`smol_core.agents.fresh_copy`)."""
        return fresh_copy(self)

    def cleanup(self) -> None:
        """Release resources (executors of this agent and of its managed agents)."""
        for agent in self.managed_agents.values():
            agent.cleanup()

    def __enter__(self) -> MultiStepAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()
