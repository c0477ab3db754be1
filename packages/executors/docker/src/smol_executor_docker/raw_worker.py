"""A bare `exec` loop speaking the worker protocol: code that has already escaped the language layer.

Why it exists: the container's walls (no network, read-only root, unprivileged user, no capabilities,
limits) must hold even when the guards inside are bypassed. Tests run attack code through this loop
(`DockerExecutor(unguarded_for_tests=True)`) and check the walls directly. Never for untrusted code.
The value of the last `result = ...` assignment is returned; values cross as JSON or as their repr.
Every frame echoes the exchange id the host sent (`xid`), as the real worker's channel does.
"""

from __future__ import annotations

RAW_WORKER = """\
import contextlib, io, json, os, traceback
def _read(n):
    parts = []
    while n:
        chunk = os.read(0, n)
        if not chunk:
            raise SystemExit(0)
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)
xid = None
def _send(message):
    body = json.dumps({**message, "xid": xid}, default=repr).encode()
    data = len(body).to_bytes(4, "big") + body
    while data:
        data = data[os.write(1, data):]
namespace = {"__name__": "__main__"}
while True:
    message = json.loads(_read(int.from_bytes(_read(4), "big")))
    op = message.get("op")
    xid = message.get("xid")
    if op == "config":
        _send({"op": "ready", "pid": os.getpid(), "protections": [["language guards", False, "unguarded test loop"]]})
    elif op == "run":
        logs = io.StringIO()
        try:
            with contextlib.redirect_stdout(logs):
                exec(compile(message["code"], "<raw>", "exec"), namespace)
            _send({"op": "done", "output": namespace.pop("result", None), "logs": logs.getvalue()})
        except BaseException:
            _send({"op": "error", "kind": "runtime", "message": traceback.format_exc(), "logs": logs.getvalue()})
    else:
        _send({"op": "done", "output": None, "logs": ""})
"""
