"""`StopSequenceFilter`: a streamed reply cut at the first stop sequence, across chunk boundaries."""

from __future__ import annotations

from smol_core.messages import remove_content_after_stop_sequences

__all__ = ["StopSequenceFilter"]


class StopSequenceFilter:
    """Cut a streamed reply at the first stop sequence, across chunk boundaries.

    For servers that ignore or refuse `stop`, and for local models whose streamers hand out text in
    chunks that can split a stop string in two ("...Obs" + "ervation:"). `feed` returns the text safe
    to show now, holding back only a tail that could still grow into a stop sequence; `finish` the
    rest; `stopped` tells when to stop reading. No part of a stop sequence is ever emitted.
    """

    def __init__(self, stop_sequences: list[str] | None) -> None:
        self.stops = [s for s in stop_sequences or [] if s]
        self.buffer = ""
        self.stopped = False

    def feed(self, text: str) -> str:
        if self.stopped or not text:
            return ""
        if not self.stops:
            return text
        self.buffer += text
        cut = remove_content_after_stop_sequences(self.buffer, self.stops) or ""
        if len(cut) < len(self.buffer):
            self.stopped = True
            self.buffer = ""
            return cut
        ready = len(self.buffer) - self._longest_stop_prefix_at_end()
        out, self.buffer = self.buffer[:ready], self.buffer[ready:]
        return out

    def finish(self) -> str:
        out, self.buffer = ("" if self.stopped else self.buffer), ""
        return out

    flush = finish

    def _longest_stop_prefix_at_end(self) -> int:
        best = 0
        for stop in self.stops:
            for size in range(min(len(stop) - 1, len(self.buffer)), best, -1):
                if self.buffer.endswith(stop[:size]):
                    best = size
                    break
        return best
