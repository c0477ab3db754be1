"""`AgentRun`: one run of an agent, as an object: its state and everything wrapped around its steps.

Why: an agent is configuration (model, tools, prompts, the step strategy) that users build once and
call many times, concurrently too (a managed agent called by two tool calls at once). What one call
to `run()` owns lives here: the `RunState` the agent's `memory`, `task`, `step_number`... are views
of (agents/run_state.py); the binding that makes it the agent's current run while its steps execute;
the span that traces it; its door, through which every effect goes and which its extensions join
(effects.py: a durable run's checkpoints, a budget, a tape); its end, however it ends
(finished, failed, a stream dropped); and its result, streamed or whole. A team hands it its task
(agents/team_membership.py).

The steps themselves come from the agent (`MultiStepAgent._run_stream`): the loop, planning and the
subclass's `_step_stream` are the agent's strategy, which smolagents' users override and call.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from smol_core import instrumentation
from smol_core.agent_types import handle_agent_output_types
from smol_core.agents import team_membership
from smol_core.agents.budget import BudgetExtension, RunBudget
from smol_core.agents.result import RunEnd, RunResult
from smol_core.agents.run_state import RunState, _Binding, bound_to
from smol_core.effects import RunDoor, RunExtension, handed_down
from smol_core.errors import AgentMaxStepsError, BudgetExceededError, SmolError
from smol_core.memory import (
    ActionStep,
    AgentMemory,
    FinalAnswerStep,
    PlanningStep,
    SystemPromptStep,
    TaskStep,
)
from smol_core.messages import Timing, TokenUsage
from smol_core.monitoring import LogLevel

if TYPE_CHECKING:
    from smol_core.agents.multi_step import MultiStepAgent

StreamEvent = Any


@dataclass(eq=False)
class AgentRun(RunState):
    """One run of `agent`: its state (the `RunState` fields) and its life, from `start` to `end`."""

    agent: Any = None
    stream: bool = False
    return_full_result: bool | None = None
    budget: RunBudget | None = None
    max_steps: int | None = None

    # --- beginning -----------------------------------------------------------------------------

    @classmethod
    def start(cls, agent: MultiStepAgent, reset: bool) -> AgentRun:
        """A new run of `agent`. Alone, it continues the last run's memory and variables, as runs
        always did (`reset=False` keeps the steps); beside a run still going (a managed agent called
        twice at once) it gets a memory of its own and a copy of the variables, so neither sees the other."""
        previous = agent._runs.last
        if agent._runs.entering():
            memory = AgentMemory(agent.system_prompt)
            if not reset:
                memory.steps = list(previous.memory.steps)
            run = cls(memory=memory, state=dict(previous.state), agent=agent)
        else:
            run = cls(memory=previous.memory, state=previous.state, agent=agent)
        agent._runs.last = run
        return run

    def execute(
        self,
        task: str | None,
        reset: bool,
        images: list[Any] | None,
        additional_args: dict[str, Any] | None,
        max_steps: int,
        run_id: str | None,
    ) -> Any:
        """Run from the first step: the task (from a team's inbox when None), then the steps."""
        binding = _Binding(self.agent, self)
        try:
            self.max_steps = max_steps
            extension = _run_extension(self.agent, "run_id", run_id, False) if run_id is not None else None
            checkpoint = self._open_door(extension)
            if checkpoint is not None:  # a team member's sub-run that a first attempt at the call began
                return self._go_on(checkpoint)
            instrumentation.discover()
            trace_parent = None
            if task is None:
                task, trace_context = team_membership.task_from_inbox(
                    self.agent.tools.values(), should_stop=lambda: self.interrupt_switch
                )
                trace_parent = instrumentation.extract(trace_context)  # the sender's trace
            self._begin(task, reset, images, additional_args)
            return self.deliver(self.events(self.task or "", max_steps, images, trace_parent))
        except BaseException:
            self.end()  # it failed before its events ran (idempotent if they did)
            raise
        finally:
            binding.close()

    def _open_door(self, asked_for: RunExtension | None) -> Any:
        """The run's door, from what its manager's run hands down, the agent's own extensions, what
        the run asked for (a durable link, from `run_id`) and its budget; opened (which may refuse the
        run). The checkpoint to go on from, where an extension has one."""
        extensions = [*handed_down(), *getattr(self.agent, "run_extensions", ())]
        if asked_for is not None:
            extensions.append(asked_for)
        if self.budget is not None:
            extensions.append(BudgetExtension(self.budget))
        self.door = RunDoor(extensions, self)
        if not any(getattr(extension, "pauses_for_approval", False) for extension in extensions):
            _check_approvals_can_pause(self.agent)
        return self.door.open()

    def _begin(
        self, task: str, reset: bool, images: list[Any] | None, additional_args: dict[str, Any] | None
    ) -> None:
        agent = self.agent
        self.task = task
        if additional_args:
            self.state.update(additional_args)
            self.task += (
                "\nYou have been given these values, available as variables with these names:\n"
                + "\n".join(_describe_argument(key, value) for key, value in additional_args.items())
            )
        self.memory.system_prompt = SystemPromptStep(system_prompt=agent.system_prompt)
        if reset:
            self.memory.reset()
            agent.monitor.reset()
        agent.logger.log_task(
            content=self.task.strip(),
            subtitle=" - ".join(
                filter(None, [type(agent.model).__name__, str(getattr(agent.model, "model_id", None) or "")])
            ),
            title=agent.name,
            level=LogLevel.INFO,
        )
        self.memory.steps.append(TaskStep(task=self.task, task_images=images))
        agent._prepare_run()

    def resume(self, run_id: str, max_steps: int | None) -> Any:
        """Continue the durable run `run_id` from its latest checkpoint (through the `run_id` run
        extension a plugin registers: smol's durable runs)."""
        binding = _Binding(self.agent, self)
        try:
            self.max_steps = max_steps
            checkpoint = self._open_door(_run_extension(self.agent, "run_id", run_id, True))
            return self._go_on(checkpoint)
        except BaseException:
            self.end()
            raise
        finally:
            binding.close()

    def _go_on(self, checkpoint: Any) -> Any:
        """Go on from `checkpoint` (its task, memory and step counter; the door's extensions give back
        the rest), or give its answer where the run had finished."""
        agent = self.agent
        if checkpoint.status == "finished":
            return self.deliver(self._ending(_answer(checkpoint.final_answer)))
        self.state = {}
        self.task = checkpoint.task
        self.memory.system_prompt = SystemPromptStep(system_prompt=agent.system_prompt)
        self.memory.steps = [cast(TaskStep | ActionStep | PlanningStep, step) for step in checkpoint.steps]
        agent.monitor.reset()
        agent.logger.log_task(
            content=f"(resumed at step {checkpoint.step_number}) {checkpoint.task.strip()}",
            subtitle=checkpoint.run_id,
            title=agent.name,
        )
        agent._prepare_run()
        self.door.resumed()
        return self.deliver(self.events(checkpoint.task, checkpoint.max_steps or agent.max_steps, None, None))

    # --- the events ----------------------------------------------------------------------------

    def events(
        self, task: str, max_steps: int, images: list[Any] | None, parent: Any
    ) -> Generator[StreamEvent]:
        """The run's events: bound to this run while each executes, under the run's span when
        something traces (`smol_core.instrumentation`), and ending the run when they end or the
        consumer drops them."""
        agent = self.agent
        name = agent.name or type(agent).__name__
        self.run_span = instrumentation.span(
            "agent",
            name,
            {
                "agent.name": name,
                "agent.id": f"{name}-{id(agent):x}",
                "agent.description": agent.description,
                "agent.class": type(agent).__name__,
                "model.id": getattr(agent.model, "model_id", None),
                "task": task,
            },
            parent=parent,
        )
        steps = instrumentation.traced_iter(self.run_span, agent._run_stream(task, max_steps, images))
        return bound_to(agent, self, self._ending(steps))  # type: ignore[arg-type]

    def _ending(self, events: Generator[StreamEvent]) -> Generator[StreamEvent]:
        try:
            yield from events
        finally:
            self.end()

    def deliver(self, events: Generator[StreamEvent]) -> Any:
        """The run's events as `run()` returns them: streamed, or consumed to the answer or result."""
        if self.stream:
            # a stream dropped before its first event never runs its `finally`: end the run when
            # the generator goes, or the agent's next run would take it for one still going
            weakref.finalize(events, self.end)
            return events
        start = time.time()
        wants_result = self.return_full_result
        wants_result = wants_result if wants_result is not None else self.agent.return_full_result
        final: FinalAnswerStep | None = None
        try:
            for event in events:
                if isinstance(event, FinalAnswerStep):
                    final = event
        except BudgetExceededError:
            if not wants_result:
                raise
            return self.full_result(None, start, state="budget_exceeded")
        assert final is not None
        if wants_result:
            return self.full_result(final.output, start)
        return final.output

    # --- the end -------------------------------------------------------------------------------

    def end(self) -> None:
        """The run is over (idempotent): its extensions close (a durable lease goes back), and the
        agent's hook runs once."""
        try:
            self.door.run_ended()
        finally:
            if self.agent._runs.ending(self):
                self.agent._end_run(self)

    def full_result(self, output: Any, start: float, state: RunEnd | None = None) -> RunResult:
        """Everything about the run: answer, state, steps, token usage, timing, team messages."""
        usage: TokenUsage | None = TokenUsage()
        for step in self.memory.steps:
            if isinstance(step, ActionStep | PlanningStep):
                if step.token_usage is None:
                    usage = None
                    break
                usage = step.token_usage + usage
        last = self.memory.steps[-1] if self.memory.steps else None
        if state is None:
            ran_out = isinstance(getattr(last, "error", None), AgentMaxStepsError)
            state = "max_steps_error" if ran_out else "success"
        result = RunResult(
            output=output,
            state=state,
            steps=self.memory.get_full_steps(),
            token_usage=usage,
            timing=Timing(start_time=start, end_time=time.time()),
        )
        result.team_messages = team_membership.team_messages(self.agent.tools.values())
        return result


def end_step_span(scope: Any, step: ActionStep) -> None:
    """What the step came to, on its span (when something traces), then the span's end."""
    if scope is instrumentation.NO_SPAN:
        return
    if step.token_usage is not None:
        scope.set("usage.input_tokens", step.token_usage.input_tokens)
        scope.set("usage.output_tokens", step.token_usage.output_tokens)
    scope.set("step.final", bool(step.is_final_answer))
    scope.end()


def _run_extension(agent: Any, keyword: str, value: Any, resume: bool) -> RunExtension:
    """The extension a plugin registers for the run keyword `keyword` (`run_id`: a durable run)."""
    from smol_core.errors import PluginNotFoundError
    from smol_core.plugins.registry import get_registry

    try:
        spec = get_registry().run_extension(keyword)
    except PluginNotFoundError:
        from smol_core.install_advice import install_hint
        from smol_core.plugins.lazy import MissingPluginError
        from smol_core.plugins.specs import KNOWN_PROVIDERS

        provider = KNOWN_PROVIDERS["run_extensions"].get(keyword, "smol-core")
        raise MissingPluginError(
            f"run({keyword}=...) needs a package that registers the run extension {keyword!r}, and none "
            f"is installed: {install_hint(provider)}"
        ) from None
    return cast(RunExtension, spec.factory(agent, value, resume))


def _answer(output: Any) -> Generator[StreamEvent]:
    """The events of a run that had already finished: its answer alone."""
    yield FinalAnswerStep(output=handle_agent_output_types(output))


def _check_approvals_can_pause(agent: Any) -> None:
    """A call that needs a person's approval pauses the run until they decide, which only a durable
    run can do (its checkpoint outlives the process): refuse the run before any model call."""
    asking = [name for name, tool in agent.tools.items() if getattr(tool, "requires_approval", False)]
    if asking or agent.approval_policy is not None:
        what = f"the tools {', '.join(asking)} need" if asking else "the agent's approval_policy asks for"
        raise SmolError(
            f"{what} a person's approval before a call, which pauses the run until they decide: give "
            "run() a run_id (a durable run, resumed after `smol runs approve|deny`)"
        )


_ARGUMENT_PREVIEW_CHARS = 200


def _describe_argument(key: str, value: Any) -> str:
    """One line of the task for a value handed over in `additional_args`.

    smolagents shows the values themselves, so a short instruction or URL reaches the model; a long
    value is cut (it stays whole in the variable), and one whose repr fails shows its type only.
    """
    try:
        preview = repr(value)
    except Exception:
        return f"- {key}: {type(value).__name__}"
    if len(preview) > _ARGUMENT_PREVIEW_CHARS:
        preview = preview[:_ARGUMENT_PREVIEW_CHARS] + "..."
    return f"- {key}: {type(value).__name__} = {preview}"
