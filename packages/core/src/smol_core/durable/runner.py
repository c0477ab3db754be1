"""Durable runs as an extension of the run's door (`effects.py`).

A run given a `run_id` (or resumed, or a team member's run called by a durable run) has a
`DurableRun` among its extensions: it takes the run's lease, answers the model calls a resumed step
already got (the journal: every reply is saved with the run's last step state as soon as it
arrives), passes every tool and team-member call through the tool ledger (made once across crashes,
approved first where asked), and saves the run's state when each step ends. The loop knows none of
this: it calls the door.

What a checkpoint captures (`durable/checkpoint.py`): the task, the memory steps, the step counter
(planning follows from it and from the memory, as in an uninterrupted run), model replies received
since the last step, what the run spent, a ToolCallingAgent's `additional_args` (its tool calls
name them), and a CodeAgent's sandbox variables, read back through the executor's `namespace`
exchange (typed codec, budgeted decoder: never pickle from the worker). Values the codec cannot
carry (functions, classes, modules, open files, generators...) are listed in the checkpoint, and the
resumed run's first observation names them, so the model defines them again instead of failing on a
NameError it cannot explain.

A team member called by a durable run runs as a durable sub-run of its own (`child`), under the
id `<run id>.<member>.<call>`, in the manager's store, with the manager's approval policy: its calls
are made once and approved as the manager's are, and a crash in the middle of its work resumes it
where it was instead of starting it again.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import smol_core.durable.checkpoint as checkpoint_format
from smol_core.durable.checkpoint import Checkpoint
from smol_core.durable.errors import (
    ApprovalPendingError,
    CheckpointError,
    CheckpointFormatError,
    RunFinishedError,
    RunLockedError,
    RunNotFoundError,
)
from smol_core.durable.sqlite_store import SQLiteStore
from smol_core.durable.steps import step_to_data
from smol_core.durable.store import CheckpointStore, Lease
from smol_core.durable.sub_runs import sub_run_id
from smol_core.durable.tool_ledger import ToolLedger, idempotency_key
from smol_core.durable.tool_state import capture_tool_states, restore_tool_states
from smol_core.effects import ModelCall, RunExtension, RunSpending, ToolEffect
from smol_core.errors import BudgetExceededError
from smol_core.executors.worker.protocol import UnserializableValue, encode
from smol_core.memory import ActionStep, MemoryStep
from smol_core.messages import ChatMessage

_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}")


def store_of(agent: Any) -> CheckpointStore:
    """The agent's `checkpoint_store`, else the default SQLite store."""
    store = getattr(agent, "checkpoint_store", None)
    return store if store is not None else SQLiteStore()


def check_run_id(run_id: Any) -> str:
    if not isinstance(run_id, str) or not _RUN_ID.fullmatch(run_id):
        raise CheckpointError(
            f"run_id {str(run_id)[:60]!r} is not valid: use 1 to 128 letters, digits or ._:@- (not first)"
        )
    return run_id


def read_checkpoint(store: CheckpointStore, run_id: str) -> Checkpoint | None:
    stored = store.load(run_id)
    if stored is None:
        return None
    return checkpoint_format.load(stored.data, f"the checkpoint of run {run_id!r}")


ApprovalPolicy = Callable[[str, Any], bool]


def durable_run(agent: Any, run_id: str, resume: bool) -> DurableRun:
    """The extension `agent.run(..., run_id=...)` (or `agent.resume(run_id)`) joins its run with,
    registered as the `run_id` run extension (durable/plugin.py)."""
    mode = "resume" if resume else "new"
    return DurableRun(store_of(agent), run_id, mode, getattr(agent, "approval_policy", None))


