"""The worker's command-line options, apart from the worker: `smol --help` builds every command's
parser, and must not load temporalio (a plugin lists without its SDK installed)."""

from __future__ import annotations

import argparse
import os


def configure(parser: argparse.ArgumentParser) -> None:
    """The worker's options: `smol-temporal-worker` and `smol temporal-worker` take the same."""
    parser.add_argument("--address", default="localhost:7233", help="the Temporal server (host:port)")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--task-queue", default="smol", help="the queue the runs were started on")
    parser.add_argument("--max-concurrent-steps", type=int, default=4, help="steps run at once (threads)")
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="NAME=module:function",
        help="an agent this worker runs: a run names it by NAME; the factory returns a fresh agent (repeatable)",
    )
    parser.add_argument(
        "--agents",
        action="append",
        default=[],
        metavar="module:attribute",
        help="agents this worker runs: a mapping of names to factories, or an AgentRegistry (repeatable)",
    )
    parser.add_argument(
        "--key-file",
        default=os.environ.get("SMOL_TEMPORAL_KEY_FILE"),
        help="the payload key (base64 of 32 bytes) that encrypts what reaches the history; the client "
        "needs the same (default: $SMOL_TEMPORAL_KEY_FILE, else $SMOL_TEMPORAL_KEY)",
    )
    parser.add_argument(
        "--blob-folder",
        default=os.environ.get("SMOL_TEMPORAL_BLOBS"),
        help="a folder the workers and clients share, for payloads over Temporal's limit "
        "(default: $SMOL_TEMPORAL_BLOBS)",
    )
