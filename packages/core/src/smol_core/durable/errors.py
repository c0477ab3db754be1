"""The errors of durable runs, each one line that says what went wrong and what to do.

Why a family of its own: a checkpoint is a file a user keeps for days and may move between machines
and smol versions, so what can go wrong with it (a corrupt blob, a file from another program, another
format version, a store that cannot be written, a run already taken by another process) must reach
the user as a clear sentence, never as a traceback from `json` or `sqlite3`, and never cost the
stored checkpoint: every error here is raised before anything is overwritten.

    SmolError
     └── CheckpointError               a run's checkpoint cannot be used
          ├── CheckpointFormatError    corrupt, foreign or from another format / smol version
          ├── RunNotFoundError         no run of that id in the store
          ├── RunFinishedError         the run ended: nothing to resume, and its id is taken
          ├── RunLockedError           another live process holds the run's lease
          └── StoreUnavailableError    the store cannot be opened, read or written
"""

from __future__ import annotations

from smol_core.errors import SmolError


class CheckpointError(SmolError):
    """A durable run's checkpoint cannot be saved or used."""


class CheckpointFormatError(CheckpointError):
    """A stored checkpoint is corrupt, not smol's, or written by another format or smol version."""


class RunNotFoundError(CheckpointError, LookupError):
    """No run of this id in the store."""


class RunFinishedError(CheckpointError):
    """The run already ended: it cannot be resumed, and its id cannot start a new run."""


class ApprovalKeyError(CheckpointError):
    """The key a person decided on is not the key of the call the run waits for now: the call
    waiting changed (or was never this one), so the decision is refused."""


class RunLockedError(CheckpointError):
    """Another live process holds this run's lease: two copies of one run must never go on."""


class StoreUnavailableError(CheckpointError):
    """The checkpoint store cannot be opened, read or written (a read-only folder, a locked or broken file)."""


class ApprovalPendingError(SmolError):
    """A durable run paused before a tool call that needs a person's approval; the checkpoint is
    saved, and `approve`/`deny` (or `smol runs approve|deny`) then `resume` goes on."""


class ToolCallDeniedError(SmolError):
    """A person denied a tool call a durable run paused for: the call is not made, and the model
    reads why (the note) as the call's error."""