class DurableRun(RunExtension):
    """A run's link to its store: the lease, the last step's state, the journal and the tool ledger.

    Made unopened (`for_new_run`, `for_resume`, `child`); `open` takes the lease and reads or writes
    the first checkpoint as the run starts."""

    def __init__(
        self,
        store: CheckpointStore,
        run_id: str,
        mode: str,
        approval_policy: ApprovalPolicy | None = None,
        manager: DurableRun | None = None,
    ) -> None:
        self.store = store
        self.manager = manager
        """The durable run that called this one, for a team member's sub-run."""
        self.run_id = check_run_id(run_id)
        self.mode = mode
        """"new" (refused if the id is taken), "resume" (refused if it is not), or "sub-run" (a team
        member's: started, or resumed where a first attempt at the call left it)."""
        self.approval_policy = approval_policy
        self.agent: Any = None
        self.run: Any = None
        self.lease: Lease | None = None
        self.state = Checkpoint(run_id=run_id, agent="", task="", step_number=1)
        self.replay: list[ChatMessage] = []
        self._encoded: list[tuple[MemoryStep, dict[str, Any]]] = []  # steps never change once in memory
        self.released = False
        self.went_on = False
        self._namespace: dict[str, Any] | None = None  # the last step's namespace, encoded
        self.paused_member: str | None = None
        """Why the step stopped: a team member's sub-run waits for a person's decision."""
        self.tools = self._ledger()

    pauses_for_approval = True
    """A durable run can wait for a person: its checkpoint outlives the process."""

    def _ledger(self) -> ToolLedger:
        ledger = ToolLedger(
            self.state.tool_ledger,
            lambda: self._save(at_boundary=False),
            approval_policy=self.approval_policy,
            run_id=self.run_id,
        )
        ledger.step = self.state.step_number
        return ledger

    # --- opening ------------------------------------------------------------------------------
    def open(self, run: Any) -> Checkpoint | None:
        """Take the run's lease; the checkpoint to go on from, or None for a new run (saved at its
        first step, `first_step`)."""
        agent = run.agent
        self.agent, self.run = agent, run
        self.approval_policy = either_asks(self.approval_policy, getattr(agent, "approval_policy", None))
        with _leased(self.store, self.run_id) as lease:
            existing = read_checkpoint(self.store, self.run_id)
            if self.mode == "new":
                _refuse_taken(self.run_id, existing)
            elif existing is None and self.mode == "resume":
                raise RunNotFoundError(
                    f"no run {self.run_id!r} in {self.store!r}: `smol runs list` shows the runs there"
                )
            elif existing is not None and existing.status == "finished" and self.mode == "resume":
                raise RunFinishedError(f"run {self.run_id!r} already finished: there is nothing to resume")
            if existing is not None:
                _check_same_agent(self.run_id, existing, agent)
        self.lease = lease
        if existing is None:
            self.state = Checkpoint(
                run_id=self.run_id,
                agent=_agent_label(agent),
                task="",
                step_number=1,
                planning_interval=agent.planning_interval,
            )
        else:
            self.state = existing
            self.went_on = True
            if existing.status != "finished":
                existing.status = "running"
            existing.max_steps = run.max_steps or existing.max_steps or agent.max_steps
            run.spending = _spending(existing)
        self.replay = list(self.state.pending_replies)
        self.state.pending_replies = []
        self.tools = self._ledger()
        return existing

    def child(self, member: str) -> DurableRun | None:
        """The durable sub-run of a team member this run calls: named after the call's idempotency
        key (the same in every attempt at the call), so a call made again after a crash resumes the
        member where it was."""
        key = idempotency_key()
        if key is None:
            return None
        return DurableRun(
            self.store, sub_run_id(self.run_id, member, key), "sub-run", self.approval_policy, self
        )

    # --- the journal --------------------------------------------------------------------------
    def answer_model_call(self, call: ModelCall) -> ChatMessage | None:
        """A reply this step got before the process died: taken instead of asking the model again,
        and journaled again as it is taken, so the journal holds this step's replies once each."""
        if not self.replay:
            return None
        message = self.replay.pop(0)
        self.state.pending_replies.append(message)
        return message

    def after_model_call(self, call: ModelCall, reply: ChatMessage, answered_by: RunExtension | None) -> None:
        if answered_by is not self:
            self.state.pending_replies.append(reply)
            self._save(at_boundary=False)

    # --- the ledger ---------------------------------------------------------------------------
    def tool_call(self, effect: ToolEffect, proceed: Callable[[], Any]) -> Any:
        try:
            return self.tools.call(
                effect.name,
                effect.arguments,
                effect.idempotent or effect.kind == "member",
                proceed,
                effect.requires_approval,
                resumable=effect.kind == "member",
            )
        except ApprovalPendingError as paused:
            if effect.kind == "member" and self.tools.pending is None:
                # the member's own run paused for a person: this run pauses with it, its call to
                # the member still in flight (resumed, not repeated, when this run is)
                self.paused_member = str(paused)
            raise

    async def tool_call_async(self, effect: ToolEffect, proceed: Callable[[], Any]) -> Any:
        return await self.tools.call_async(
            effect.name, effect.arguments, effect.idempotent, proceed, effect.requires_approval
        )

    # --- checkpoints --------------------------------------------------------------------------
    def _encoded_steps(self, steps: list[MemoryStep]) -> list[dict[str, Any]]:
        cached = self._encoded
        keep = 0
        while keep < len(cached) and keep < len(steps) and cached[keep][0] is steps[keep]:
            keep += 1
        del cached[keep:]
        cached.extend((step, step_to_data(step)) for step in steps[keep:])
        return [data for _, data in cached]

    def _save(self, at_boundary: bool = True) -> None:
        """Write the state. At a step boundary the memory is taken as it stands; a model reply's
        journal entry (`at_boundary=False`) keeps the memory of the last boundary, as the steps made
        since (a plan already appended) are made again on resume, from the journaled replies."""
        assert self.lease is not None, "a durable run saves only once opened"
        if at_boundary:
            self.state.steps = list(self.agent.memory.steps)
        # at every save: a tool call's result saved by the ledger goes with the position it moved
        # the tool to (a message handed over is recorded with the message)
        self.state.tool_states = capture_tool_states(self.agent.tools)
        self.state.spending = self.run.spending.to_data()
        steps = self.state.steps
        if self._namespace is None:
            self._namespace = {name: encode(value) for name, value in self.state.namespace.items()}
        data = checkpoint_format.dump(self.state, self._encoded_steps(steps), self._namespace)
        self.store.save(
            self.lease,
            self.state.step_number - 1,
            data,
            status=self.state.status,
            agent=self.state.agent,
            task=self.state.task,
        )

    def _step_done(self, next_step: int) -> None:
        """The step before `next_step` is in memory: save the run's state as it now stands. A step
        that gave the final answer finishes the run in the same write: a run killed right after it
        must not go on to another step when resumed."""
        self.state.step_number = next_step
        self.state.pending_replies = []
        self.state.tool_ledger = self.tools.step_done()
        self.tools.step = next_step
        self.replay = []  # replies saved for the step just done, if it made fewer calls (it diverged)
        last = self.agent.memory.steps[-1] if self.agent.memory.steps else None
        if isinstance(last, ActionStep) and last.is_final_answer:
            self.state.status = "finished"
            self.state.final_answer = last.action_output
        self.state.namespace, self.state.modules, self.state.uncaptured = capture_namespace(self.agent)
        self.state.run_state = capture_run_state(self.agent)
        self._namespace = None
        self._save()

    # --- the run's life -----------------------------------------------------------------------
    def first_step(self, run: Any) -> int:
        """1, or where a resumed run goes on. A new durable run is saved here, its task in memory
        and its `additional_args` in the sandbox, so it can be resumed from the start."""
        if not self.went_on:
            self.state.task = run.task or ""
            self.state.max_steps = getattr(run, "max_steps", None)
            self._step_done(1)
        return self.state.step_number

    def step_ended(self, run: Any) -> None:
        if isinstance(self.tools.halted, BudgetExceededError):
            # a team member spent the budget mid-call: the run stops here, saved as it was when the
            # step began, and the step (its call to the member, resumed where it was) runs again
            self._save(at_boundary=False)
            raise self.tools.halted
        if self.tools.pending is not None or self.paused_member is not None:
            # the step stopped at a call that waits for a person: the run pauses here, saved as it
            # was when the step began (with the step's model reply and calls), and the step runs
            # again on resume
            self.state.status = "awaiting_approval"
            self._save(at_boundary=False)
            message = self.paused_member or self.tools.pending_message()
            if self.paused_member is not None:
                message += f"; then resume run {self.run_id!r} (`smol runs resume {self.run_id}`)"
            raise ApprovalPendingError(message)
        if self.state.task != run.task and run.task:
            self.state.task = run.task  # the task as the run worded it (additional_args, messages)
        self._step_done(run.step_number + 1)

    def run_finished(self, run: Any, output: Any) -> None:
        self.state.status = "finished"
        self.state.final_answer = output
        self.state.pending_replies = []
        self._save()

    def resumed(self, run: Any) -> None:
        restore(run.agent, self.state)

    def run_ended(self, run: Any) -> None:
        if not self.released and self.lease is not None:
            self.released = True
            self._hand_spending_to_manager()
            self.store.release(self.lease)

    def _hand_spending_to_manager(self) -> None:
        """A member's run that finished is its manager's call done: what it spent goes into the
        manager's run, saved with the manager's next checkpoint (the call's result), so a resumed
        manager, which does not open a finished member's run again, still counts it."""
        manager = self.manager.run if self.manager is not None else None
        if manager is not None and self.run is not None and self.state.status == "finished":
            self.run.spending.hand_over(manager.spending)


