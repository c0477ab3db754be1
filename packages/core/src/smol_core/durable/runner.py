"""How a run becomes durable: the few calls the agent loop makes, and `resume`.

The run (agents/run.py) calls `start` when `run(..., run_id=...)` begins and `end` when it stops for
any reason; the loop (agents/multi_step.py) calls `first_step` for its step counter, `after_step`
when a step is in memory and `finished` with the final answer; each is a no-op for a run without
`run_id`. `attach_resumed` links a resumed run to its latest checkpoint, from which the run rebuilds
its memory (and `restore_namespace` its sandbox) and drives the same loop from the next step. This
floor sits below the agent loop: it reaches the agent and its run through their attributes only.

What a checkpoint captures (`durable/checkpoint.py`): the task, the memory steps, the step counter
(planning follows from it and from the memory, as in an uninterrupted run), model replies received
since the last step (`durable/journal.py`), and a CodeAgent's sandbox variables, read back through
the executor's `namespace` exchange (typed codec, budgeted decoder: never pickle from the worker).
Values the codec cannot carry (functions, classes, modules, open files, generators...) are listed in
the checkpoint, and the resumed run's first observation names them, so the model defines them again
instead of failing on a NameError it cannot explain.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import smol_core.durable.checkpoint as checkpoint_format
import smol_core.durable.journal as journal
from smol_core.durable.checkpoint import Checkpoint
from smol_core.durable.errors import ApprovalPendingError, CheckpointError, RunFinishedError, RunNotFoundError
from smol_core.durable.sqlite_store import SQLiteStore
from smol_core.durable.steps import step_to_data
from smol_core.durable.store import CheckpointStore, Lease
from smol_core.durable.tool_ledger import ToolLedger
from smol_core.durable.tool_state import capture_tool_states, restore_tool_states
from smol_core.executors.worker.protocol import UnserializableValue, encode
from smol_core.memory import ActionStep, FinalAnswerStep, MemoryStep
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


class DurableRun:
    """A run's link to its store: the lease, the last step's state and the model-reply journal."""

    def __init__(self, agent: Any, store: CheckpointStore, lease: Lease, state: Checkpoint) -> None:
        self.agent = agent
        self.store = store
        self.lease = lease
        self.state = state
        # replies a resumed run takes instead of calling the model; each goes back into the journal
        # as it is taken, so the journal always holds this step's replies once each, in order
        self.replay = list(state.pending_replies)
        state.pending_replies = []
        self._encoded: list[tuple[MemoryStep, dict[str, Any]]] = []  # steps never change once in memory
        self.released = False
        self.resumed = bool(state.steps)
        self._namespace: dict[str, Any] | None = None  # the last step's namespace, encoded
        # the current step's tool calls, saved as each starts and ends (durable/tool_ledger.py)
        self.tools = ToolLedger(
            state.tool_ledger,
            lambda: self._save(at_boundary=False),
            approval_policy=getattr(agent, "approval_policy", None),
            run_id=state.run_id,
        )
        self.tools.step = state.step_number

    # --- the journal (durable/journal.py) -----------------------------------------------------
    def replay_next(self) -> ChatMessage | None:
        if not self.replay:
            return None
        message = self.replay.pop(0)
        self.state.pending_replies.append(message)
        return message

    def record(self, message: ChatMessage) -> None:
        self.state.pending_replies.append(message)
        self._save(at_boundary=False)

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
        if at_boundary:
            self.state.steps = list(self.agent.memory.steps)
        # at every save: a tool call's result saved by the ledger goes with the position it moved
        # the tool to (a message handed over is recorded with the message)
        self.state.tool_states = capture_tool_states(self.agent.tools)
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

    def step_done(self, next_step: int) -> None:
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
        self._namespace = None
        self._save()

    def finish(self, output: Any) -> None:
        self.state.status = "finished"
        self.state.final_answer = output
        self.state.pending_replies = []
        self._save()

    def release(self) -> None:
        if not self.released:
            self.released = True
            journal.uninstall(self.agent)
            self.store.release(self.lease)


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


# --- the loop's hooks (agents/multi_step.py) ----------------------------------------------------
def start(agent: Any, run: Any, run_id: str, max_steps: int, task: str | None) -> None:
    """`run(task, run_id=...)`: a new durable run; refused if the id is taken."""
    store = store_of(agent)
    check_run_id(run_id)
    with _leased(store, run_id) as lease:
        existing = store.load(run_id)
        if existing is not None and existing.status == "finished":
            raise RunFinishedError(
                f"run {run_id!r} already finished: choose another run_id, or `smol runs delete {run_id}` first"
            )
        if existing is not None:
            raise CheckpointError(
                f"run {run_id!r} already exists and is not finished: continue it with agent.resume({run_id!r}) "
                f"(`smol runs resume {run_id}`), or `smol runs delete {run_id}` first"
            )
    state = Checkpoint(
        run_id=run_id,
        agent=_agent_label(agent),
        task=task or "",
        step_number=1,
        max_steps=max_steps,
        planning_interval=agent.planning_interval,
    )
    _attach(agent, run, DurableRun(agent, store, lease, state))


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


def _attach(agent: Any, run: Any, durable: DurableRun) -> None:
    run.durable = durable
    journal.install(agent)


def first_step(agent: Any, run: Any) -> int:
    """The loop's first step: 1, or where a resumed run goes on. A new durable run is saved here,
    its task in memory and its `additional_args` in the sandbox, so it can be resumed from the start."""
    durable: DurableRun | None = getattr(run, "durable", None)
    if durable is None:
        return 1
    if not durable.resumed:
        durable.state.task = agent.task or ""
        durable.step_done(1)
    return durable.state.step_number


def after_step(agent: Any, run: Any) -> None:
    durable: DurableRun | None = getattr(run, "durable", None)
    if durable is not None and durable.tools.pending is not None:
        # the step stopped at a call that waits for a person: the run pauses here, saved as it was
        # when the step began (with the step's model reply and calls), and the step runs again on resume
        durable.state.status = "awaiting_approval"
        durable._save(at_boundary=False)
        raise ApprovalPendingError(durable.tools.pending_message())
    if durable is not None:
        if durable.state.task != agent.task and agent.task:
            durable.state.task = agent.task  # the task as the run worded it (additional_args, messages)
        durable.step_done(agent.step_number + 1)


def finished(run: Any, final_step: FinalAnswerStep) -> None:
    durable: DurableRun | None = getattr(run, "durable", None)
    if durable is not None:
        durable.finish(final_step.output)


def end(run: Any) -> None:
    durable: DurableRun | None = getattr(run, "durable", None)
    if durable is not None:
        durable.release()


def tool_ledger(run: Any) -> ToolLedger | None:
    """The ledger a durable run's tool calls go through (durable/tool_ledger.py); None otherwise."""
    durable: DurableRun | None = getattr(run, "durable", None)
    return durable.tools if durable is not None else None


