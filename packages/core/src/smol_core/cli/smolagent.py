"""`smolagent "task"`: run an agent from the command line.

With no model flags it runs the embedded default model (smol-model-llamacpp), offline. Logs go to
stderr and the final answer alone to stdout, so `answer=$(smolagent "...")` works.

The command declares the agent's own flags (task, model, tools, executor, budget, tracing); each
feature adds its own through `smol_run_options` (durable runs, record and replay, teams) and says
what they change in the command's run (`CommandRun`, cli/command_run.py). One path runs one agent;
a feature that runs something else (a team) takes the run over.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn, cast

from smol_core.cli.command_run import CommandRun, Refuse

if TYPE_CHECKING:
    from smol_core.plugins.specs import ModelSpec, RunOptionSpec

DEFAULT_MODEL_TYPE = "llamacpp"


def build_parser() -> argparse.ArgumentParser:
    """Every flag: the agent's own, then each installed feature's (an argument group each)."""
    from smol_core.cli.usage import CommandParser

    parser = CommandParser(
        prog="smolagent",
        description="Run an agent that thinks in code. With no model flags, the embedded offline model runs.",
    )
    _task_arguments(parser)
    _model_arguments(parser)
    _agent_arguments(parser)
    _budget_arguments(parser)
    parser.add_argument(
        "--trace-file",
        default=None,
        help="Write the run's spans as OTLP JSON lines to this file (needs smol-telemetry-otel; "
        "`smol trace FILE` prints them). Same as SMOL_TRACE_FILE.",
    )
    for spec in _run_option_specs():
        spec.configure(parser)
    return parser


def _run_option_specs() -> list[RunOptionSpec]:
    from smol_core.plugins.registry import get_registry

    return cast("list[RunOptionSpec]", get_registry().specs("run_options"))


def _task_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "prompt",
        nargs="?",
        help="The task for the agent; `-` reads it from standard input (or use --task-file).",
    )
    parser.add_argument(
        "--task-file",
        default=None,
        help="Read the task from this file (for tasks too long for a command line).",
    )


def _model_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model-type",
        default=os.environ.get("SMOL_MODEL_TYPE", DEFAULT_MODEL_TYPE),
        help="A model plugin name (llamacpp, openai, litellm, inference, transformers, ...) or a smolagents "
        "class name such as LiteLLMModel. Default: the embedded llama.cpp model.",
    )
    parser.add_argument("--model-id", default=os.environ.get("SMOL_MODEL_ID"), help="Model id or local path.")
    parser.add_argument("--api-base", default=None, help="Base URL of an API server.")
    parser.add_argument(
        "--api-key", default=None, help="API key (better: the provider's environment variable)."
    )
    parser.add_argument("--provider", default=None, help="Inference provider (for the Hugging Face client).")
    parser.add_argument(
        "--model-kwargs",
        default=None,
        metavar="JSON",
        help="More arguments for the model, as a JSON object: e.g. '{\"n_ctx\": 16384}' (the llamacpp "
        "model's context window) or '{\"timeout\": 300}' (seconds to wait for a slow server's reply).",
    )
    parser.add_argument(
        "--small",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="Prompt the model as a small one (compact prompt, worked examples, grammar), or not; default: "
        "learned from the model file or its server (llamacpp, openai and litellm models).",
    )
    parser.add_argument(
        "--structured",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="Constrained decoding: every reply is a well-formed action. Default: on for models that "
        "decode under a grammar (the embedded llama.cpp model), off otherwise.",
    )


def _agent_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--action-type",
        choices=["code", "tool_calling"],
        default="code",
        help="CodeAgent or ToolCallingAgent.",
    )
    parser.add_argument(
        "--imports", nargs="*", default=[], help="Extra importable modules, e.g. --imports pandas numpy."
    )
    parser.add_argument(
        "--tools", nargs="*", default=[], help="Tools by name, e.g. web_search visit_webpage mcp:<cmd>."
    )
    parser.add_argument(
        "--executor", "--executor-type", dest="executor", default="local", help="Code executor plugin."
    )
    parser.add_argument("--max-steps", type=int, default=None, help="Step budget (at least 1).")
    parser.add_argument(
        "--verbosity-level",
        type=int,
        choices=[-1, 0, 1, 2],
        default=1,
        help="-1 silent, 0 errors, 1 steps, 2 debug.",
    )


def _budget_arguments(parser: argparse.ArgumentParser) -> None:
    budget = parser.add_argument_group(
        "budget",
        "Stop the run before a step that would go past one of these (exit status 3; a durable "
        "run resumes with --resume ID and a larger budget).",
    )
    budget.add_argument(
        "--budget-tokens", type=int, default=None, metavar="N", help="Input plus output tokens."
    )
    budget.add_argument(
        "--budget-cost",
        type=float,
        default=None,
        metavar="USD",
        help="Dollars, as the model plugin prices calls.",
    )
    budget.add_argument("--budget-seconds", type=float, default=None, metavar="S", help="Wall time in steps.")
    budget.add_argument("--budget-steps", type=int, default=None, metavar="N", help="Action steps.")


def _budget(args: argparse.Namespace) -> Any:
    """The `--budget-*` flags as a `RunBudget`, or None when none is given (a team's agents get one each)."""
    from smol_core.agents.budget import RunBudget

    limits = {kind: getattr(args, f"budget_{kind}") for kind in ("tokens", "cost", "seconds", "steps")}
    return RunBudget(**limits) if any(value is not None for value in limits.values()) else None


def command_run(args: argparse.Namespace, refuse: Refuse) -> CommandRun:
    """The command's run as every installed feature's flags shape it; `refuse` ends a mistake."""
    run = CommandRun(args, refuse)
    for spec in _run_option_specs():
        spec.apply(args, run)
    if run.runner is not None and run.one_agent_only:
        refuse(run.one_agent_only[0])
    return run


def _raise_mistake(message: str) -> NoReturn:
    from smol_core.errors import SmolError

    raise SmolError(message)


def _split(values: Sequence[str]) -> list[str]:
    """Names separated by spaces or commas; a `family:argument` entry keeps the rest of its string,
    so that `--tools "web_search mcp:python server.py"` gives `web_search` and `mcp:python server.py`."""
    names: list[str] = []
    for value in values:
        words = value.replace(",", " ").split()
        for position, word in enumerate(words):
            if ":" in word:
                names.append(" ".join(words[position:]))
                break
            names.append(word)
    return names


def resolve_model_type(model_type: str) -> str:
    """Accept our plugin names and smolagents' class names (`LiteLLMModel` -> `litellm`)."""
    from smol_core.plugins.registry import get_registry

    registry = get_registry()
    names = registry.names("models")
    if model_type in names:
        return model_type
    for spec in cast("list[ModelSpec]", registry.specs("models", include_test_doubles=True)):
        target = getattr(spec.factory, "target", "")
        if target.endswith(f":{model_type}") or model_type in spec.aliases:
            return spec.name
    return model_type  # the registry's error will list what is installed


def parse_model_kwargs(text: str | None) -> dict[str, Any]:
    """`--model-kwargs`: a JSON object of keyword arguments for the model; ValueError says what is wrong."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"--model-kwargs is not JSON ({error}): give an object, e.g. '{{\"n_ctx\": 16384}}'"
        ) from error
    if not isinstance(value, dict):
        raise ValueError("--model-kwargs must be a JSON object, e.g. '{\"n_ctx\": 16384}'")
    if "model_id" in value:
        raise ValueError("--model-kwargs cannot set model_id: use --model-id")
    return value


def model_keywords(args: argparse.Namespace) -> dict[str, Any]:
    """The model options the flags set (endpoint, key, provider, --model-kwargs), for one model or a
    team's. A dedicated flag wins over the same name in --model-kwargs."""
    options = {"api_base": args.api_base, "api_key": args.api_key, "provider": args.provider}
    chosen: dict[str, Any] = dict(parse_model_kwargs(getattr(args, "model_kwargs", None)))
    chosen.update({name: value for name, value in options.items() if value})
    if getattr(args, "small", None) is not None:  # the user's word beats what is detected
        chosen["small"] = args.small
    return chosen


def build_model(args: argparse.Namespace) -> Any:
    from smol_core.loading import load_model

    return load_model(resolve_model_type(args.model_type), args.model_id, **model_keywords(args))


def read_task(args: argparse.Namespace, parser: argparse.ArgumentParser, run: CommandRun) -> str | None:
    """The task from the argument, `-` (standard input), `--task-file` or a feature (a cassette's);
    None for a run that has its own (`--resume`); an empty task is refused."""
    if not run.needs_task:
        return None
    if args.task_file is not None and args.prompt is not None:
        parser.error("give the task either as an argument or with --task-file, not both")
    if args.task_file is not None:
        try:
            with open(args.task_file, encoding="utf-8") as handle:
                task = handle.read()
        except (OSError, UnicodeDecodeError) as error:
            parser.error(f"cannot read --task-file {args.task_file!r}: {error}")
    elif args.prompt == "-":
        task = sys.stdin.read()
    elif args.prompt is None and run.task is not None:
        task = run.task
    elif args.prompt is None:
        parser.error("no task: give it as an argument, `-` for standard input, or --task-file PATH")
    else:
        task = args.prompt
    if not task.strip():
        parser.error("the task is empty: say what the agent should do")
    return task


def check_arguments(
    args: argparse.Namespace, parser: argparse.ArgumentParser, run: CommandRun | None = None
) -> CommandRun:
    """Every argument is checked before anything heavy happens (loading a model takes seconds):
    a mistake is one line on stderr and exit status 2, never a traceback or a run that goes nowhere.
    The features' flags are checked as they shape the run (`command_run`), which is returned."""
    if run is None:
        run = command_run(args, parser.error)
    try:
        parse_model_kwargs(args.model_kwargs)
    except ValueError as error:
        parser.error(str(error))
    if args.max_steps is not None and args.max_steps < 1:
        parser.error(f"--max-steps must be at least 1, got {args.max_steps}")
    _check_trace_file(args, parser)
    if args.provider:
        _check_provider(args, parser)
    if args.action_type == "code":
        _check_executor(args, parser)
    _check_imports(args, parser)
    return run


def _check_trace_file(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    import importlib.util

    if args.trace_file and importlib.util.find_spec("smol_telemetry_otel") is None:
        from smol_core.install_advice import install_hint

        parser.error(
            f"--trace-file needs the plugin package 'smol-telemetry-otel': {install_hint('smol-telemetry-otel')}"
        )


def _check_executor(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    from smol_core.errors import SmolError
    from smol_core.plugins.registry import get_registry

    try:
        get_registry().executor(args.executor)
    except SmolError as error:
        parser.error(str(error))


def _check_imports(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    import importlib.util

    for module in _split(args.imports):
        name = module.removesuffix(".*")
        if name == "*":
            continue
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            parser.error(f"--imports names {module!r}, which is not installed: install it or drop it")


def _check_provider(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """`--provider` is an inference provider of the Hugging Face client: a model that takes none would
    send it to its API as a request option, which the server refuses at the first step."""
    from smol_core.errors import SmolError
    from smol_core.loading import model_parameters

    try:
        parameters = model_parameters(resolve_model_type(args.model_type))
    except SmolError:
        return  # an unknown model type: building it says so, with what is installed
    if parameters and "provider" not in parameters:
        parser.error(
            f"--provider is for models that choose an inference provider (InferenceClientModel); "
            f"{args.model_type} takes none"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """`smolagent`: exit status 0 (answered), 1 (no answer), 2 (an error, one line on stderr), 3 (the
    budget ran out), another a feature gives its own ending (4: a replay that differs from its tape),
    or 128 + the signal that stopped it (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)."""
    from smol_core.cli.lifetime import start_command, stopped_status

    if argv is None:  # the real command, not a call from Python (a test, a UI plugin)
        # a killed `hatch run` (or any launcher) takes the run and its workers with it; SIGTERM and
        # SIGHUP unwind like Ctrl-C, so whatever the run started is stopped before it exits
        start_command()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        run = command_run(args, parser.error)
        args.prompt = read_task(args, parser, run)
        check_arguments(args, parser, run)
        return _run(args, run)
    except KeyboardInterrupt as stop:
        return stopped_status("smolagent", stop)


def _run(args: argparse.Namespace, run: CommandRun) -> int:
    """The checked command line's run: one agent's, or what a feature takes over (a team)."""
    _trace_to_file(args.trace_file)
    if run.runner is not None:
        return run.runner(run, lambda: _team_settings(args, args.num_agents))
    return _run_one_agent(args, run)


def _run_one_agent(args: argparse.Namespace, run: CommandRun) -> int:
    from smol_core.agents.parsing import as_text
    from smol_core.errors import AgentGenerationError, SmolError
    from smol_core.terminal import escape_controls

    try:
        # stdout is the answer's alone: whatever a plugin or its SDK prints while the model is built
        # and the run goes (LiteLLM's banners, a library's notices) goes to stderr with the log
        with contextlib.redirect_stdout(sys.stderr):
            agent = agent_from_arguments(args, run)
            # the error that ends the run is this command's last line: the log does not say it first
            agent.logger.caller_reports_run_end = True
            from smol_core.cli.progress import status_line

            # on a terminal, a status line says what the step is doing (nothing extra in a pipe or file)
            with agent, status_line(sys.stderr, quiet=args.verbosity_level <= 0), run.wrapped(agent):
                if run.start is not None:
                    answer = run.start(agent)
                else:
                    answer = agent.run(args.prompt, max_steps=args.max_steps, **run.run_keywords)
    # A model that cannot answer at all (a task longer than its context, a server that refuses) ends
    # the run: the user gets its reason in one line, not the agent loop's traceback.
    except (SmolError, AgentGenerationError) as error:
        return _report_ending(error, run)
    ran_out = _ran_out_of_steps(agent)
    if ran_out is not None:
        # the model's last words are not an answer: a script reading stdout must be able to tell
        print(f"smolagent: no answer: {ran_out}", file=sys.stderr)
        return 1
    # the answer was written by the model or the sandbox: no escape sequence reaches the terminal
    print(escape_controls(as_text(answer)))
    return 0


def _report_ending(error: Exception, run: CommandRun) -> int:
    """The error that ended the run, in one line (then a feature's detail lines: a replay's diff);
    the exit status: the feature's, 3 for a budget that ran out, else 2."""
    from smol_core.errors import BudgetExceededError
    from smol_core.terminal import escape_controls

    status, details = run.ending(error) or (3 if isinstance(error, BudgetExceededError) else 2, [])
    print(f"smolagent: {escape_controls(str(error))}", file=sys.stderr)
    for line in details:
        print(escape_controls(line), file=sys.stderr)
    return status


def _ran_out_of_steps(agent: Any) -> str | None:
    """Why the run gave no final answer, where its steps ran out before the model called
    `final_answer` (smolagents then asks the model for its best words, which are not an answer)."""
    from smol_core.errors import AgentMaxStepsError

    steps = getattr(agent.memory, "steps", [])
    last = steps[-1] if steps else None
    if not isinstance(getattr(last, "error", None), AgentMaxStepsError):
        return None
    taken = getattr(last, "step_number", 1) - 1
    return (
        f"the run took its {taken} step(s) (--max-steps) without calling final_answer; "
        "give it more steps (--max-steps N) or a more capable model (--model-type, --model-id)"
    )


def _trace_to_file(path: str | None) -> None:
    """`--trace-file`: set through the environment, so that a team's agent processes trace too."""
    if not path:
        return
    os.environ["SMOL_TRACE_FILE"] = os.path.abspath(path)


def agent_settings(args: argparse.Namespace, run: CommandRun | None = None) -> Any:
    """The agent the flags describe, as data (agents/settings.py): the one description the command,
    `smol ui` and each agent of a team build their agent from; the features' flags set theirs
    (`run.settings`: a durable run's `--store`)."""
    from smol_core.agents.settings import AgentSettings

    if run is None:
        run = command_run(args, _raise_mistake)
    return AgentSettings(
        model_type=resolve_model_type(args.model_type),
        model_id=args.model_id,
        model_kwargs=model_keywords(args),
        action_type=args.action_type,
        tools=tuple(_split(args.tools)),
        additional_authorized_imports=tuple(_split(args.imports)),
        executor_type=args.executor,
        max_steps=args.max_steps or 20,
        verbosity_level=args.verbosity_level,
        structured=args.structured,
        budget=_budget(args),
        **run.settings,
    )


def _team_settings(args: argparse.Namespace, num_agents: int) -> Any:
    """Each agent's settings: the flags' agent, its model built in the agent's own process."""
    return agent_settings(args)


def smolagent_parser() -> argparse.ArgumentParser:
    """The `smolagent` flags, for a command plugin (a UI) that takes the same ones."""
    return build_parser()


def agent_from_arguments(args: argparse.Namespace, run: CommandRun | None = None) -> Any:
    """The agent that `smolagent` flags describe (after `check_arguments`): its model, tools, executor."""
    import dataclasses

    from smol_core.agents.settings import build_agent

    return build_agent(dataclasses.replace(agent_settings(args, run), model=build_model(args)))


if __name__ == "__main__":
    raise SystemExit(main())
