"""`CommandRun`: what one `smolagent` command line will run, as the features' options shape it.

Why an object between the flags and the run: the CLI declares the agent's own flags (model, tools,
executor, budget), and each feature declares its own through `smol_run_options`
(`smol_core.plugins.specs.RunOptionSpec`): durable runs (`--run-id`, `--resume`, `--store`), record
and replay (`--record`, `--replay`), teams (`--num-agents`, `--transport`, ...). A feature's `apply`
reads its flags and says here what they change, before anything heavy happens; the CLI then runs
one agent, or hands the run to the feature that takes it over (a team), knowing no feature by name.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, NoReturn

Refuse = Callable[[str], NoReturn]


@dataclass
class CommandRun:
    """One command line's run. Features fill it in from their flags (`RunOptionSpec.apply`)."""

    args: argparse.Namespace
    refuse: Refuse
    """Ends the command with a user's mistake: one line on stderr, exit status 2."""
    task: str | None = None
    """The task when the command line gives none (a cassette's, for `--replay FILE`)."""
    needs_task: bool = True
    """False when the run has its own task already (`--resume ID`)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Fields of the agent's `AgentSettings` the flags set (`checkpoint_store` from `--store`)."""
    run_keywords: dict[str, Any] = field(default_factory=dict)
    """Keywords of the run, for one agent (`agent.run`) and a team (`run_agents`) alike (`run_id`)."""
    start: Callable[[Any], Any] | None = None
    """How one agent's run starts instead of `agent.run(task, ...)` (`agent.resume(ID)`)."""
    resume: str | None = None
    """The durable run this command continues (`--resume ID`): one agent's (`start`), or a whole
    team's when a feature runs a team (its host died: `smolagent --num-agents N --resume ID`)."""
    one_agent_only: list[str] = field(default_factory=list)
    """Why a team cannot take these flags: each a one-line refusal (`--record` tapes one agent)."""
    arounds: list[Callable[[Any], AbstractContextManager[Any]]] = field(default_factory=list)
    """Context managers around one agent's run, outermost first (a tape)."""
    exit_statuses: list[tuple[type[BaseException], int, Callable[[Any], list[str]]]] = field(
        default_factory=list
    )
    """(error, exit status, the lines after its message) for a feature's own ending of a run."""
    runner: Callable[[CommandRun, Callable[[], Any]], int] | None = None
    """A feature that runs something else than one agent (a team): `runner(run, settings)`,
    given a function that makes the agent's settings, returns the exit status."""

    def around(self, wrapper: Callable[[Any], AbstractContextManager[Any]]) -> None:
        self.arounds.append(wrapper)

    def on_error(self, error: type[BaseException], status: int, details: Callable[[Any], list[str]]) -> None:
        self.exit_statuses.append((error, status, details))

    @contextlib.contextmanager
    def wrapped(self, agent: Any) -> Iterator[None]:
        """The features' context managers around one agent's run."""
        with contextlib.ExitStack() as stack:
            for wrapper in self.arounds:
                stack.enter_context(wrapper(agent))
            yield

    def ending(self, error: BaseException) -> tuple[int, list[str]] | None:
        """The exit status and detail lines a feature gives `error`, if one does."""
        for kind, status, details in self.exit_statuses:
            if isinstance(error, kind):
                return status, details(error)
        return None
