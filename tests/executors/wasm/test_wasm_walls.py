"""The walls outside the language guards: Python code that reached JavaScript still meets Node's walls.

Runs hostile code in place of the worker (so no guard applies), through the executor's real Node
command line: the `js` bridge is used directly to reach Node's `process` object.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess

import pytest

HOSTILE = r"""
import js
probe = js.setTimeout.constructor('''
const out = {};
const attempt = (name, fn) => {
  try { out[name] = String(fn()); } catch (e) { out[name] = "refused: " + (e.code || e.message); }
};
attempt("fs_binding", () => Object.keys(process.binding("fs")).length);
attempt("spawn_binding", () => Object.keys(process.binding("spawn_sync")).length);
attempt("host_pid_visible", () => process.kill(HOST_PID, 0));
attempt("env", () => JSON.stringify(process.env));
attempt("dlopen", () => process.dlopen({exports: {}}, "/usr/lib/x86_64-linux-gnu/libz.so.1"));
attempt("may_read_host_files", () => process.permission.has("fs.read", "/etc/passwd"));
attempt("may_write_files", () => process.permission.has("fs.write", "/tmp"));
attempt("may_start_processes", () => process.permission.has("child"));
return JSON.stringify(out);
''')
print(probe())
"""


@pytest.fixture
def run_hostile(wasm_runtime):
    from smol_executor_wasm.process import NODE_ENV
    from smol_executor_wasm.runtime import locate

    runtime = locate()

    def run(main: str) -> dict[str, str]:
        boot = json.dumps({"op": "boot", "files": {}, "main": main, "env": {}}).encode()
        proc = subprocess.run(
            runtime.command(),
            input=struct.pack(">I", len(boot)) + boot,
            capture_output=True,
            env=dict(NODE_ENV),
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        return json.loads(proc.stdout.decode().strip().splitlines()[-1])

    return run


def test_node_walls_hold_without_the_guards(run_hostile, monkeypatch):
    monkeypatch.setenv("SMOL_WALLS_SECRET", "s3cret")
    out = run_hostile(HOSTILE.replace("HOST_PID", str(os.getpid())))
    assert out["fs_binding"].startswith("refused"), out  # no file system access beyond Pyodide's files
    assert out["spawn_binding"].startswith("refused"), out  # no processes
    assert out["dlopen"].startswith("refused"), out  # no native code
    assert (out["may_read_host_files"], out["may_write_files"], out["may_start_processes"]) == (
        "false",
        "false",
        "false",
    )
    assert "s3cret" not in out["env"] and "SMOL_WALLS_SECRET" not in out["env"]
    from smol_executor_wasm.runtime import namespace_prefix

    if namespace_prefix():
        assert out["host_pid_visible"].startswith("refused: ESRCH"), out  # a PID namespace of its own
