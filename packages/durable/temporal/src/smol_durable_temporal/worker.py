"""`smol-temporal-worker` (or `python -m smol_durable_temporal`): runs smol runs' steps.

A worker polls one task queue for the workflow's tasks and the steps' activities; start as many as
you like, on any machines that reach the Temporal server. Each runs only the agents it was given
when it started (`--agent NAME=module:function`, `create_worker(..., agents=...)`): a run names
one of them. Steps run in threads (`--max-concurrent-steps`), each with its own agent and sandbox.
SIGTERM or Ctrl-C stops polling and lets the steps in flight finish; a worker killed outright costs
at most its steps in flight, which Temporal gives to another worker once the heartbeat timeout passes.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from temporalio.client import Client
from temporalio.worker import Worker

from smol_core.plugin_api import SmolError
from smol_durable_temporal.agents import AgentFactory, AgentRegistry, load_agents
from smol_durable_temporal.codec import key_from_environment, key_from_file
from smol_durable_temporal.connection import data_converter, offloads
from smol_durable_temporal.heartbeats import register
from smol_durable_temporal.step import StepActivity
from smol_durable_temporal.worker_options import configure
from smol_durable_temporal.workflow import AgentRunWorkflow

DESCRIPTION = "Runs the steps of smol runs started on Temporal (run_on_temporal)."


def create_worker(
    client: Client,
    task_queue: str,
    *,
    agents: AgentRegistry | Mapping[str, AgentFactory],
    max_concurrent_steps: int = 4,
) -> Worker:
    """A worker for `task_queue` that runs `agents` (names to factories); `async with` it, or
    `await worker.run()`. Its payloads go through `client`'s data converter (`connect`): give both
    sides the same key and blob folder.

    Heartbeats are not throttled, and each save's is recorded with the server before its step goes
    on (heartbeats.py): each is a checkpoint saved in the middle of a step (a model reply, a tool
    call starting), and one held back would be lost with a killed worker. Call it from the event
    loop the worker will run on."""
    steps = StepActivity(AgentRegistry.of(agents), offloads=offloads(client.data_converter))
    register(task_queue, client, asyncio.get_running_loop())
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[AgentRunWorkflow],
        activities=[steps.run_one_step],
        activity_executor=ThreadPoolExecutor(max_concurrent_steps, thread_name_prefix="smol-step"),
        max_concurrent_activities=max_concurrent_steps,
        max_heartbeat_throttle_interval=timedelta(0),
        default_heartbeat_throttle_interval=timedelta(0),
    )


async def serve(args: argparse.Namespace, agents: AgentRegistry, key: bytes | None) -> None:
    converter = data_converter(key, args.blob_folder or None)
    client = await Client.connect(args.address, namespace=args.namespace, data_converter=converter)
    worker = create_worker(
        client, args.task_queue, agents=agents, max_concurrent_steps=args.max_concurrent_steps
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with worker:
        encrypted = "encrypted" if key is not None else "NOT encrypted (--key-file)"
        print(
            f"smol-temporal-worker: polling {args.task_queue!r} on {args.address} ({args.namespace}) "
            f"for {', '.join(agents.names)}; payloads {encrypted}",
            flush=True,
        )
        await stop.wait()


def run(args: argparse.Namespace) -> int:
    try:
        agents = load_agents(args.agent, args.agents)
        key = key_from_file(args.key_file) if args.key_file else key_from_environment()
    except (ValueError, SmolError) as error:
        print(f"smol-temporal-worker: {error}", file=sys.stderr)
        return 2
    asyncio.run(serve(args, agents, key))
    return 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="smol-temporal-worker", description=DESCRIPTION)
    configure(parser)
    raise SystemExit(run(parser.parse_args(argv)))
