"""Registers `smol temporal-worker` with smol. Imports nothing: temporalio loads when it runs."""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from smol_core.plugin_api import CommandSpec, hookimpl


def _configure(parser: argparse.ArgumentParser) -> None:
    from smol_durable_temporal.worker_options import configure  # no temporalio: `smol --help` runs it

    configure(parser)


def _run(args: argparse.Namespace) -> int:
    from smol_durable_temporal.worker import run

    return run(args)


@hookimpl
def smol_commands() -> Iterable[CommandSpec]:
    return [
        CommandSpec(
            "temporal-worker",
            "Runs the steps of smol runs started on Temporal (as smol-temporal-worker).",
            _run,
            _configure,
        )
    ]