def either_asks(first: ApprovalPolicy | None, second: ApprovalPolicy | None) -> ApprovalPolicy | None:
    """A policy that asks where either asks: a team member's run keeps its own policy beside the
    one its manager hands down (neither replaces the other)."""
    if first is None or second is None or first == second:
        return first or second

    def asks(tool_name: str, arguments: Any) -> bool:
        return bool(first(tool_name, arguments)) or bool(second(tool_name, arguments))

    return asks


def capture_namespace(agent: Any) -> tuple[dict[str, Any], dict[str, str], list[tuple[str, str]]]:
    """A CodeAgent's sandbox variables: the values, the modules (name -> module), and those that
    could not be captured (name, type)."""
    executor = getattr(agent, "python_executor", None) if hasattr(type(agent), "python_executor") else None
    if executor is None:
        return {}, {}, []  # no sandbox: nothing to capture
    namespace = getattr(executor, "namespace", None)
    if not callable(namespace):  # a user's executor (RemotePythonExecutor) that cannot read its variables
        return {}, {}, [("(all variables)", f"{type(executor).__name__} cannot report them")]
    values: dict[str, Any] = {}
    modules: dict[str, str] = {}
    uncaptured: list[tuple[str, str]] = []
    for name, value in namespace().items():
        if not isinstance(value, UnserializableValue):
            values[name] = value
            continue
        module = (
            _MODULE_REPR.match(value.text) if value.type_name.rsplit(".", 1)[-1] in _MODULE_TYPES else None
        )
        if module is not None and name.isidentifier():
            modules[name] = module.group(1)
        else:
            uncaptured.append((name, value.type_name))
    return values, modules, uncaptured


