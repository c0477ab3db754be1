"""Benchmark: what a hostile worker costs the host, and what the checks cost an ordinary action.

Run: `hatch run dev:python bench/protocol_hostile.py`. Prints three tables:
1. every hostile case of the kit (smol_core.testing.hostile_standin) run through a local executor
   whose worker is the stand-in: wall time of the failing call, the host's RSS after it minus before
   it, and the rise of the host's peak RSS (each case runs in a freshly spawned interpreter, so its
   peak is its own);
2. the worst frames fed straight to the host's reader and decoder (the largest frame allowed, the
   most values a frame may hold, deep nesting, a PNG at the pixel limit): time and peak RSS rise;
3. the host-side cost per ordinary action of the checks (frame schema, exchange id, budgeted
   decoding, the look for unread bytes) against the permissive decoder alone, and the round trip of
   `executor("x = 1")` for scale.
"""

from __future__ import annotations

import base64
import json
import multiprocessing
import os
import resource
import secrets
import struct
import sys
import time
import zlib
from collections.abc import Callable
from typing import Any

from smol_core.executors.host.exchange import RUN_OPS
from smol_core.executors.host.frames import ProtocolLimits, check_frame
from smol_core.executors.host.link import WorkerLink
from smol_core.executors.host.process import WorkerProcess
from smol_core.executors.host.untrusted import decode_untrusted
from smol_core.executors.local import LocalPythonExecutor
from smol_core.executors.worker.framing import FrameReader, encode_message
from smol_core.executors.worker.protocol import ProtocolError, decode
from smol_core.testing.hostile_standin import TIMEOUTS, VIOLATIONS
from smol_core.testing.hostile_worker import KIT_LIMITS, standin_argv

MB = 1024 * 1024


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class _StandIn(LocalPythonExecutor):
    def open_link(self) -> WorkerLink:
        return WorkerProcess(standin_argv())


def _case_child(case: str, out: Any) -> None:
    import numpy  # noqa: F401 - imported before measuring, as a host that decoded arrays before would have
    import pandas  # noqa: F401
    from PIL import Image  # noqa: F401

    executor = _StandIn(timeout_seconds=3)
    executor.protocol_limits = KIT_LIMITS
    executor("1 + 1")
    before, high = rss(), peak()
    started = time.perf_counter()
    try:
        executor(f"hostile:{case}")
        outcome = "no error"
    except Exception as exc:
        outcome = type(exc).__name__
    elapsed = time.perf_counter() - started
    after = rss()
    ok = executor("1 + 1").output == 2
    executor.close()
    out.send((outcome, elapsed, after - before, max(0, peak() - high), ok))


def in_child(target: Callable[..., None], *args: Any) -> Any:
    parent, child = multiprocessing.Pipe()
    process = multiprocessing.get_context("spawn").Process(target=target, args=(*args, child))
    process.start()
    result = parent.recv()
    process.join()
    return result


def hostile_cases() -> None:
    print("1. Hostile cases through a local executor (stand-in worker, timeout 3 s)")
    print(f"{'case':30} {'outcome':24} {'time s':>7} {'RSS +MB':>8} {'peak +MB':>9} next call")
    worst_rss = worst_peak = 0.0
    for case in [*sorted(VIOLATIONS), *sorted(TIMEOUTS)]:
        outcome, elapsed, grown, high, ok = in_child(_case_child, case)
        worst_rss, worst_peak = max(worst_rss, grown / MB), max(worst_peak, high / MB)
        print(
            f"{case:30} {outcome:24} {elapsed:7.3f} {grown / MB:8.1f} {high / MB:9.1f} {'ok' if ok else 'FAILED'}"
        )
    print(f"worst RSS growth {worst_rss:.1f} MB, worst peak rise {worst_peak:.1f} MB\n")


