"""The hooks a smol plugin can implement: each one's contract, with a runnable example.

A plugin is a module, named by an entry point in the group `smol` of its package, with functions
marked `@hookimpl`. Each hook returns records (`smol_core.plugins.specs`) holding a name and a
factory. The registry asks every plugin once, on first use, and builds nothing until a user picks a
name (`load_model("echo")`, `executor_type="interpreter"`, `--tools shout`), so a factory should be
`lazy("my_pkg.module:Name")`: the plugin's SDK is imported when its object is built, never at
discovery. The examples below pass the class itself, so that each runs on its own; a plugin imports
everything from `smol_core.plugin_api` only. `tests/core/test_plugin_api.py` runs every example.

Two plugins registering one name make that name (and only it) an error that names both; a plugin
that fails to import is reported by `smol plugins` and leaves the others working.
"""

from __future__ import annotations

from collections.abc import Iterable

import pluggy

from smol_core.plugins.specs import (
    CheckpointStoreSpec,
    CommandSpec,
    ExecutorSpec,
    InstrumentorSpec,
    ModelSpec,
    RunExtensionSpec,
    RunOptionSpec,
    ToolSpec,
    TransportSpec,
)

PROJECT_NAME = "smol"
ENTRY_POINT_GROUP = "smol"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def smol_models() -> Iterable[ModelSpec]:  # type: ignore[empty-body]
    r"""Model backends: `load_model(name, model_id, **kwargs)` and `smolagent --model-type name` build them.

    `factory(model_id=..., **kwargs)` returns a `Model`. A model implements `request(request)`: the
    call arrives as one `ModelRequest` (messages, stop sequences, response format, tools, grammar,
    options) and the reply is a `ChatMessage`. An HTTP API model subclasses `ApiModel` (or
    `ChatCompletionsModel` for the OpenAI shape) and writes only its client call: retries,
    `Retry-After`, time-outs and `ModelAPIError` come from the base. `capabilities`
    (`ModelCapabilities`) tells the agent what the backend can do: stop sequences, grammars, JSON
    schemas, native tool calls, whether it is a small model to prompt compactly. Mark stand-ins for
    tests `test_double=True`: they are never offered as models. Example::

        from smol_core.plugin_api import ChatMessage, Model, ModelRequest, ModelSpec, hookimpl

        class EchoModel(Model):
            '''Answers every task with the task itself, as a code action.'''

            def request(self, request: ModelRequest) -> ChatMessage:
                task = request.messages[-1].text
                return ChatMessage("assistant", f"<code>\nfinal_answer({task[-40:]!r})\n</code>")

        @hookimpl
        def smol_models():
            return [ModelSpec("echo", EchoModel, "Repeats the task.", default_model_id="echo-1")]
    """


@hookspec
def smol_executors() -> Iterable[ExecutorSpec]:  # type: ignore[empty-body]
    """Code executors: `CodeAgent(executor_type=name, executor_kwargs={...})` builds them.

    `factory(additional_authorized_imports, **executor_kwargs)` returns a `PythonExecutor`; a keyword
    it does not take is an error for the user, so declare every setting as a parameter. Subclass
    `WorkerExecutor` to keep smol's sandbox wherever the code runs: implement `open_link` (start a
    worker and return the `WorkerLink` to it: a `WorkerProcess`, a container's attached stream, a
    remote process), and `worker_config` (`common_worker_config()` plus the sandbox's own keys). The
    worker is shipped at start-up (`loader_command` + `bundle_frame`), so any `python3` (3.11+) runs
    it; the host checks everything it sends. `describe_protections` adds the sandbox's own walls to
    what `smol doctor` and `executor.protections` show. Test it with
    `smol_core.testing.ExecutorConformance`. Example (a worker under another interpreter, say a
    virtual environment holding the packages the code may import)::

        import os
        import sys
        import tempfile

        from smol_core.plugin_api import (
            WORKER_ENV, ExecutorSpec, WorkerExecutor, WorkerProcess, bundle_frame, hookimpl, loader_command,
        )

        class InterpreterExecutor(WorkerExecutor):
            '''Runs each action in a sandboxed worker under `python`.'''

            def __init__(self, additional_authorized_imports=None, max_print_outputs_length=None,
                         timeout_seconds=30, python=sys.executable):
                self.python = python
                self.scratch = tempfile.mkdtemp(prefix="interpreter-scratch-")
                super().__init__(additional_authorized_imports, max_print_outputs_length, timeout_seconds)

            def open_link(self):
                worker = WorkerProcess(
                    loader_command(self.python), env={**WORKER_ENV, "SMOL_WORKER_PARENT": str(os.getpid())}
                )
                worker.send_raw(bundle_frame())  # the loader reads the worker's code, then runs it
                return worker

            def worker_config(self):
                return {**self.common_worker_config(), "memory_limit_mb": 2048, "scratch": self.scratch,
                        "os_sandbox": True, "expected_env": [*WORKER_ENV, "SMOL_WORKER_PARENT"]}

        @hookimpl
        def smol_executors():
            return [ExecutorSpec("interpreter", InterpreterExecutor, "Another Python.", isolation="process")]
    """


