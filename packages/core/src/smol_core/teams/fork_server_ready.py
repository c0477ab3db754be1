"""Imported last in a team's fork server, once every other preload is.

Here the server does once what every agent would otherwise do on its own as it starts: import the
modules of the built-in and feature plugins (about 2 ms each agent) and those of the models the host's first
team hands its agents (`import_agent_modules`), import the host's main script
(`fork_server_path.import_host_main`; it may import any of the preloads, so it comes last), and
build a registry of the built-in plugins that each agent takes as its own (`prebuild_registry`;
after the main script, which may set the environment that selects plugins), and check the
definitions of the tools every agent makes (`warm_tool_checks`). Imported anywhere else, it does
the same for that process.
"""

from __future__ import annotations

import importlib

from smol_core.plugins.registry import BUILTIN_PLUGINS, FEATURE_PLUGINS, prebuild_registry
from smol_core.teams.fork_server_path import import_agent_modules, import_host_main
from smol_core.teams.tool_checks import warm_tool_checks

for _module in [*BUILTIN_PLUGINS.values(), *(module for module, _ in FEATURE_PLUGINS.values())]:
    importlib.import_module(_module)
import_agent_modules()
import_host_main()
prebuild_registry()
warm_tool_checks()  # after the host's script: it may register nothing, but it may set the environment
