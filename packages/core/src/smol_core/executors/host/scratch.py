"""Scratch folders on the host: one per executor, named after the host process that made it.

Why the process id in the name: a folder is removed when its executor closes or the host exits, but
a host killed outright (`kill -9`, the OOM killer) runs no clean-up and leaves it behind (empty: the
files live in the worker's own tmpfs), unless its janitor (`smol_core.janitor`) removes it. The
next host to make a scratch folder removes those whose host is gone (`smol_core.leftovers`), so they
do not pile up in the temporary directory.
"""

from __future__ import annotations

import os
import tempfile

PREFIX = "smol-scratch-"


_kept_in: str | None = None


def keep_scratch_in(folder: str) -> None:
    """Make this process's scratch folders inside `folder`, a private folder that whoever started
    this process removes once it has ended, however it ended (a team's agent: the team's folder,
    which the host removes, or its janitor if the host is killed). Such a process needs no janitor
    of its own and has nothing to sweep: a janitor is a new interpreter, about 7 ms of CPU that each
    agent of a team paid as it started, and a sweep lists the whole temporary directory."""
    global _kept_in
    _kept_in = folder


def make_scratch() -> str:
    """A new scratch folder for this process; first (now and then), what dead runs left goes."""
    from smol_core.janitor import remove_when_gone
    from smol_core.leftovers import owned_prefix, sweep_now_and_then

    if _kept_in is not None and os.path.isdir(_kept_in):
        return tempfile.mkdtemp(prefix=owned_prefix(PREFIX), dir=_kept_in)
    sweep_now_and_then()
    folder = tempfile.mkdtemp(prefix=owned_prefix(PREFIX))
    remove_when_gone(folder)  # even if this host is killed outright
    return folder