@hookspec
def smol_tools() -> Iterable[ToolSpec]:  # type: ignore[empty-body]
    """Tools: `load_tools(name)` and `smolagent --tools name` build them.

    `factory(**kwargs)` returns a `Tool`, a list of them, or a `ToolCollection`. A family selected
    as `name:argument` (`mcp:<server command>`) sets `parametrized=True` and takes the argument first.
    A tool validates its inputs against its declared `inputs`; whatever it returns reaches the code as
    data (never pickled), and one call may take `timeout_seconds` (the agent's default otherwise).
    Example::

        from smol_core.plugin_api import ToolSpec, as_tool, hookimpl

        def make_shout():
            def shout(text: str) -> str:
                '''Says it louder.

                Args:
                    text: What to say.
                '''
                return text.upper() + "!"

            return as_tool(shout)

        @hookimpl
        def smol_tools():
            return [ToolSpec("shout", make_shout, "Upper-cases a text.")]
    """


@hookspec
def smol_commands() -> Iterable[CommandSpec]:  # type: ignore[empty-body]
    """`smol <name>` subcommands: `configure(parser)` adds the arguments, `run(args)` returns the exit code.

    Import heavy modules inside `run`, so that `smol --help` stays instant. A command that builds an
    agent from the `smolagent` flags takes them from `smolagent_parser()` and builds it with
    `check_arguments` and `agent_from_arguments`. Report a user's mistake as a `SmolError`: the CLI
    prints it as one line with a non-zero exit. Example::

        from smol_core.plugin_api import CommandSpec, hookimpl

        def configure(parser):
            parser.add_argument("name")

        def run(args):
            print(f"Hello, {args.name}!")
            return 0

        @hookimpl
        def smol_commands():
            return [CommandSpec("hello", "Greets someone.", run, configure)]
    """


@hookspec
def smol_transports() -> Iterable[TransportSpec]:  # type: ignore[empty-body]
    """Message transports between agent processes (`run_agents(..., transport="name")`, `--transport`).

    `factory(**kwargs)` returns a `Transport` (`agent_ids`, `send`, `receive`, `ack`, `close`); the
    keywords are the transport's own (a URL, a mapping of queues), passed through untouched. A
    message is data, and whatever reaches an inbox was written by someone else: read every one
    through `accept_message` (it decodes, checks the addressee and bounds, and logs refusals), and
    drop redelivered ids with a `Deduplicator`. Test it with `smol_core.testing.TransportConformance`.
    A transport whose agents should run elsewhere (the `ray` transport starts them on its cluster)
    sets `TransportSpec.launcher`: `launcher(transport)` returns an `AgentLauncher` or None (local
    processes, the default); the host still owns shutdown, and no agent outlives the run.
    Example (agents as threads of one process)::

        import queue

        from smol_core.plugin_api import (
            DEFAULT_MAX_MESSAGE_BYTES, Deduplicator, TransportSpec, UnknownRecipientError, accept_message,
            encode, hookimpl,
        )

        class ThreadTransport:
            '''One `queue.Queue` per agent: for agents that are threads of one process.'''

            def __init__(self, num_agents=2, max_message_bytes=DEFAULT_MAX_MESSAGE_BYTES):
                self.max_message_bytes = max_message_bytes
                self.queues = {agent_id: queue.Queue() for agent_id in range(num_agents)}
                self.seen = {agent_id: Deduplicator() for agent_id in self.queues}
                self.refused = []

            def agent_ids(self):
                return list(self.queues)

            def send(self, message):
                if message.recipient not in self.queues:
                    raise UnknownRecipientError(f"no agent {message.recipient}; the agents are {self.agent_ids()}")
                self.queues[message.recipient].put(encode(message, self.max_message_bytes))

            def receive(self, agent_id, timeout=0.0, limit=100):
                inbox, received = self.queues[agent_id], []
                try:
                    raw = inbox.get(timeout=timeout) if timeout != 0 else inbox.get_nowait()
                    while True:
                        message = accept_message(raw, agent_id, self.max_message_bytes, self.refused)
                        if message is not None and self.seen[agent_id].first_time(message.id):
                            received.append(message)
                        if len(received) >= limit:
                            break
                        raw = inbox.get_nowait()
                except queue.Empty:
                    pass
                return received

            def ack(self, agent_id, message_ids):
                pass  # a queue.Queue never redelivers

            def close(self):
                pass

        @hookimpl
        def smol_transports():
            return [TransportSpec("threads", ThreadTransport, "Queues between threads.")]
    """


