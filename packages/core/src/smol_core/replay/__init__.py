"""Record and replay: a run's model replies and tool results on a cassette, and the run played back
from it with no model and no tools, stopped at the first step that asks for something else."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.lazy_exports import lazy_exports

# imported on first use: registering the feature's plugin (its package) imports none of it
_EXPORTS = {
    "Cassette": "smol_core.replay.cassette",
    "CassetteError": "smol_core.replay.cassette",
    "ReplayDivergenceError": "smol_core.replay.cassette",
    "read_cassette": "smol_core.replay.cassette",
    "recording": "smol_core.replay.session",
    "replaying": "smol_core.replay.session",
}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_core.replay.cassette import (
        Cassette as Cassette,
        CassetteError as CassetteError,
        ReplayDivergenceError as ReplayDivergenceError,
        read_cassette as read_cassette,
    )
    from smol_core.replay.session import recording as recording, replaying as replaying