def _agent_label(agent: Any) -> str:
    return type(agent).__name__ + (f" {agent.name}" if agent.name else "")


# --- resume -------------------------------------------------------------------------------------
def attach_resumed(agent: Any, run: Any, run_id: str, max_steps: int | None) -> Checkpoint:
    """`agent.resume(run_id)`: the checkpoint the run goes on from, its lease taken and the run
    linked to the store (see the module docstring); the run (agents/run.py) restores the rest."""
    store = store_of(agent)
    check_run_id(run_id)
    with _leased(store, run_id) as lease:
        state = read_checkpoint(store, run_id)
        if state is None:
            raise RunNotFoundError(f"no run {run_id!r} in {store!r}: `smol runs list` shows the runs there")
        if state.status == "finished":
            raise RunFinishedError(f"run {run_id!r} already finished: there is nothing to resume")
        state.status = "running"
        if state.agent.split(" ")[0] != type(agent).__name__:
            raise CheckpointError(
                f"run {run_id!r} was started by a {state.agent.split(' ')[0][:60]}, not a {type(agent).__name__}: "
                "resume it with an agent configured as the one that started it"
            )
    state.max_steps = max_steps or state.max_steps or agent.max_steps
    _attach(agent, run, DurableRun(agent, store, lease, state))
    return state


def restore_tools(agent: Any, state: Checkpoint) -> None:
    """Give the agent's stateful tools back what they held at the checkpoint (durable/tool_state.py)."""
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
