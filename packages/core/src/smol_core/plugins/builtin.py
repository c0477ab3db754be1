"""The kernel's own tools, registered through the same hooks as any third-party plugin.

smol-core's features register from their own modules (`FEATURE_PLUGINS` in plugins/registry.py):
the local sandbox (executors/local_plugin.py), durable runs (durable/plugin.py), teams
(teams/plugin.py), the CLI (cli/plugin.py) and the test doubles (testing/plugin.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugins.hookspecs import hookimpl
from smol_core.plugins.specs import ToolSpec, lazy


@hookimpl
def smol_tools() -> Iterable[ToolSpec]:
    return [
        ToolSpec(
            "final_answer", lazy("smol_core.tools.base_tools:FinalAnswerTool"), "Ends the run with an answer."
        ),
        ToolSpec("user_input", lazy("smol_core.tools.base_tools:UserInputTool"), "Asks the user a question."),
    ]
