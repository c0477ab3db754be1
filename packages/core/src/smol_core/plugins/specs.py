"""Typed records that plugins return from their hooks.

Records carry names and factories, not objects: the registry can list every installed model,
executor, tool and command without importing a single SDK. A factory imports its SDK when called.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Isolation = Literal["process", "container", "microvm", "wasm", "none"]


def lazy(target: str) -> Callable[..., Any]:
    """A factory that imports `"package.module:attribute"` only when called, then calls it.

    Lets a `_plugin.py` name its classes without importing them (and their SDKs) at discovery time.
    """
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"lazy() needs 'module:attribute', got {target!r}")

    def factory(*args: Any, **kwargs: Any) -> Any:
        obj = getattr(importlib.import_module(module_name), attribute)
        return obj(*args, **kwargs)

    factory.__qualname__ = factory.__name__ = f"lazy({target})"
    factory.target = target  # type: ignore[attr-defined]
    return factory


@dataclass(frozen=True)
class ModelSpec:
    """A model backend: `factory(model_id=..., **kwargs)` returns a `Model`."""

    name: str
    factory: Callable[..., Any]
    description: str = ""
    aliases: Sequence[str] = ()
    default_model_id: str | None = None
    test_double: bool = False
    """A stand-in for tests (`ScriptedModel`, `FunctionModel`): saved agents that used one load again,
    but it is never listed, offered or chosen by name as a model (`smol plugins`, `smolagent`)."""


@dataclass(frozen=True)
class ExecutorSpec:
    """A code executor: `factory(additional_authorized_imports=..., **executor_kwargs)` returns one."""

    name: str
    factory: Callable[..., Any]
    description: str = ""
    isolation: Isolation = "process"
    aliases: Sequence[str] = ()


@dataclass(frozen=True)
class ToolSpec:
    """A tool, or a family of tools: `factory(**kwargs)` returns a `Tool`, a list of them, or a collection.

    `parametrized=True` marks families selected as `name:argument` on the command line, such as
    `mcp:<server command>`; the factory then receives the argument as its first positional parameter.
    """

    name: str
    factory: Callable[..., Any]
    description: str = ""
    aliases: Sequence[str] = ()
    parametrized: bool = False


@dataclass(frozen=True)
class CommandSpec:
    """A `smol <name>` subcommand: `configure` adds its arguments, `run` does the work and returns an exit code."""

    name: str
    help: str
    run: Callable[[argparse.Namespace], int]
    configure: Callable[[argparse.ArgumentParser], None] = field(default=lambda parser: None)


@dataclass(frozen=True)
class TransportSpec:
    """A message transport between agent processes: `factory(**kwargs)` returns a `Transport`.

    The factory's keyword arguments are the transport's own (a Redis URL, a queue mapping): a team
    passes them through untouched, so that every transport can take what it needs.

    `launcher(transport)`, where given, says where a team's agents run when this transport carries
    their messages: an `AgentLauncher` (`smol_core.teams.launcher`), or None for local processes
    (the default, and the only choice without it). The `ray` transport starts agents on its cluster.

    `preload`: modules every local agent imports to use the transport (its client library), imported
    once in the team's fork server instead, where the host's first team starts it (redis-py takes
    0.36 s to import: each agent of a team of 64 paid it).
    """

    name: str
    factory: Callable[..., Any]
    description: str = ""
    aliases: Sequence[str] = ()
    launcher: Callable[[Any], Any] | None = None
    preload: Sequence[str] = ()


@dataclass(frozen=True)
class CheckpointStoreSpec:
    """Where durable runs keep their checkpoints (`smol_core.durable.CheckpointStore`):
    `factory(**kwargs)` returns a store, from the store's own settings (a path, a URL). Agents take
    it as `checkpoint_store="name"`; `sqlite` (one file, no server) is built in."""

    name: str
    factory: Callable[..., Any]
    description: str = ""


@dataclass(frozen=True)
class InstrumentorSpec:
    """A tracer of agent runs (`smol_core.instrumentation.Instrumentor`).

    `factory()` is called once per process, at the first agent run, and returns an instrumentor when
    the environment asks for tracing (`OTEL_EXPORTER_OTLP_ENDPOINT`, ...) or None when it does not:
    an installed plugin that nobody switched on costs nothing.
    """

    name: str
    factory: Callable[[], Any]
    description: str = ""
    aliases: Sequence[str] = ()


@dataclass(frozen=True)
class RunExtensionSpec:
    """What joins a run when `agent.run(...)` is given the keyword `name` (`run_id`: a durable run).

    `factory(agent, value, resume)` returns a `smol_core.effects.RunExtension` for the run about to
    start (`resume=True` from `agent.resume(value)`). The run keyword is the name, so the loop asks the
    registry for whatever owns it and imports no feature itself.
    """

    name: str
    factory: Callable[[Any, Any, bool], Any]
    description: str = ""


@dataclass(frozen=True)
class RunOptionSpec:
    """A feature's flags on `smolagent` (and on the commands that take its flags, such as `smol ui`).

    `configure(parser)` adds the flags, best as an argument group of their own. `apply(args, run)`
    reads them before anything heavy happens and says what they change in the command's run, a
    `smol_core.cli.command_run.CommandRun`: `run.refuse(message)` for a mistake (one line, exit
    status 2); `run.settings` (the agent's `AgentSettings` fields), `run.run_keywords` (keywords of
    the run), `run.around(wrapper)` (a context manager around one agent's run), `run.start` (how one
    agent's run starts), `run.task` (the task when none is given), `run.runner` (the feature runs
    something else than one agent: a team).
    """

    name: str
    configure: Callable[[argparse.ArgumentParser], None]
    apply: Callable[[argparse.Namespace, Any], None]
    description: str = ""


# Names a user may ask for that a not-yet-installed package provides: used in "unknown name" errors.
KNOWN_PROVIDERS: dict[str, dict[str, str]] = {
    "models": {
        "llamacpp": "smol-model-llamacpp",
        "openai": "smol-model-openai",
        "azure-openai": "smol-model-openai",
        "litellm": "smol-model-litellm",
        "litellm-router": "smol-model-litellm",
        "inference": "smol-model-hf",
        "hf": "smol-model-hf",
        "transformers": "smol-model-transformers",
        "mlx": "smol-model-mlx",
        "bedrock": "smol-model-bedrock",
        # smolagents' class names, which name the same models
        "OpenAIModel": "smol-model-openai",
        "OpenAIServerModel": "smol-model-openai",
        "AzureOpenAIModel": "smol-model-openai",
        "AzureOpenAIServerModel": "smol-model-openai",
        "LiteLLMModel": "smol-model-litellm",
        "LiteLLMRouterModel": "smol-model-litellm",
        "InferenceClientModel": "smol-model-hf",
        "HfApiModel": "smol-model-hf",
        "TransformersModel": "smol-model-transformers",
        "MLXModel": "smol-model-mlx",
        "AmazonBedrockModel": "smol-model-bedrock",
        "AmazonBedrockServerModel": "smol-model-bedrock",
        "LlamaCppModel": "smol-model-llamacpp",
    },
    "executors": {
        "docker": "smol-executor-docker",
        "e2b": "smol-executor-e2b",
        "wasm": "smol-executor-wasm",
    },
    "tools": {
        "mcp": "smol-tool-mcp",
        "web_search": "smol-tool-web",
        "visit_webpage": "smol-tool-web",
        "wikipedia_search": "smol-tool-web",
        "duckduckgo_search": "smol-tool-web",
        "google_search": "smol-tool-web",
        "space": "smol-tool-hub",
        "hub": "smol-tool-hub",
        "langchain": "smol-tool-langchain",
    },
    "transports": {"redis": "smol-transport-redis", "ray": "smol-transport-ray"},
    "commands": {
        "ui": "smol-ui-gradio",
        "mcp": "smol-tool-mcp",
        "executor": "smol-executor-docker",
        "trace": "smol-telemetry-otel",
    },
    "instrumentors": {"otel": "smol-telemetry-otel"},
    "run_extensions": {"run_id": "smol-core"},
}