@hookspec
def smol_checkpoint_stores() -> Iterable[CheckpointStoreSpec]:  # type: ignore[empty-body]
    """Stores of durable runs' checkpoints (`agent.run(..., run_id=...)`, `checkpoint_store="name"`).

    `factory(**kwargs)` returns an object with the `smol_core.durable.CheckpointStore` methods:
    `acquire`/`release` (a lease: one live process drives a run at a time, and a lease whose owner
    died is taken over), `save` (atomic: a checkpoint is whole or absent), `load`, `list`, `delete`.
    Raise `StoreUnavailableError` with what to do when the backend cannot be reached. Example::

        from smol_core.plugin_api import CheckpointStoreSpec, hookimpl, lazy

        @hookimpl
        def smol_checkpoint_stores():
            return [CheckpointStoreSpec("postgres", lazy("my_pkg.store:PostgresStore"), "One table per team.")]
    """


@hookspec
def smol_instrumentors() -> Iterable[InstrumentorSpec]:  # type: ignore[empty-body]
    """Tracers of agent runs (`smol_core.instrumentation.Instrumentor`), asked once per process at the
    first agent run when a variable of the environment starts with `OTEL_` or `SMOL_TRACE`. The
    factory returns an instrumentor, or None when tracing is not asked for, and imports its SDK only
    then:

        from smol_core import hookimpl
        from smol_core.plugins.specs import InstrumentorSpec, lazy

        @hookimpl
        def smol_instrumentors():
            return [InstrumentorSpec("otel", lazy("my_pkg.auto:from_environment"), "OpenTelemetry.")]
    """


@hookspec
def smol_run_extensions() -> Iterable[RunExtensionSpec]:  # type: ignore[empty-body]
    """What joins a run given a keyword of `agent.run(...)` that names a feature: `run_id`.

    The loop knows the run's door (`smol_core.effects`), not the features behind it: given
    `run_id=...` (or `agent.resume(run_id)`), it asks the registry for the run extension named
    `run_id` and calls `factory(agent, run_id, resume)`, which returns a `RunExtension` that takes
    part in every model call, tool call and step of that run. smol's durable runs register it so;
    another engine of durable runs registers it instead (one owner per name: disable the other).
    Example (a run that logs its steps under its id)::

        from smol_core.plugin_api import RunExtension, RunExtensionSpec, hookimpl

        class StepLog(RunExtension):
            '''Notes each step a run ends, under the run's id.'''

            def __init__(self, run_id, resume):
                self.run_id, self.steps = run_id, []

            def step_ended(self, run):
                self.steps.append(f"{self.run_id}: step {run.step_number}")

        @hookimpl
        def smol_run_extensions():
            return [RunExtensionSpec("run_id", lambda agent, run_id, resume: StepLog(run_id, resume))]
    """


@hookspec
def smol_run_options() -> Iterable[RunOptionSpec]:  # type: ignore[empty-body]
    """A feature's own `smolagent` flags, and what they change in the command's run.

    `configure(parser)` adds the flags (an argument group of their own: `smolagent --help` lists
    every installed feature's); `apply(args, run)` reads them before anything heavy happens and
    shapes the command's run (`RunOptionSpec` lists what it can change), or refuses a mistake in one
    line with `run.refuse(message)`. Durable runs, record and replay and teams declare theirs so.
    Example (a flag that notes each finished run in a file)::

        import contextlib

        from smol_core.plugin_api import RunOptionSpec, hookimpl

        def configure(parser):
            parser.add_argument_group("run notes").add_argument("--note-to", metavar="FILE")

        @contextlib.contextmanager
        def noting(agent, path):
            yield
            with open(path, "a") as notes:
                print(f"{agent.name or 'agent'} ran {agent.step_number - 1} step(s)", file=notes)

        def apply(args, run):
            if args.note_to is not None:
                run.around(lambda agent: noting(agent, args.note_to))

        @hookimpl
        def smol_run_options():
            return [RunOptionSpec("run notes", configure, apply)]
    """
