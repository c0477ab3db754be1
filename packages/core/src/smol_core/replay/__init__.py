"""Record and replay: a run's model replies and tool results on a cassette, and the run played back
from it with no model and no tools, stopped at the first step that asks for something else."""

from smol_core.replay.cassette import Cassette, CassetteError, ReplayDivergenceError, read_cassette
from smol_core.replay.session import recording, replaying

__all__ = ["Cassette", "CassetteError", "ReplayDivergenceError", "read_cassette", "recording", "replaying"]
