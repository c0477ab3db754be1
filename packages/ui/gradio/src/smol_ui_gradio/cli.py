"""`smol ui`: the chat page for the agent that `smolagent`'s flags describe, or for a saved agent.

The model, tool, executor and import flags are `smolagent`'s own (copied from its parser), so a
command line moves between the two by changing the program name and dropping the task.

The page shows what the model writes as it writes it, so its agent streams (`stream_outputs=True`)
wherever its model does: without it a step is a progress line alone until the model has finished,
which for a local model on a CPU can be a minute.
"""

from __future__ import annotations

import argparse
from typing import Any

_SKIPPED = {"help", "prompt", "task_file"}  # the page asks for the task itself


def configure(parser: argparse.ArgumentParser) -> None:
    from smol_core.plugin_api import smolagent_parser

    for action in smolagent_parser()._actions:
        if action.dest not in _SKIPPED:
            parser._add_action(action)
    parser.add_argument(
        "--agent-folder", default=None, help="Open a folder written by agent.save() instead of building one."
    )
    parser.add_argument("--host", default="127.0.0.1", help="Address to serve on (default: 127.0.0.1).")
    parser.add_argument(
        "--port", type=int, default=None, help="Port (default: Gradio's, 7860 or the next free)."
    )
    parser.add_argument(
        "--file-upload-folder", default=None, help="Accept uploads and keep them here (default: no uploads)."
    )
    parser.add_argument(
        "--allowed-file-types",
        default=None,
        help="Extensions accepted for upload, comma-separated (default: .pdf,.docx,.txt; add .png,.jpg "
        "to hand images to a vision model).",
    )
    parser.add_argument(
        "--max-upload-mb", type=float, default=20, help="The largest file accepted, in MB (default: 20)."
    )
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=32,
        help="How many browser sessions (each with its own agent and sandbox) may live at once (default: 32).",
    )
    parser.add_argument(
        "--keep-runs",
        type=int,
        default=5,
        help="Durable runs each session keeps (an agent that asks for approval runs tasks durably; default: 5).",
    )
    parser.add_argument(
        "--max-run-hours",
        type=float,
        default=24,
        help="Forget the page's durable runs last saved longer ago than this (default: 24).",
    )
    parser.add_argument(
        "--stream-outputs",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="Show the model's text as it writes it (default: when the model streams). --no-stream-outputs "
        "keeps a small model's answer drafting, which needs whole replies.",
    )
    parser.add_argument(
        "--reset-agent-memory",
        action="store_true",
        help="Forget earlier tasks at each new one (default: remember them until Reset).",
    )
    parser.set_defaults(_ui_parser=parser)


def build_agent(args: argparse.Namespace) -> Any:
    """The agent: loaded from `--agent-folder`, or built from the smolagent flags; streaming as
    `--stream-outputs` says (by default, wherever its model streams)."""
    agent: Any  # a CodeAgent or a ToolCallingAgent: both take `stream_outputs`
    if args.agent_folder:
        from smol_core.plugin_api import MultiStepAgent

        agent = MultiStepAgent.from_folder(args.agent_folder)
    else:
        from smol_core.plugin_api import agent_from_arguments, check_arguments

        check_arguments(args, args._ui_parser)
        agent = agent_from_arguments(args)
    wanted = args.stream_outputs
    agent.stream_outputs = model_streams(agent.model) if wanted is None else wanted
    return agent


def model_streams(model: Any) -> bool:
    """The model writes its reply piece by piece: its class implements streaming itself (the base
    class's `request_stream` hands over the whole reply at once, which shows nothing earlier).
    Decided from the class, so that a server model asks its server nothing before the first task."""
    from smol_core.plugin_api import Model

    kind = type(model)
    return (
        kind.request_stream is not Model.request_stream or kind.generate_stream is not Model.generate_stream
    )


def run(args: argparse.Namespace) -> int:
    import sys

    from smol_core.plugin_api import SmolError, escape_controls
    from smol_ui_gradio.run_retention import RunRetention
    from smol_ui_gradio.ui import GradioUI

    try:
        agent = build_agent(args)
    except SmolError as error:
        print(f"smol ui: {escape_controls(str(error))}", file=sys.stderr)
        return 2
    types = [t.strip() for t in (args.allowed_file_types or "").split(",") if t.strip()] or None
    try:
        ui = GradioUI(
            agent,
            file_upload_folder=args.file_upload_folder,
            reset_agent_memory=args.reset_agent_memory,
            allowed_file_types=types,
            max_upload_bytes=int(args.max_upload_mb * 1024 * 1024),
            max_sessions=args.max_sessions,
            run_retention=RunRetention(args.keep_runs, args.max_run_hours * 3600),
        )
    except ValueError as error:  # an upload type that cannot be checked from the bytes
        agent.cleanup()
        print(f"smol ui: {escape_controls(str(error))}", file=sys.stderr)
        return 2
    try:
        ui.launch(server_name=args.host, server_port=args.port)
    except KeyboardInterrupt:
        pass
    finally:
        agent.cleanup()
    return 0
