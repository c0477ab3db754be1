"""`run_agents` and `Team`: start N agents as processes, give agent 0 the task, stop them all after.

The processes are local children of the host, unless the transport's plugin launches them elsewhere
(`TransportSpec.launcher`: the `ray` transport starts them on its cluster); the rules below hold
either way.

A team run with a `run_id` is durable: each agent's run is checkpointed after every step (as
`agent.run(run_id=...)` is, under `RUN_ID.agent-N`), and an agent whose process dies without
reporting (killed, out of memory, a crash in a native library) is started again, at most
`max_restarts` times, and resumes from its last step: its memory, its sandbox variables, the tool
calls already made, and where it was in its inbox (which messages it was handed and had not yet
acknowledged: `smol_core.durable.tool_state`). Its peers see nothing: its inbox outlives the process, so what
they send meanwhile waits for the new one.

The host owns the shutdown (DESIGN: "no process outlives the run"): the run ends when agent 0
answers, when every agent has ended, when all of them wait for messages that no one is sending
(idle), or when the deadline passes; then each agent process is sent
SIGTERM, given a moment, and killed if still there. An agent's own sandbox worker dies with it (the
local executor's worker is tied to its parent's life by the kernel).

What agents report back is bounded JSON text, checked here before use: an agent's process runs a
model's plans and is not trusted to report well-formed data.
"""

from __future__ import annotations

import functools
import json
import queue as queue_module
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from smol_core import instrumentation
from smol_core.durable.store import Lease
from smol_core.janitor import private_folder
from smol_core.messages import Timing
from smol_core.teams.errors import MessagingError
from smol_core.teams.host_record import HostRecord, record_for, save_host_record, take_over
from smol_core.teams.identity import for_agent, issue_keys
from smol_core.teams.launcher import AgentLauncher, AgentProcess, LocalLauncher
from smol_core.teams.settings import AgentSettings, modules_of_models
from smol_core.teams.start_method import DEFAULT_START_METHOD, StartMethod, agent_context, start_fork_server
from smol_core.teams.status import Activity, PeerStatus
from smol_core.teams.worker import MAX_RESULT_BYTES, agent_main, traced_agent_main

TeamState = Literal["success", "max_steps_error", "budget_exceeded", "error", "deadline", "idle", "no_answer"]
STOP_GRACE_SECONDS = 2.0
DEFAULT_MAX_RESTARTS = 3
"""How many times a durable team starts one agent again after its process died without reporting."""
IDLE_CHECKS = 5
"""How many checks in a row (0.2 s apart) must find every agent waiting and nothing in flight before
the team is called idle and stopped: one look could fall between a message's send and its receipt."""
LOCAL_TRANSPORTS = ("local", "multiprocessing")
_AGENT_STATES = ("success", "max_steps_error", "budget_exceeded", "error")
_REPORTED_STATES = (*_AGENT_STATES, "stopped")


@dataclass
class AgentOutcome:
    """How one agent's process ended, from its own report (if it sent one) and its exit code."""

    agent_id: int
    state: str = "stopped"
    output: str | None = None
    error: str | None = None
    steps: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)
    exitcode: int | None = None
    reported: bool = False
    restarts: int = 0
    """How many times the agent's process died and was started again to resume its run (durable teams)."""


@dataclass
class TeamResult:
    """The team's answer (agent 0's), how the run ended, and what every agent did and said."""

    output: str | None
    state: TeamState
    agents: dict[int, AgentOutcome]
    messages: list[dict[str, Any]]
    """Every message sent or received by any agent, in time order: direction, id, sender, recipient,
    timestamp, message."""
    timing: Timing = field(default_factory=Timing)
    run_id: str | None = None
    """The durable team run's id (its agents' runs are `RUN_ID.agent-N`), or None."""


def agent_run_id(run_id: str, agent_id: int) -> str:
    """The durable run of agent `agent_id` in the team run `run_id`."""
    return f"{run_id}.agent-{agent_id}"


