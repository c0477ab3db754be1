"""The worker's command-line options, apart from the worker: `smol --help` builds every command's
parser, and must not load temporalio (a plugin lists without its SDK installed)."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    """The worker's options: `smol-temporal-worker` and `smol temporal-worker` take the same."""
    parser.add_argument("--address", default="localhost:7233", help="the Temporal server (host:port)")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--task-queue", default="smol", help="the queue the runs were started on")
    parser.add_argument("--max-concurrent-steps", type=int, default=4, help="steps run at once (threads)")
