"""Cut a stream of text at the first stop sequence without ever emitting part of one.

A model stops *after* it has written a stop string, and a streamer hands out text in chunks that can
split a stop string in two ("...Obs" + "ervation:"). So text that could still grow into a stop
sequence is held back until it either completes one (and is dropped) or cannot any more.
"""

from __future__ import annotations


class StopSequenceCutter:
    def __init__(self, stop_sequences: list[str] | None) -> None:
        self.stops = [s for s in stop_sequences or [] if s]
        self.pending = ""
        self.stopped = False

    def feed(self, text: str) -> str:
        """Text that is safe to emit now; empty once a stop sequence has been seen."""
        if self.stopped:
            return ""
        self.pending += text
        cuts = [i for i in (self.pending.find(s) for s in self.stops) if i != -1]
        if cuts:
            self.stopped = True
            out, self.pending = self.pending[: min(cuts)], ""
            return out
        hold = self._longest_stop_prefix_at_end()
        out = self.pending[: len(self.pending) - hold]
        self.pending = self.pending[len(out) :]
        return out

    def flush(self) -> str:
        out, self.pending = ("" if self.stopped else self.pending), ""
        return out

    def _longest_stop_prefix_at_end(self) -> int:
        best = 0
        for stop in self.stops:
            for size in range(min(len(stop) - 1, len(self.pending)), best, -1):
                if self.pending.endswith(stop[:size]):
                    best = size
                    break
        return best
