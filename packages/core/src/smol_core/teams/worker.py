"""The body of one agent's process: build the agent, run it, report the outcome to the host.

A module-level function, so that it starts under `spawn` (and `forkserver`): the process receives
its id, the task (or None), its settings and the transport, all picklable data, and builds the
rest itself. Its outcome goes back as a bounded JSON file, never a pickled object, and a notice
(its id) on the `done` queue.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import traceback
from typing import Any

from smol_core.teams.settings import AgentSettings, build_team_agent

PR_SET_PDEATHSIG = 1
ONE_WORKER_PER_AGENT = {"SMOL_EXECUTOR_PREWARM": "0"}
"""An agent's process runs one agent, with one sandbox worker: a spare worker kept warm for the
process's next executor would never serve (it cost every agent another worker's start). Set unless
the host set it. The worker itself is a fork of the host's template where the launcher shares it
(`launcher.with_worker_template`), and an agent never starts a template of its own (a process
starts one for its second worker)."""
MAX_RESULT_BYTES = 4 * 1024 * 1024
"""What one agent may report to the host: its answer and its messages, trimmed to fit."""


def agent_main(
    agent_id: int,
    task: str | None,
    settings: AgentSettings,
    transport: Any,
    done: Any,
    report_path: str,
    run_id: str | None = None,
    resume: bool = False,
) -> None:
    """Agent `agent_id`'s process: its run (durable under `run_id`; `resume`: started again after its
    process died, so it goes on from its last checkpoint), then its report."""
    for name, value in ONE_WORKER_PER_AGENT.items():
        os.environ.setdefault(name, value)
    from smol_core.executors.host.scratch import keep_scratch_in

    # the folder of its report is private to this agent's run and removed by whoever started it
    keep_scratch_in(os.path.dirname(os.path.abspath(report_path)))
    from smol_core.monitoring import AgentLogger
    from smol_core.teams.console import PrefixedStream
    from smol_core.teams.tools import MessageLog, ReceiveMessagesTool, SendMessageTool

    stream = PrefixedStream(f"[agent {agent_id}] ")
    logger = AgentLogger(level=settings.verbosity_level, stream=stream)  # type: ignore[arg-type]

    def echo(line: str) -> None:
        stream.write(line + "\n")

    log = MessageLog(echo=echo if settings.verbosity_level >= 1 else None)
    inbox = ReceiveMessagesTool(transport, agent_id, log)
    tools = [SendMessageTool(transport, agent_id, log), inbox]
    report: dict[str, Any] = {"agent_id": agent_id}
    agent: Any = None
    try:  # from the handler's first moment: a stop while the agent starts is reported as a stop
        signal.signal(signal.SIGTERM, _stop)
        # Ctrl-C and a closed terminal reach the whole process group: the host alone decides, and
        # stops every agent with SIGTERM (an agent that took them itself printed its traceback)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        _die_with_parent()
        agent = build_team_agent(agent_id, len(transport.agent_ids()), settings, tools, logger)
        with agent:
            try:
                report.update(_run(agent, task, settings, run_id, resume))
                inbox.acknowledge()  # its last batch, taken into the run's final steps
            except TeamStopped:
                raise  # not marked: see `_mark_finished`
            except BaseException:
                _mark_finished(transport, agent_id)
                raise
            _mark_finished(transport, agent_id)
    except TeamStopped:
        # what it did before the stop (a deadline after six failing steps is not "0 steps, no error")
        report.update(state="stopped", **_progress(agent))
    except BaseException as error:  # the host learns why; KeyboardInterrupt and SystemExit included
        # the agent has ended: a stop from the host now (it stops everyone once agent 0 has failed)
        # must not cut its one-line error short with a traceback of the stop
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        report.update(state="error", error=f"{type(error).__name__}: {error}"[:2000])
        if settings.verbosity_level >= 0:
            stream.write(_described(error))
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the report goes out whole; SIGKILL follows if it must
    report["messages"] = list(log.records)
    try:
        # a host gone has no one to tell, and its janitor is removing the folder: a report written
        # now could land in it after the removal began, and leave it behind
        if not _host_gone():
            _write_report(report_path, _bounded(report))
            done.put(agent_id)
    except OSError:  # the host is gone (its folder with it): no one to tell
        pass
    _flush_traces()
    close = getattr(transport, "close", None)
    if close is not None:
        close()
    sys.stderr.flush()


def _described(error: BaseException) -> str:
    """What an agent says of the error that ended it: a mistake of the user's (a model that cannot be
    built, a setting it refuses: a `SmolError`) in one line, as a single run says it; anything else
    with its traceback, which is what finds a bug."""
    from smol_core.errors import SmolError
    from smol_core.terminal import escape_controls

    if isinstance(error, SmolError):
        return escape_controls(" ".join(str(error).split())) + "\n"
    return "".join(traceback.format_exception(error))[-4000:]


def _run(
    agent: Any, task: str | None, settings: AgentSettings, run_id: str | None, resume: bool
) -> dict[str, Any]:
    """The agent's run, as its report's state, output and steps. Started again (`resume`), it goes
    on from its last checkpoint; one that never saved any starts over, and one that had finished
    (its process died before it could report) reports its saved answer."""
    if resume and run_id is not None:
        from smol_core.durable.runner import read_checkpoint, store_of

        saved = read_checkpoint(store_of(agent), run_id)
        if saved is not None and saved.status == "finished":
            steps = sum(1 for step in saved.steps if getattr(step, "step_number", None) is not None)
            return {"state": "success", "output": str(saved.final_answer), "steps": steps}
        if saved is not None:
            result = agent.resume(run_id, max_steps=settings.max_steps, return_full_result=True)
            return _outcome(result)
    result = agent.run(task, max_steps=settings.max_steps, return_full_result=True, run_id=run_id)
    return _outcome(result)


def _outcome(result: Any) -> dict[str, Any]:
    return {
        "state": result.state,
        "output": None if result.state == "budget_exceeded" else str(result.output),
        "steps": sum(1 for step in result.steps if step.get("step_number") is not None),
    }


def traced_agent_main(environment: dict[str, str], *args: Any, **durable: Any) -> None:
    """`agent_main(*args)` in a process that first takes the host's tracing variables: what the host
    switched on in code (`instrument()`) reaches the agent, whatever launcher started it (a
    multiprocessing child, a Ray actor's subprocess) and whatever environment it inherited."""
    from smol_core import instrumentation

    instrumentation.apply_child_environment(environment)
    agent_main(*args, **durable)


def _flush_traces() -> None:
    """Export this agent's spans now: a multiprocessing child runs no exit handlers, so whatever an
    instrumentor still buffers would be lost with the process."""
    from smol_core import instrumentation

    instrumentation.flush()


def _die_with_parent() -> None:
    """SIGTERM to this agent when the host dies: a host killed outright, which runs no clean-up of
    its own, still leaves no agent waiting on its inbox for ever.

    Two ways, as the host need not be the agent's parent. The kernel's PDEATHSIG (Linux) serves an
    agent the host spawned. An agent forked from the fork server has the server for parent, and the
    server outlives the host while any agent runs (each holds its end of the server's "alive" pipe):
    for it, and for every local agent, a thread waits on multiprocessing's parent sentinel, a pipe
    whose other end only the host holds, which reads as closed the moment the host is gone (or
    already is). A launcher's agent with no local host (Ray) has neither: its launcher watches."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    import multiprocessing

    host = multiprocessing.parent_process()
    if host is None:
        return
    try:
        sentinel = host.sentinel
    except ValueError:  # no sentinel to watch
        return
    threading.Thread(target=_stop_when_gone, args=(sentinel,), name="smol-host-watch", daemon=True).start()


def _host_gone() -> bool:
    """Whether the host has ended (its end of multiprocessing's parent sentinel is closed), asked
    without waiting; False where there is no local host to ask (a launcher's agent)."""
    import multiprocessing
    from multiprocessing.connection import wait

    host = multiprocessing.parent_process()
    try:
        return host is not None and bool(wait([host.sentinel], timeout=0))
    except (ValueError, OSError):
        return False


def _stop_when_gone(sentinel: int) -> None:
    """Wait, without polling, for the host's end of `sentinel` to close; then stop this agent."""
    from multiprocessing.connection import wait

    wait([sentinel])
    os.kill(os.getpid(), signal.SIGTERM)


class TeamStopped(BaseException):
    """The host stopped the team (SIGTERM): the agent stops where it is and reports what it did."""


def _stop(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise TeamStopped


def _progress(agent: Any) -> dict[str, Any]:
    """The steps an agent took (the one the stop cut short included) and the last error among them."""
    memory = getattr(agent, "memory", None)
    steps = [step for step in getattr(memory, "steps", []) if hasattr(step, "step_number")]
    errors = [step.error for step in steps if getattr(step, "error", None) is not None]
    progress: dict[str, Any] = {"steps": len(steps)}
    if errors:
        progress["error"] = f"{type(errors[-1]).__name__}: {errors[-1]}"[:2000]
    return progress


def _write_report(path: str, text: str) -> None:
    """Write then rename: the host reads a whole report or none."""
    partial = f"{path}.partial"
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(partial, path)


def _mark_finished(transport: Any, agent_id: int) -> None:
    """Say at once that this agent reads no more messages, before the host even sees the report, so
    that a peer's message to it fails with a clear error instead of waiting on a queue no one reads.

    Not for an agent stopped with SIGTERM: a host that stops its team marks each agent itself first,
    and a host that died marks none, so that a peer still running for a moment sends into the inbox
    (where the agent that takes the team over reads it) instead of being told, and a durable run
    recording, that this agent stopped for good."""
    status = getattr(transport, "status", None)
    if status is not None:
        status.mark(agent_id, "finished")


def _bounded(report: dict[str, Any]) -> str:
    """The report as JSON within MAX_RESULT_BYTES: message bodies go first, then the records."""
    text = json.dumps(report, default=str)
    if len(text.encode("utf-8")) <= MAX_RESULT_BYTES:
        return text
    report["messages"] = [{**record, "message": "(omitted: too large)"} for record in report["messages"]]
    text = json.dumps(report, default=str)
    if len(text.encode("utf-8")) <= MAX_RESULT_BYTES:
        return text
    report["messages"] = []
    report["output"] = str(report.get("output", ""))[: MAX_RESULT_BYTES // 2]
    return json.dumps(report, default=str)