_MODULE_TYPES = frozenset({"module", "ModuleView"})
_MODULE_REPR = re.compile(r"<module '([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)'")


def _refuse_taken(run_id: str, existing: Checkpoint | None) -> None:
    """`run(task, run_id=...)` starts a new run: an id already used is refused, with what to do."""
    if existing is not None and existing.status == "finished":
        raise RunFinishedError(
            f"run {run_id!r} already finished: choose another run_id, or `smol runs delete {run_id}` first"
        )
    if existing is not None:
        raise CheckpointError(
            f"run {run_id!r} already exists and is not finished: continue it with agent.resume({run_id!r}) "
            f"(`smol runs resume {run_id}`), or `smol runs delete {run_id}` first"
        )


def _check_same_agent(run_id: str, state: Checkpoint, agent: Any) -> None:
    if state.agent.split(" ")[0] != type(agent).__name__:
        raise CheckpointError(
            f"run {run_id!r} was started by a {state.agent.split(' ')[0][:60]}, not a {type(agent).__name__}: "
            "resume it with an agent configured as the one that started it"
        )


@contextlib.contextmanager
def _leased(store: CheckpointStore, run_id: str) -> Iterator[Lease]:
    """The run's lease, taken before its checkpoint is read (read first, a checkpoint could be
    replaced between the read and the lease by the process that still held it) and given back if
    what follows fails."""
    lease = store.acquire(run_id)
    try:
        yield lease
    except BaseException:
        store.release(lease)
        raise