class Team:
    """N agents, each in its own process, that talk through a transport plugin's queues.

    `settings`: one `AgentSettings` for every agent, or one per agent. `transport`: a transport
    plugin's name (`local`, `redis`, ...), built with `transport_kwargs` and `num_agents`.
    `deadline_seconds`: the whole run's time budget (None: until agent 0 answers or all end).
    `context`: how local agents start, `forkserver` (forked from a warm server; `spawn` where the
    platform has none) or `spawn` (`start_method.py`). `max_restarts`: in a durable run
    (`run(task, run_id=...)`), how many times each agent's process is started again after it died.
    """

    def __init__(
        self,
        settings: AgentSettings | Sequence[AgentSettings],
        num_agents: int | None = None,
        transport: str = "local",
        transport_kwargs: Mapping[str, Any] | None = None,
        deadline_seconds: float | None = 600.0,
        context: StartMethod = DEFAULT_START_METHOD,
        max_restarts: int = DEFAULT_MAX_RESTARTS,
    ) -> None:
        if max_restarts < 0:
            raise ValueError(f"max_restarts must be 0 or more, got {max_restarts}")
        self.max_restarts = max_restarts
        if isinstance(settings, AgentSettings):
            count = 1 if num_agents is None else num_agents
            self.settings = [settings] * count
        else:
            self.settings = list(settings)
            if num_agents is not None and num_agents != len(self.settings):
                raise ValueError(f"num_agents={num_agents} but {len(self.settings)} settings were given")
        if not self.settings:
            raise ValueError("a team needs at least one agent")
        self.num_agents = len(self.settings)
        self.transport_name = transport
        self.transport_kwargs = dict(transport_kwargs or {})
        self.deadline_seconds = deadline_seconds
        self.context: Any = agent_context(context)
        self.processes: list[AgentProcess] = []
        self._launch: Callable[[int, bool], AgentProcess] | None = None
        self._host_lease: Lease | None = None
        """A durable team's host holds its record's lease while it drives the team."""
        self._unsettled: Callable[[Sequence[int]], int] | None = None
        """The transport's own count of what waits in some agents' inboxes, where it keeps one."""
        self._restarts: dict[int, int] = {}
        self.run_id: str | None = None
        self.preload: tuple[str, ...] = ()
        """What the transport's agents import to use it (its spec's `preload`), for the fork server."""

    def _make_transport(
        self, folder: str, taking_over: HostRecord | None = None
    ) -> tuple[Any, AgentLauncher]:
        """The transport, and the launcher of the agents: its plugin's, if it has one, or local
        processes. A local transport makes its inboxes in the team's `folder`; one `taking_over` a
        team whose host died joins its queues with its keys."""
        local = LocalLauncher(self.context)
        if self.transport_name in LOCAL_TRANSPORTS:
            from smol_core.teams.local import LocalTransport

            made = LocalTransport(
                num_agents=self.num_agents,
                context=self.context.get_start_method(),
                folder=folder,
                journal=self.run_id is not None,  # an agent started again is handed what it had taken
                **self.transport_kwargs,
            )
            return made, local
        from smol_core.loading import load_transport
        from smol_core.plugins.registry import get_registry

        joined = taking_over.joining() if taking_over is not None else {}
        made = load_transport(
            self.transport_name, num_agents=self.num_agents, **{**self.transport_kwargs, **joined}
        )
        spec = get_registry().transport(self.transport_name)
        self.preload = tuple(spec.preload)
        make_launcher = spec.launcher
        launcher = make_launcher(made) if make_launcher is not None else None
        if launcher is None:
            return made, local
        if not isinstance(launcher, AgentLauncher):
            raise TypeError(f"the {self.transport_name!r} transport's launcher is not an AgentLauncher")
        return made, launcher

    def run(self, task: str, run_id: str | None = None) -> TeamResult:
        """Start every agent, agent 0 with `task` and the others with none, and wait for the answer.

        `run_id`: a durable team run (see the module docstring); refused before any agent starts if
        one of its agents' runs exists already in that agent's store."""
        if run_id is not None:
            self._check_new_run(run_id)
        return self._run(task, run_id, None)

    def resume(self, run_id: str) -> TeamResult:
        """Take over durable team run `run_id` after its host died, from this host (or another that
        reaches the same store and transport), and wait for its answer.

        The team must be built as it was started (the same number of agents, settings and transport
        with its settings); its record (`smol_core.teams.host_record`) gives the task, the transport's name for
        the team and its keys. Every agent is started to resume its run where it stopped (one that
        had finished reports its saved answer) and reads its inbox from where it was. A team that
        finished, or whose queues died with its host (local inboxes), is refused in one line."""
        from smol_core.durable.runner import check_run_id

        store = settings_store(self.settings[0])
        lease = store.acquire(check_run_id(run_id))  # refused while a live host drives the team
        try:
            record = take_over(store, run_id, self.num_agents, self.transport_name)
        except BaseException:
            store.release(lease)
            raise
        return self._run(record.task, run_id, record, lease)

    def _run(
        self, task: str, run_id: str | None, taking_over: HostRecord | None, lease: Lease | None = None
    ) -> TeamResult:
        """The team's run; a durable one's host holds its record's `lease` until the run ends."""
        self._host_lease = lease
        try:
            return self._drive(task, run_id, taking_over)
        finally:
            if self._host_lease is not None:
                settings_store(self.settings[0]).release(self._host_lease)
                self._host_lease = None

    def _drive(self, task: str, run_id: str | None, taking_over: HostRecord | None) -> TeamResult:
        self.run_id = run_id
        self._restarts = {}
        start = time.time()
        _start_resource_tracker()
        outcomes = {agent_id: AgentOutcome(agent_id) for agent_id in range(self.num_agents)}
        # every agent's scratch folders live here too (scratch.keep_scratch_in), and a local team's
        # inboxes: one removal, and one janitor (the host's) for the team
        with private_folder("smol-team-") as folder:
            transport, launcher, status = self._open(folder, taking_over)
            record = None if run_id is None else self._save_host_record(run_id, task, transport)
            # Each agent writes its report to a file (atomically) and then puts only its id on
            # `done`: a notice that small is written to the pipe in one piece, so a process killed
            # at any moment never leaves the host reading half a message.
            done = self.context.Queue()
            reports = [Path(folder) / f"agent-{agent_id}.json" for agent_id in range(self.num_agents)]
            self._launch = self._launcher(task, run_id, transport, launcher, done, reports)
            self._unsettled = getattr(transport, "unsettled", None)
            resuming = taking_over is not None
            self.processes = [self._launch(agent_id, resuming) for agent_id in range(self.num_agents)]
            try:
                for process in self.processes:
                    process.start()
                ended_by = self._wait(done, reports, outcomes, status)
            finally:
                self._close(run_id, transport, launcher, status, done)
            self._collect(reports, outcomes)  # what the stopped agents reported on their way out
        result = self._result(outcomes, ended_by, start, run_id)
        if record is not None:
            self._end_host_record(record, result.state)
        return result

    def _open(self, folder: str, taking_over: HostRecord | None) -> tuple[Any, AgentLauncher, PeerStatus]:
        """The team's transport (its keys issued; the dead host's queues when `taking_over`), where
        its agents run, and their shared status."""
        transport, launcher = self._make_transport(folder, taking_over)
        if isinstance(launcher, LocalLauncher):
            start_fork_server(self.context, self.preload, modules_of_models(self.settings))
        issue_keys(transport)
        status = launcher.peer_status(self.num_agents)
        if hasattr(transport, "status"):
            transport.status = status
        return transport, launcher, status

    def _launcher(
        self,
        task: str,
        run_id: str | None,
        transport: Any,
        launcher: AgentLauncher,
        done: Any,
        reports: list[Path],
    ) -> Callable[[int, bool], AgentProcess]:
        """What starts agent `agent_id` (again, to resume its durable run, when `resume`)."""
        target = _agent_target()

        def launch(agent_id: int, resume: bool) -> AgentProcess:
            return launcher.process(
                target,
                (
                    agent_id,
                    task if agent_id == 0 else None,
                    self.settings[agent_id],
                    # each agent holds only its own keys: it can sign as itself and no one else
                    for_agent(transport, agent_id),
                    done,
                    str(reports[agent_id]),
                    None if run_id is None else agent_run_id(run_id, agent_id),
                    resume,
                ),
                f"smol-agent-{agent_id}",
            )

        return launch

    def _close(
        self, run_id: str | None, transport: Any, launcher: AgentLauncher, status: PeerStatus, done: Any
    ) -> None:
        """Every agent stopped, their durable runs' leases given back, the transport closed."""
        self._launch = self._unsettled = None
        self._stop_all(status)
        if run_id is not None:
            self._end_agent_runs(run_id)
        launcher.close()
        done.close()
        done.cancel_join_thread()
        close = getattr(transport, "close", None)
        if close is not None:
            close()

    def _result(
        self, outcomes: dict[int, AgentOutcome], ended_by: TeamState, start: float, run_id: str | None
    ) -> TeamResult:
        for agent_id, process in enumerate(self.processes):
            outcomes[agent_id].exitcode = process.exitcode
            outcomes[agent_id].restarts = self._restarts.get(agent_id, 0)
        first = outcomes[0]
        state: TeamState = ended_by
        if ended_by == "success":
            state = first.state if first.state in _AGENT_STATES else "error"  # type: ignore[assignment]
        return TeamResult(
            output=first.output,
            state=state,
            agents=outcomes,
            messages=_merge_messages(outcomes.values()),
            timing=Timing(start_time=start, end_time=time.time()),
            run_id=run_id,
        )

    def _check_new_run(self, run_id: str) -> None:
        """A new durable team run: its agents' run ids are valid and none is taken in its store, nor
        the team's own record."""
        from smol_core.durable.errors import CheckpointError
        from smol_core.durable.runner import check_run_id

        if settings_store(self.settings[0]).load(check_run_id(run_id)) is not None:
            raise CheckpointError(
                f"the team run {run_id!r} exists already: resume it with Team.resume({run_id!r}), or "
                f"choose another run_id, or `smol runs delete {run_id}` and its agents' runs first"
            )
        for agent_id, settings in enumerate(self.settings):
            each = check_run_id(agent_run_id(check_run_id(run_id), agent_id))
            if settings_store(settings).load(each) is not None:
                raise CheckpointError(
                    f"the team run {run_id!r} exists already (its agent {agent_id}'s run {each!r} is in "
                    f"the store): choose another run_id, or `smol runs delete {each}` for each agent first"
                )

    def _wait(
        self, done: Any, reports: list[Path], outcomes: dict[int, AgentOutcome], status: PeerStatus
    ) -> TeamState:
        deadline = None if self.deadline_seconds is None else time.monotonic() + self.deadline_seconds
        idle: list[Activity] = []
        while True:
            if deadline is not None and time.monotonic() >= deadline:
                return "deadline"
            try:
                notice = done.get(timeout=0.2)
            except queue_module.Empty:
                self._notice_exits(status, reports, outcomes)
                if outcomes[0].reported:  # it reported, and died before its notice went out
                    status.mark(0, "finished")
                    return "success"
                if not any(process.is_alive() for process in self.processes):
                    self._collect(reports, outcomes)
                    return "success" if outcomes[0].state in _AGENT_STATES else "no_answer"
                idle = _still_idle(idle, status.activity(), self._unsettled)
                if len(idle) >= IDLE_CHECKS:
                    return "idle"
                continue
            idle = []
            if type(notice) is not int or not 0 <= notice < self.num_agents:
                continue
            self._collect(reports[notice : notice + 1], outcomes, first_id=notice)
            status.mark(notice, "finished")
            if notice == 0 and outcomes[0].reported:
                return "success"

    def _collect(self, reports: list[Path], outcomes: dict[int, AgentOutcome], first_id: int = 0) -> None:
        """Read the reports not read yet (bounded: a report over the limit is not read at all)."""
        for offset, path in enumerate(reports):
            agent_id = first_id + offset
            if outcomes[agent_id].reported:
                continue
            try:
                with path.open("rb") as handle:
                    raw = handle.read(MAX_RESULT_BYTES + 1)
            except OSError:
                continue
            report = parse_report(raw.decode("utf-8", "replace"), self.num_agents)
            if report is not None and report.agent_id == agent_id:
                outcomes[agent_id] = report

    def _notice_exits(
        self, status: PeerStatus, reports: list[Path], outcomes: dict[int, AgentOutcome]
    ) -> None:
        """An agent whose process ended without a report (killed or crashed, even after it said it
        had finished: its report may not have been written): started again to resume its run in a
        durable team, while it has restarts left; else marked dead, so that its peers' messages to
        it fail with a clear error. One that reported on its way out is left to its notice."""
        for agent_id, process in enumerate(self.processes):
            if process.exitcode is None or outcomes[agent_id].reported or status.get(agent_id) == "dead":
                continue
            self._collect(reports[agent_id : agent_id + 1], outcomes, first_id=agent_id)
            if outcomes[agent_id].reported:
                continue
            restarts = self._restarts.get(agent_id, 0)
            launch = self._launch
            how = _how_it_ended(process.exitcode)
            if self.run_id is None or launch is None or restarts >= self.max_restarts:
                status.mark(agent_id, "dead")
                left = " (no restarts left)" if self.run_id is not None else ""
                _say(f"agent {agent_id} died ({how}){left}: its peers' messages to it now fail")
                continue
            self._restarts[agent_id] = restarts + 1
            _say(
                f"agent {agent_id} died ({how}); started again to resume its run "
                f"(restart {restarts + 1} of {self.max_restarts})"
            )
            status.mark(agent_id, "running")  # it may have died in a receive, or after its run
            replacement = launch(agent_id, True)
            replacement.start()
            self.processes[agent_id] = replacement

    def _save_host_record(self, run_id: str, task: str, transport: Any) -> HostRecord:
        """Save the team's record before any agent starts: a host killed from then on can be
        replaced (`resume`). A store that refuses it ends the run before it began, the transport
        closed (a launcher's ACL users removed)."""
        record = record_for(run_id, task, self.num_agents, self.transport_name, transport)
        store = settings_store(self.settings[0])
        try:
            if self._host_lease is None:
                self._host_lease = store.acquire(run_id)
            save_host_record(store, self._host_lease, record)
        except BaseException:
            close = getattr(transport, "close", None)
            if close is not None:
                close()
            raise
        return record

    def _end_host_record(self, record: HostRecord, state: TeamState) -> None:
        """The team's record after the run: finished once agent 0 answered (its key dropped), else
        stopped, and resumable."""
        status = "finished" if state in _AGENT_STATES else "stopped"
        try:
            if self._host_lease is None:
                raise RuntimeError("the host holds no lease on it")
            save_host_record(settings_store(self.settings[0]), self._host_lease, record, status)
        except Exception as error:  # the answer stands; the record says running, and why is said
            _say(f"the team's record could not be marked {status}: {error}")

    def _end_agent_runs(self, run_id: str) -> None:
        """The team is over: an agent's durable run still marked running (stopped with the team, or
        dead with no restarts left) is marked stopped, so `smol runs list` does not show it going on."""
        from smol_core.durable.runner import mark_stopped

        for agent_id, settings in enumerate(self.settings):
            try:
                mark_stopped(settings_store(settings), agent_run_id(run_id, agent_id))
            except Exception as error:  # the answer stands; the record says running, and why not is said
                _say(f"agent {agent_id}'s run could not be marked stopped: {error}")

    def _stop_all(self, status: PeerStatus) -> None:
        """SIGTERM to every agent still running, a grace period, then SIGKILL: none is left behind."""
        for agent_id, process in enumerate(self.processes):
            if process.pid is not None and process.is_alive():
                status.mark(agent_id, "finished")
                process.terminate()
        grace_end = time.monotonic() + STOP_GRACE_SECONDS
        for process in self.processes:
            if process.pid is not None:
                process.join(max(0.0, grace_end - time.monotonic()))
        for process in self.processes:
            if process.pid is not None and process.is_alive():
                process.kill()
                process.join()


