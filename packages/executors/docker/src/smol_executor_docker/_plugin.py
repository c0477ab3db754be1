"""Registers the `docker` executor and `smol executor docker ...` with smol. Imports nothing heavy."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import CommandSpec, ExecutorSpec, hookimpl, lazy


@hookimpl
def smol_executors() -> Iterable[ExecutorSpec]:
    return [
        ExecutorSpec(
            "docker",
            lazy("smol_executor_docker.executor:DockerExecutor"),
            "The local executor's guarded worker inside a hardened container: no network, read-only "
            "root, limits, unprivileged user, no capabilities.",
            isolation="container",
        )
    ]


@hookimpl
def smol_commands() -> Iterable[CommandSpec]:
    return [
        CommandSpec(
            "executor",
            "Manage remote executors: `smol executor docker build`.",
            lazy("smol_executor_docker.cli:run"),
            lazy("smol_executor_docker.cli:configure"),
        )
    ]