def _spending(state: Checkpoint) -> RunSpending:
    """What the run spent before it was resumed: as saved, or, from a checkpoint that saved none, the
    token counts of its memory's steps (their cost is then unknown)."""
    if state.spending is None:
        usages = [getattr(step, "token_usage", None) for step in state.steps]
        return RunSpending(tokens=sum(usage.total_tokens for usage in usages if usage is not None), cost=None)
    try:
        return RunSpending.from_data(state.spending)
    except ValueError as error:
        raise CheckpointFormatError(f"the checkpoint of run {state.run_id!r} is corrupt ({error})") from None


def _agent_label(agent: Any) -> str:
    return type(agent).__name__ + (f" {agent.name}" if agent.name else "")


def capture_run_state(agent: Any) -> dict[str, Any]:
    """The run's `additional_args` where no sandbox holds them (a ToolCallingAgent substitutes them
    into its tool calls by name): without them a resumed call would differ from its first attempt."""
    if hasattr(type(agent), "python_executor"):
        return {}
    return dict(agent.state)


def mark_stopped(store: CheckpointStore, run_id: str) -> bool:
    """Mark run `run_id` stopped if it is marked running and no live process drives it (a team's
    agent stopped with its team): it can still be resumed, and a list no longer shows it going on.
    False where there was nothing to mark (no such run, finished, waiting for a person)."""
    try:
        lease = store.acquire(run_id)
    except RunLockedError:
        return False  # a live process drives it: it is going on
    try:
        state = read_checkpoint(store, run_id)
        if state is None or state.status != "running":
            return False
        state.status = "stopped"
        stored = store.load(run_id)
        step = stored.step if stored is not None else state.step_number - 1
        store.save(
            lease, step, checkpoint_format.dump(state), status="stopped", agent=state.agent, task=state.task
        )
        return True
    finally:
        store.release(lease)


# --- resume -------------------------------------------------------------------------------------
def restore(agent: Any, state: Checkpoint) -> None:
    """Give a resumed run what the checkpoint holds besides its memory: the sandbox's variables and
    modules (or a ToolCallingAgent's `additional_args`), and the stateful tools' state."""
    if state.run_state:
        agent.state.update(state.run_state)
    restore_namespace(agent, state)
    restore_tools(agent, state)


def restore_tools(agent: Any, state: Checkpoint) -> None:
    """Give the agent's stateful tools back what they held at the checkpoint (`smol_core.durable.tool_state`)."""
    restore_tool_states(agent.tools, state.tool_states, state.run_id)


def restore_namespace(agent: Any, state: Checkpoint) -> None:
    """Put the captured variables into the fresh sandbox, import its modules again (through the
    sandbox's own import checks), and name what is gone in the memory."""
    gone_values = list(state.uncaptured)
    if hasattr(type(agent), "python_executor"):
        if state.namespace:
            agent.python_executor.send_variables(dict(state.namespace))
        for name, module in state.modules.items():
            try:
                agent.python_executor(f"import {module} as {name}")
            except Exception:  # no longer authorized or installed: the model hears of it
                gone_values.append((name, f"module {module}"))
    if not gone_values:
        return
    gone = ", ".join(f"{name} ({kind})" for name, kind in gone_values)
    note = (
        f"Note: this run was resumed from a checkpoint. These variables could not be saved and are no "
        f"longer defined: {gone}. Define them again before using them."
    )
    for step in reversed(agent.memory.steps):
        if isinstance(step, ActionStep):
            step.observations = f"{step.observations}\n{note}" if step.observations else note
            break
    agent.logger.log_error(note)
