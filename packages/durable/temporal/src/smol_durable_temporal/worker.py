"""`smol-temporal-worker` (or `python -m smol_durable_temporal`): runs smol runs' steps.

A worker polls one task queue for the workflow's tasks and the steps' activities; start as many as
you like, on any machines that reach the Temporal server and import the agents' factories. Steps run
in threads (`--max-concurrent-steps`), each with its own agent and sandbox. SIGTERM or Ctrl-C stops
polling and lets the steps in flight finish; a worker killed outright costs at most its steps in
flight, which Temporal gives to another worker once the heartbeat timeout passes.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from temporalio.client import Client
from temporalio.worker import Worker

from smol_durable_temporal.heartbeats import register
from smol_durable_temporal.step import run_one_step
from smol_durable_temporal.worker_options import configure
from smol_durable_temporal.workflow import AgentRunWorkflow

DESCRIPTION = "Runs the steps of smol runs started on Temporal (run_on_temporal)."


def create_worker(client: Client, task_queue: str, *, max_concurrent_steps: int = 4) -> Worker:
    """A worker for `task_queue`; `async with` it, or `await worker.run()`.

    Heartbeats are not throttled, and each save's is recorded with the server before its step goes
    on (heartbeats.py): each is a checkpoint saved in the middle of a step (a model reply, a tool
    call starting), and one held back would be lost with a killed worker. Call it from the event
    loop the worker will run on."""
    register(task_queue, client, asyncio.get_running_loop())
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[AgentRunWorkflow],
        activities=[run_one_step],
        activity_executor=ThreadPoolExecutor(max_concurrent_steps, thread_name_prefix="smol-step"),
        max_concurrent_activities=max_concurrent_steps,
        max_heartbeat_throttle_interval=timedelta(0),
        default_heartbeat_throttle_interval=timedelta(0),
    )


async def serve(address: str, namespace: str, task_queue: str, max_concurrent_steps: int) -> None:
    client = await Client.connect(address, namespace=namespace)
    worker = create_worker(client, task_queue, max_concurrent_steps=max_concurrent_steps)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with worker:
        print(f"smol-temporal-worker: polling {task_queue!r} on {address} ({namespace})", flush=True)
        await stop.wait()


def run(args: argparse.Namespace) -> int:
    asyncio.run(serve(args.address, args.namespace, args.task_queue, args.max_concurrent_steps))
    return 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="smol-temporal-worker", description=DESCRIPTION)
    configure(parser)
    raise SystemExit(run(parser.parse_args(argv)))