def _how_it_ended(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit status {exitcode}"


def _say(line: str) -> None:
    """A line of the team's own, among its agents' prefixed lines on stderr."""
    print(f"[team] {line}", file=sys.stderr, flush=True)


def settings_store(settings: AgentSettings) -> Any:
    """The checkpoint store an agent built from `settings` saves its durable runs in."""
    from smol_core.durable.sqlite_store import SQLiteStore
    from smol_core.loading import load_checkpoint_store

    store = settings.checkpoint_store
    if isinstance(store, str):
        return load_checkpoint_store(store)
    return store if store is not None else SQLiteStore()


def _agent_target() -> Callable[..., None]:
    """What each agent process runs: `agent_main`, after taking the host's tracing settings when
    something traces here (`instrumentation.child_environment`); a module-level function and a
    `partial` of one, so that it pickles to any launcher's process."""
    environment = instrumentation.child_environment()
    if not environment:
        return agent_main
    return functools.partial(traced_agent_main, environment)


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (it unlinks the queues' semaphores of a host killed
    outright) so that a closed terminal does not end it, and quietly.

    It ignores SIGINT and SIGTERM already, but SIGHUP, sent to the whole group when the terminal
    closes, killed it mid-run: a new one then knew nothing of the team's semaphores and printed a
    traceback for each. Started with SIGHUP ignored, it keeps running until the last process of the
    team has ended. Its clean-up of a killed host is what it is for, so its warning about it
    ("leaked semaphore objects") is switched off for it alone."""
    from multiprocessing import resource_tracker

    quiet = "ignore:resource_tracker:UserWarning"
    added = quiet not in sys.warnoptions
    if added:
        sys.warnoptions.append(quiet)  # the tracker's interpreter is started with the host's -W options
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN) if in_main else None
    try:
        resource_tracker.ensure_running()
    finally:
        if previous is not None:
            signal.signal(signal.SIGHUP, previous)
        if added:
            sys.warnoptions.remove(quiet)


def _still_idle(
    history: list[Activity], now: Activity, unsettled: Callable[[Sequence[int]], int] | None = None
) -> list[Activity]:
    """The run of checks that found the team idle, this one included; empty when it is not idle.

    Idle: every agent still there waits in a receive, nothing sent is untaken, and nothing moved
    since the last check."""
    if not now.all_waiting or not _nothing_in_flight(now, unsettled):
        return []
    if history and history[-1] != now:
        return [now]
    return [*history, now]


def _nothing_in_flight(now: Activity, unsettled: Callable[[Sequence[int]], int] | None) -> bool:
    """No message waits for a live agent. Where the transport counts what waits in its inboxes
    (`unsettled`: Redis, whose entries stay until their reader acknowledges them), its count decides:
    the host's own counts of messages sent and taken start over with a new host, and count again
    what an agent restarted mid-call sends or takes again. Otherwise those counts must be equal."""
    if unsettled is None:
        return now.sent == now.taken
    try:
        return unsettled(now.live) == 0
    except MessagingError:  # the transport cannot say: not idle (the deadline still ends the team)
        return False


def parse_report(raw: Any, num_agents: int) -> AgentOutcome | None:
    """An agent's report, checked: None for anything that is not one (it is dropped, not trusted)."""
    if not isinstance(raw, str) or len(raw) > MAX_RESULT_BYTES:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    agent_id, state = data.get("agent_id"), data.get("state")
    if type(agent_id) is not int or not 0 <= agent_id < num_agents or state not in _REPORTED_STATES:
        return None
    output, error, steps = data.get("output"), data.get("error"), data.get("steps", 0)
    messages = data.get("messages", [])
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        messages = []
    return AgentOutcome(
        agent_id=agent_id,
        state=state,
        output=output if isinstance(output, str) else None,
        error=error if isinstance(error, str) else None,
        steps=steps if type(steps) is int else 0,
        messages=messages,
        reported=True,
    )


def _merge_messages(outcomes: Any) -> list[dict[str, Any]]:
    """One list of every message, once each (a message is recorded by its sender and its receiver)."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for outcome in outcomes:
        for record in outcome.messages:
            merged.setdefault((str(record.get("direction")), str(record.get("id"))), record)
    return sorted(merged.values(), key=_timestamp)


def _timestamp(record: dict[str, Any]) -> float:
    value = record.get("timestamp")
    return float(value) if isinstance(value, int | float) else 0.0


def run_agents(
    task: str,
    num_agents: int = 2,
    settings: AgentSettings | Sequence[AgentSettings] | None = None,
    transport: str = "local",
    transport_kwargs: Mapping[str, Any] | None = None,
    deadline_seconds: float | None = 600.0,
    context: StartMethod = DEFAULT_START_METHOD,
    run_id: str | None = None,
    max_restarts: int = DEFAULT_MAX_RESTARTS,
) -> TeamResult:
    """Run a team of `num_agents` agents on `task` and return agent 0's answer with the whole record.

    `settings` default to the embedded model with a CodeAgent each; pass `AgentSettings(model=...)`
    (or a list, one per agent) to choose. `run_id`: a durable team run, whose agents are started
    again (at most `max_restarts` times each) and resume where they were if their process dies, and
    which `resume_agents` takes over if its host dies (over a transport whose queues outlive it).
    """
    team = _team(settings, num_agents, transport, transport_kwargs, deadline_seconds, context, max_restarts)
    return team.run(task, run_id=run_id)


def resume_agents(
    run_id: str,
    num_agents: int = 2,
    settings: AgentSettings | Sequence[AgentSettings] | None = None,
    transport: str = "local",
    transport_kwargs: Mapping[str, Any] | None = None,
    deadline_seconds: float | None = 600.0,
    context: StartMethod = DEFAULT_START_METHOD,
    max_restarts: int = DEFAULT_MAX_RESTARTS,
) -> TeamResult:
    """Take over the durable team run `run_id` whose host died (`Team.resume`), given the settings
    and transport it was started with, and return its answer. `deadline_seconds` counts from now."""
    team = _team(settings, num_agents, transport, transport_kwargs, deadline_seconds, context, max_restarts)
    return team.resume(run_id)


def _team(
    settings: AgentSettings | Sequence[AgentSettings] | None,
    num_agents: int,
    transport: str,
    transport_kwargs: Mapping[str, Any] | None,
    deadline_seconds: float | None,
    context: StartMethod,
    max_restarts: int,
) -> Team:
    return Team(
        settings if settings is not None else AgentSettings(),
        num_agents=num_agents if isinstance(settings, AgentSettings | None) else None,
        transport=transport,
        transport_kwargs=transport_kwargs,
        deadline_seconds=deadline_seconds,
        context=context,
        max_restarts=max_restarts,
    )