def _png_at_the_limit() -> bytes:
    """An RGBA PNG of `max_image_pixels`, compressed row by row (building it costs no pixel memory)."""
    side = int(ProtocolLimits().max_image_pixels ** 0.5)
    packer = zlib.compressobj()
    row = b"\x00" * (1 + 4 * side)
    idat = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", side, side, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def _worst_frames() -> dict[str, Callable[[], bytes]]:
    limits = ProtocolLimits()
    xid = "0123456789abcdef"

    def done(output_json: bytes) -> bytes:
        body = b'{"op":"done","xid":"' + xid.encode() + b'","logs":"","output":' + output_json + b"}"
        return struct.pack(">I", len(body)) + body

    room = limits.max_frame_bytes - 200
    return {
        "largest string (16 MiB)": lambda: done(b'"' + b"y" * (room - 2) + b'"'),
        "largest bytes (16 MiB b64)": lambda: done(
            json.dumps({"__smol__": "bytes", "b64": "A" * (room // 4 * 4 - 40)}).encode()
        ),
        # A container counts twice (its bracket and the comma after it): at most half a million `{}`.
        "most values: 499,990 {}": lambda: done(b"[" + b"{}," * (limits.max_elements // 2 - 10) + b"{}]"),
        "most values: 999,990 floats": lambda: done(b"[" + b"1.5," * (limits.max_elements - 10) + b"1.5]"),
        "most values: 999,990 ''": lambda: done(b"[" + b'"",' * (limits.max_elements - 10) + b'""]'),
        "too many values (refused)": lambda: done(b"[" + b"{}," * (limits.max_elements + 10) + b"{}]"),
        "deep nesting (refused)": lambda: done(b"[" * 100_000 + b"]" * 100_000),
        "PNG at the pixel limit": lambda: done(
            json.dumps({"__smol__": "image", "png": base64.b64encode(_png_at_the_limit()).decode()}).encode()
        ),
    }


def _frame_child(name: str, out: Any) -> None:
    import numpy  # noqa: F401
    from PIL import Image  # noqa: F401

    frame = _worst_frames()[name]()
    before, high = rss(), peak()
    started = time.perf_counter()
    outcome = "decoded"
    try:
        for message in FrameReader.untrusted().feed(frame):
            check_frame(message, "0123456789abcdef", RUN_OPS)
            decode_untrusted(message["output"], ProtocolLimits(), time.monotonic() + 30)
        del message
    except ProtocolError:
        outcome = "refused"
    elapsed = time.perf_counter() - started
    out.send((outcome, len(frame), elapsed, rss() - before, max(0, peak() - high)))


def worst_frames() -> None:
    print("2. Worst frames straight into the host's reader and decoder")
    print(f"{'frame':30} {'outcome':8} {'size MB':>8} {'time s':>7} {'RSS +MB':>8} {'peak +MB':>9}")
    for name in _worst_frames():
        outcome, size, elapsed, grown, high = in_child(_frame_child, name)
        print(f"{name:30} {outcome:8} {size / MB:8.1f} {elapsed:7.3f} {grown / MB:8.1f} {high / MB:9.1f}")
    print()


def per_action_overhead() -> None:
    print("3. Host-side cost per ordinary action")
    xid = secrets.token_hex(8)
    frames = {
        "done 42": {"op": "done", "xid": xid, "output": 42, "logs": ""},
        "done dict+logs": {
            "op": "done",
            "xid": xid,
            "output": {"a": [1, 2, 3], "b": "text"},
            "logs": "hello\n",
        },
        "done tuple": {
            "op": "done",
            "xid": xid,
            "output": {"__smol__": "tuple", "items": [1, 2]},
            "logs": "",
        },
    }
    limits = ProtocolLimits()
    link = WorkerProcess(standin_argv())  # an idle worker: the look for unread bytes is one select()
    n = 20_000
    for name, template in frames.items():
        body = json.loads(encode_message(template)[4:])
        copies = [json.loads(json.dumps(body)) for _ in range(n)]
        started = time.perf_counter()
        for message in copies:
            decode(message["output"])
        old = (time.perf_counter() - started) / n
        copies = [json.loads(json.dumps(body)) for _ in range(n)]
        started = time.perf_counter()
        for message in copies:
            secrets.token_hex(8)
            check_frame(message, xid, RUN_OPS)
            decode_untrusted(message["output"], limits, time.monotonic() + 30)
            link.has_unread()
        new = (time.perf_counter() - started) / n
        print(
            f"{name:16} permissive decode {old * 1e6:6.2f} µs | checked (id, schema, budgeted decode, "
            f"unread look) {new * 1e6:6.2f} µs | added {(new - old) * 1e6:5.2f} µs"
        )
    link.close()
    executor = LocalPythonExecutor(timeout_seconds=30)
    executor("x = 1")
    times = []
    for _ in range(300):
        started = time.perf_counter()
        executor("x = 1")
        times.append(time.perf_counter() - started)
    executor.close()
    times.sort()
    print(
        f"executor('x = 1') round trip: median {times[len(times) // 2] * 1e6:.0f} µs, best {times[0] * 1e6:.0f} µs"
    )


if __name__ == "__main__":
    # `python bench/protocol_hostile.py 2 3` runs only those tables.
    chosen = set(sys.argv[1:]) or {"1", "2", "3"}
    print(f"Python {sys.version.split()[0]}, limits: {ProtocolLimits()}\n")
    for number, table in (("1", hostile_cases), ("2", worst_frames), ("3", per_action_overhead)):
        if number in chosen:
            table()
