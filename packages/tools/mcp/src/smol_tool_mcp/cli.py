"""Command-line entry points: `--tools mcp:<server>` for smolagent, and `smol mcp serve`."""

from __future__ import annotations

import argparse
import atexit
import importlib
import importlib.util
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from smol_core.plugin_api import SmolError
from smol_tool_mcp.http_security import TOKEN_ENV


def server_parameters_from_text(text: str) -> Any:
    """`http(s)://...` is a streamable-HTTP server (sent `SMOL_MCP_TOKEN` as a bearer token when it is
    set); anything else is a command to run over stdio."""
    text = text.strip()
    if text.startswith(("http://", "https://")):
        params: dict[str, Any] = {"url": text, "transport": "streamable-http"}
        token = os.environ.get(TOKEN_ENV)
        if token:  # what `smol mcp serve` requires over HTTP
            params["headers"] = {"Authorization": f"Bearer {token}"}
        return params
    from mcp import StdioServerParameters

    parts = shlex.split(text)
    if not parts:
        raise SmolError(
            "mcp: needs a server, e.g. --tools 'mcp:python my_server.py' or 'mcp:http://127.0.0.1:8765/mcp'."
        )
    return StdioServerParameters(command=parts[0], args=parts[1:])


def mcp_tools(server: str, **client_kwargs: Any) -> list[Any]:
    """The tools of the MCP server named on the command line (`mcp:<command or URL>`).

    Naming a server on the command line is the user's consent to run it, so no trust flag is asked
    for. The session stays open for the life of the process (closed at exit).
    """
    from smol_tool_mcp.client import MCPClient

    client = MCPClient(server_parameters_from_text(server), **client_kwargs)
    atexit.register(client.disconnect)
    return client.get_tools()


# --- smol mcp serve ---------------------------------------------------------------------------------


def _tools_from_file(path: Path, attribute: str | None) -> list[Any]:
    """Tools defined in a Python file: one by name, or every `Tool` at module level."""
    from smol_core.plugin_api import Tool, as_tool

    spec = importlib.util.spec_from_file_location(f"_smol_mcp_tools_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise SmolError(f"Cannot import tools from {path}.")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if attribute:
        if not hasattr(module, attribute):
            raise SmolError(f"{path} defines no {attribute!r}.")
        return [as_tool(getattr(module, attribute))]
    found = [value for value in vars(module).values() if isinstance(value, Tool)]
    if not found:
        raise SmolError(f"{path} defines no tools (Tool instances or @tool functions at module level).")
    return found


def resolve_tool_entry(entry: str) -> list[Any]:
    """A `--tools` entry: a registered name (`web_search`, `mcp:<server>`), `file.py[:name]`, or `module:name`."""
    from smol_core.plugin_api import as_tool, load_tools

    head, sep, tail = entry.partition(":")
    if head.endswith(".py") or (not sep and entry.endswith(".py")):
        return _tools_from_file(Path(head), tail or None)
    try:
        return load_tools(head, tail) if sep else load_tools(head)
    except SmolError:
        if not sep or head == "mcp":
            raise
    try:
        module = importlib.import_module(head)
    except ImportError as error:
        raise SmolError(
            f"{entry!r} is neither a registered tool, a .py file, nor an importable module:attribute."
        ) from error
    return [as_tool(getattr(module, tail))]


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="mcp_command", metavar="SUBCOMMAND")
    serve = sub.add_parser("serve", help="Serve smol tools, or a saved agent, as an MCP server.")
    what = serve.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--tools",
        nargs="+",
        metavar="TOOL",
        help="Registered tool names (web_search, mcp:<server>), file.py, file.py:name or module:name.",
    )
    what.add_argument(
        "--agent-folder", help="A folder written by agent.save(): served as one tool, run(task)."
    )
    serve.add_argument("--transport", choices=["stdio", "http", "streamable-http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--path", default="/mcp", help="The HTTP endpoint's path.")
    serve.add_argument(
        "--token",
        default=None,
        help=f"HTTP: the bearer token clients must send (default: ${TOKEN_ENV}, else a new one, printed). "
        "Required to bind a non-loopback address.",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="HTTP: another Host header to accept (e.g. a reverse proxy's name); repeatable.",
    )
    serve.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="HTTP: another browser Origin to accept (e.g. https://app.example); repeatable.",
    )
    serve.add_argument(
        "--max-sessions", type=int, default=32, help="With --agent-folder: at most this many client sessions."
    )
    serve.add_argument("--name", default="smol", help="The server's name, as MCP clients see it.")
    serve.add_argument(
        "--model-type", help="With --agent-folder: run the agent on this model plugin instead."
    )
    serve.add_argument("--model-id", help="With --agent-folder and --model-type: the model id.")
    # A saved folder cannot grant itself these (security settings come from code or the command line).
    serve.add_argument(
        "--imports",
        nargs="*",
        default=None,
        help="With --agent-folder: modules the agent's code may import beyond the base set.",
    )
    serve.add_argument("--executor", default=None, help="With --agent-folder: the code executor plugin.")


def run(args: argparse.Namespace) -> int:
    if getattr(args, "mcp_command", None) != "serve":
        print(
            "usage: smol mcp serve (--tools TOOL... | --agent-folder DIR) [--transport stdio|http]",
            file=sys.stderr,
        )
        return 2
    from smol_tool_mcp.serving import serve_agent, serve_tools

    common: dict[str, Any] = {
        "transport": args.transport,
        "host": args.host,
        "port": args.port,
        "path": args.path,
        "token": args.token,
        "allowed_hosts": args.allowed_host,
        "allowed_origins": args.allowed_origin,
    }
    if args.transport != "stdio":
        from smol_tool_mcp.http_security import resolve_token

        resolve_token(args.token, args.host)  # refuse a bad bind before loading anything
    if args.agent_folder:
        serve_agent(agent_factory=_folder_agent_factory(args), max_sessions=args.max_sessions, **common)
        return 0
    tools = [tool for entry in args.tools for tool in resolve_tool_entry(entry)]
    serve_tools(tools, name=args.name, **common)
    return 0


def _folder_agent_factory(args: argparse.Namespace) -> Any:
    """Each client session loads its own agent from the folder (fresh memory, executor and model)."""
    from smol_core.plugin_api import MultiStepAgent

    def build() -> Any:
        overrides: dict[str, Any] = {}
        if args.model_type:
            from smol_core.plugin_api import load_model

            overrides["model"] = load_model(args.model_type, args.model_id)
        if args.imports is not None:
            overrides["additional_authorized_imports"] = [
                name for value in args.imports for name in value.replace(",", " ").split()
            ]
        if args.executor:
            overrides["executor_type"] = args.executor
        return MultiStepAgent.from_folder(args.agent_folder, **overrides)

    return build
