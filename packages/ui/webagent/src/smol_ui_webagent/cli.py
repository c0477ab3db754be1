"""`webagent "task"`: an agent that browses the web in a real Chromium to do the task.

The model flags are `smolagent`'s (`--model-type`, `--model-id`, `--api-base`, ...). The browser is
looked for before the model is loaded, so a machine without one hears what to install at once.
The browser reaches public internet addresses only, plus what `--allow-address` (or
`SMOL_WEB_ALLOW_PRIVATE`) allows.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

EXAMPLE_TASK = "Go to https://en.wikipedia.org/wiki/Chicago and give me a sentence with the word '1992'."


def build_parser() -> argparse.ArgumentParser:
    from smol_core.plugin_api import smolagent_parser

    parser = argparse.ArgumentParser(
        prog="webagent", description="An agent that browses the web in a real Chromium to do a task."
    )
    parser.add_argument("prompt", nargs="?", default=EXAMPLE_TASK, help="The task.")
    keep = {
        "model_type",
        "model_id",
        "api_base",
        "api_key",
        "provider",
        "max_steps",
        "verbosity_level",
        "structured",
    }
    for action in smolagent_parser()._actions:
        if action.dest in keep:
            parser._add_action(action)
    parser.add_argument(
        "--show-browser", action="store_true", help="Open a browser window (default: headless)."
    )
    parser.add_argument(
        "--page-load-timeout", type=float, default=30.0, help="Seconds a page may take to load (default: 30)."
    )
    parser.add_argument(
        "--allow-address",
        action="append",
        default=[],
        metavar="ENTRY",
        help=(
            "Let the browser reach this non-public address too (host, host:port, IP or network such as "
            "10.0.0.0/8; repeatable). By default only public internet addresses are reached."
        ),
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.max_steps is not None and args.max_steps < 1:
        parser.error(f"--max-steps must be at least 1, got {args.max_steps}")
    from smol_core.plugin_api import SmolError, build_model, escape_controls
    from smol_ui_webagent.agent import make_webagent
    from smol_ui_webagent.browser import BrowserSession, find_browser

    try:
        find_browser()
        model = build_model(args)
        with BrowserSession(
            headless=not args.show_browser,
            page_load_timeout=args.page_load_timeout,
            allow_private_addresses=args.allow_address or None,
        ) as session:
            agent = make_webagent(
                model,
                session,
                max_steps=args.max_steps or 20,
                verbosity_level=args.verbosity_level,
                use_structured_outputs_internally=args.structured,
            )
            with agent:
                answer = agent.run(args.prompt)
    except SmolError as error:
        print(f"webagent: {escape_controls(str(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("webagent: interrupted", file=sys.stderr)
        return 130
    print(escape_controls(str(answer)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
