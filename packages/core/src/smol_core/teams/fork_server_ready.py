"""Imported last in a team's fork server, once every other preload is.

Here the server imports what every agent would otherwise import on its own as it starts: the
modules of the built-in plugins (each agent builds its plugin registry from them, about 2 ms of
imports each) and the host's main script (`fork_server_path.import_host_main`; it may import any
of the preloads, so it comes last). Imported anywhere else, it only imports those plugin modules.
"""

from __future__ import annotations

import importlib

from smol_core.plugins.registry import BUILTIN_PLUGINS
from smol_core.teams.fork_server_path import import_host_main

for _module in BUILTIN_PLUGINS.values():
    importlib.import_module(_module)
import_host_main()
