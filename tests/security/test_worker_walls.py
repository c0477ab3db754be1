"""The worker's walls: its protocol channel, descriptors, sockets, scratch size and readable folders.

Each attack must end in InterpreterError, leave the host's secrets and files untouched, forge no
frame (nothing marked ESCAPED comes back) and leave the executor usable. Key attacks run with every
OS layer on, and again with each layer off, to show that the others hold.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from layer_helpers import ALL_ON, LAYER_CHOICES, LayeredExecutor, active, layered
from security_helpers import CANARY, assert_host_untouched

from smol_core.executors.base import InterpreterError
from smol_core.executors.worker.audit import python_read_roots

FORGED_DONE = "{'op': 'done', 'output': 'ESCAPED', 'logs': 'ESCAPED'}"

# (id, authorized imports, code): routes from the code to the worker's own protocol channel
CHANNEL_ATTACKS: list[tuple[str, list[str], str]] = [
    ("stdout_channel_forges_frame", ["sys"], f"import sys\nsys.stdout.channel.send({FORGED_DONE})"),
    ("stdout_buffer", ["sys"], "import sys\nsys.stdout.buffer.write(b'ESCAPED')"),
    ("stdout_fileno", ["sys"], "import sys\nsys.stdout.fileno()"),
    (
        "task_loop_selector_map",
        [],
        "import asyncio\nasync def m():\n    loop = asyncio.current_task().get_loop()\n"
        "    return [k.fd for k in loop._selector.get_map().values()]\nawait m()",
    ),
    (
        "task_private_loop_by_getattr",
        [],
        "import asyncio\nasync def m():\n    return getattr(asyncio.current_task(), '_lo' + 'op')\nawait m()",
    ),
    (
        "get_loop_by_getattr_add_reader",
        [],
        "import asyncio\nasync def m():\n    loop = getattr(asyncio.current_task(), 'get_' + 'loop')()\n"
        "    watched = []\n    for fd in range(3, 256):\n        try:\n"
        "            loop.add_reader(fd, print)\n            watched.append(fd)\n        except OSError:\n"
        "            pass\n    print('ESCAPED', watched)\nawait m()",
    ),
    (
        "future_get_loop_selector",
        [],
        "import asyncio\nasync def m():\n    f = asyncio.ensure_future(asyncio.sleep(0))\n"
        "    return [k.fd for k in f.get_loop()._selector.get_map().values()]\nawait m()",
    ),
    ("codecs_open_fd_0", ["codecs"], "import codecs\ncodecs.open(0, 'rb').read()"),
    ("codecs_open_fd_high", ["codecs"], "import codecs\ncodecs.open(200, 'wb').write(b'ESCAPED')"),
    (
        "socket_fromfd",
        ["socket"],
        "import socket\nsocket.fromfd(0, socket.AF_UNIX, socket.SOCK_STREAM)",
    ),
    ("socket_from_fileno", ["socket"], "import socket\nsocket.socket(fileno=1)"),
    ("os_listdir_fd", ["os"], "import os\nos.listdir(3)"),
    (
        "unix_socket_by_path",
        ["socket"],
        "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect('/run/docker.sock')",
    ),
]

KEY_CHANNEL_ATTACKS = {
    "stdout_channel_forges_frame",
    "task_private_loop_by_getattr",
    "get_loop_by_getattr_add_reader",
    "codecs_open_fd_0",
    "socket_fromfd",
}


@pytest.fixture(scope="module")
def layered_executors(host_canary) -> Iterator[dict[tuple[str, tuple[str, ...]], LayeredExecutor]]:
    made: dict[tuple[str, tuple[str, ...]], LayeredExecutor] = {}
    yield made
    for ex in made.values():
        ex.close()


def _executor(cache: dict, choice: str, authorized: list[str]) -> LayeredExecutor:
    key = (choice, tuple(sorted(authorized)))
    if key not in cache:
        cache[key] = layered(choice, authorized)
    return cache[key]


def _assert_stopped(ex: LayeredExecutor, host_canary: Path, code: str) -> str:
    with pytest.raises(InterpreterError) as info:
        out = ex(code)
        pytest.fail(f"not stopped: output={out.output!r} logs={out.logs!r}")
    logs = info.value.logs or ""
    assert "ESCAPED" not in logs and CANARY not in logs and CANARY not in str(info.value)
    assert_host_untouched(host_canary)
    assert ex("sum(range(4))").output == 6, "the executor must work after the attack"
    return str(info.value)


@pytest.mark.parametrize(
    ("authorized", "code"), [c[1:] for c in CHANNEL_ATTACKS], ids=[c[0] for c in CHANNEL_ATTACKS]
)
def test_channel_is_out_of_reach(layered_executors, host_canary, authorized, code):
    _assert_stopped(_executor(layered_executors, ALL_ON, authorized), host_canary, code)


@pytest.mark.parametrize("choice", LAYER_CHOICES)
@pytest.mark.parametrize(
    ("authorized", "code"),
    [c[1:] for c in CHANNEL_ATTACKS if c[0] in KEY_CHANNEL_ATTACKS],
    ids=[c[0] for c in CHANNEL_ATTACKS if c[0] in KEY_CHANNEL_ATTACKS],
)
def test_channel_holds_with_each_layer_off(layered_executors, host_canary, choice, authorized, code):
    _assert_stopped(_executor(layered_executors, choice, authorized), host_canary, code)


def test_concurrent_tool_calls_still_use_the_event_loop(layered_executors, host_canary):
    ex = _executor(layered_executors, ALL_ON, [])

    async def double(x: int) -> int:
        return 2 * x

    ex.send_tools({"double": double})
    out = ex("import asyncio\nr = await asyncio.gather(double(1), double(2), double(3))\nr")
    assert out.output == [2, 4, 6]
    assert ex("import asyncio\nasync def f():\n    return 5\nasyncio.run(f())").output == 5


@pytest.mark.parametrize("choice", LAYER_CHOICES)
def test_path_object_cannot_switch_paths_after_the_check(layered_executors, host_canary, choice):
    """The audit hook sees the caller's object: one whose __fspath__ answers differently the second
    time must not be checked with one path and opened with another."""
    code = (
        "import codecs\n"
        "class P:\n"
        "    calls = 0\n"
        "    def __fspath__(self):\n"
        "        P.calls += 1\n"
        f"        return {str(host_canary)!r} if P.calls == 1 else 'notes.txt'\n"
        "print('ESCAPED' if b'canary' in codecs.open(P()).read() else 'no')"
    )
    _assert_stopped(_executor(layered_executors, choice, ["codecs"]), host_canary, code)


# --- read access: the installation, never a project folder ----------------------------------------
def _editable_package_file() -> Path | None:
    """A file of another editable smol package (its source folder is on sys.path, its repo next to it)."""
    for name in ("smol_tool_web", "smol_executor_docker", "smol_model_openai"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin and "site-packages" not in spec.origin:
            return Path(spec.origin)
    return None


def test_read_roots_hold_no_project_folder():
    repo = Path(__file__).resolve().parents[2]
    roots = [Path(r).resolve() for r in python_read_roots()]
    own = repo / "packages" / "core" / "src" / "smol_core"
    for root in roots:
        assert root not in repo.parents and root != repo, f"{root} holds the repository"
        if repo in root.parents:
            assert root == own or own in root.parents or "site-packages" in root.parts, root


@pytest.mark.parametrize("choice", LAYER_CHOICES)
def test_editable_project_files_are_not_readable(layered_executors, host_canary, choice):
    target = _editable_package_file()
    if target is None:
        pytest.skip("no other editable smol package is installed here")
    code = f"import pathlib\nprint('ESCAPED', pathlib.Path({str(target)!r}).read_text()[:10])"
    _assert_stopped(_executor(layered_executors, choice, ["pathlib"]), host_canary, code)


def test_repository_git_folder_is_not_readable(layered_executors, host_canary):
    head = Path(__file__).resolve().parents[2] / ".git" / "HEAD"
    code = f"import pathlib\nprint('ESCAPED', pathlib.Path({str(head)!r}).read_text())"
    _assert_stopped(_executor(layered_executors, ALL_ON, ["pathlib"]), host_canary, code)


# --- scratch space: limited in total, and gone with the executor ----------------------------------
@pytest.mark.parametrize("choice", [ALL_ON, "mount namespace", "namespaces"])
def test_scratch_total_size_is_limited(host_canary, choice):
    ex = layered(choice, ["pathlib"], scratch_limit_mb=8)
    try:
        code = "import pathlib\nfor i in range(6):\n    pathlib.Path(f'f{i}.bin').write_bytes(b'x' * (3 * 2**20))"
        message = _assert_stopped(ex, host_canary, code)
        assert "scratch" in message or "No space" in message or "File too large" in message
        # deleting makes room again
        ex("import pathlib\nfor p in pathlib.Path('.').glob('f*.bin'):\n    p.unlink()")
        assert ex("import pathlib\npathlib.Path('ok.txt').write_text('fine')").output == 4
    finally:
        scratch = ex._scratch
        ex.close()
    assert scratch is not None and not os.path.exists(scratch), "the scratch folder outlived the executor"


def test_scratch_files_live_in_the_worker_tmpfs(host_canary):
    ex = layered(ALL_ON, ["pathlib"])
    try:
        if not active(ex).get("mount namespace"):
            pytest.skip("no mount namespace on this machine")
        assert ex("import pathlib\npathlib.Path('notes.txt').write_text('hello')\n1").output == 1
        assert ex("import pathlib\npathlib.Path('notes.txt').read_text()").output == "hello"
        assert ex._scratch is not None and os.listdir(ex._scratch) == [], "files reached the host's folder"
    finally:
        ex.close()


def test_protection_report_names_the_new_layers(host_canary):
    ex = layered(ALL_ON, [])
    try:
        names = active(ex)
    finally:
        ex.close()
    for name in ("uts namespace", "mount namespace", "unprivileged user", "action time limit (kernel)"):
        assert name in names, name
    assert names["action time limit (kernel)"] is True and names["dies with its host"] is True


# --- seccomp, checked directly in a child process -------------------------------------------------
SECCOMP_PROBE = r"""
import ctypes, errno, json, os, socket, sys
from smol_core.executors.worker import seccomp
name, ok, detail = seccomp.apply()
assert ok, detail
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
parent = os.getppid()
out = {}
def call(label, *args):
    ctypes.set_errno(0)
    result = libc.syscall(*[ctypes.c_long(a) for a in args])
    out[label] = ctypes.get_errno() if result == -1 else "allowed"
try:
    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    out["socket_unix"] = "allowed"
except OSError as exc:
    out["socket_unix"] = exc.errno
a, b = socket.socketpair()  # asyncio's self-pipe must still work
out["socketpair"] = "allowed"
call("tgkill_parent", 234, parent, parent, 0)
call("tkill_parent", 200, parent, 0)
call("rt_sigqueueinfo", 129, parent, 0, 0)
call("io_uring_setup", 425, 1, 0)
call("open_by_handle_at", 304, -100, 0, 0)
call("x32_getpid", 0x40000000 | 39)
call("pidfd_open", 434, parent, 0)
call("kexec_file_load", 320, -1, -1, 0, 0, 0)
call("fsopen", 430, 0, 0)
print(json.dumps(out))
"""


@pytest.mark.skipif(
    platform.machine() != "x86_64" or not sys.platform.startswith("linux"), reason="x86_64 Linux"
)
def test_seccomp_denies_unix_sockets_signals_and_other_abis(tmp_path):
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [sys.executable, "-c", SECCOMP_PROBE], capture_output=True, text=True, env=env, timeout=60
    )
    if "filter refused" in proc.stderr or "not supported" in proc.stderr:
        pytest.skip("seccomp is not available here")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out.pop("socketpair") == "allowed"
    assert out.pop("socket_unix") == 13  # EACCES
    assert all(value == 1 for value in out.values()), out  # EPERM everywhere else
