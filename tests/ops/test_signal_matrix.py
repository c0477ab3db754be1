"""The signal matrix: however a smol command ends, nothing it started is left behind.

Each cell starts a real command (a single run, a team over the local transport, `smol mcp serve`,
`smol ui`, and a team over redis where redis-server is installed) either directly or under a launcher that forwards nothing (a Python parent standing for
`hatch run`), waits until the command is busy (its action spinning in the sandbox, its port open),
sends one signal, and then checks that:

- no process of the run survives: every process whose environment carries this cell's unique
  marker (scanned from /proc/*/environ), and every descendant seen while the run lived;
- no port stays open and no scratch folder stays in the run's own TMPDIR;
- stderr holds no traceback and no "leaked semaphore" warning;
- a command stopped directly by SIGINT, SIGTERM or SIGHUP says so in one line and exits with the
  documented status (128 + the signal's number: 130, 143, 129).

Bounds are generous: they only catch a hang.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from smol_core.testing.processes import cpu_seconds

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc"),
]

SPINNING_MODEL = '''
from smol_core import ChatMessage, Model, hookimpl
from smol_core.plugins.specs import ModelSpec

ACTION = "Thought: count for ever.\\n<code>\\nn = 0\\nwhile True:\\n    n += 1\\n</code>"


class SpinningModel(Model):
    """Every action spins in the sandbox until the run is stopped."""

    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kw):
        return ChatMessage("assistant", ACTION)


@hookimpl
def smol_models():
    return [ModelSpec("spinning", lambda **kw: SpinningModel(model_id="spinning"), "Its action never ends.")]
'''

# Stands for `hatch run`: starts the command as its child and waits, forwarding nothing.
# (Ctrl-C ends it at once, as it ends most launchers, instead of Python's KeyboardInterrupt)
LAUNCHER = (
    "import signal, subprocess, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "sys.exit(subprocess.call(sys.argv[1:]))"
)
MARK = "SMOL_OPS_SIGNAL_CELL"
HANG = 60.0  # seconds: only a hang takes this long


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `smol` entry point for the spinning model, on PYTHONPATH only for the commands of this module."""
    site = tmp_path_factory.mktemp("spinning-plugin")
    (site / "smol_spinning_model.py").write_text(textwrap.dedent(SPINNING_MODEL))
    info = site / "smol_spinning_model-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: smol-spinning-model\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[smol]\nsmol-spinning-model = smol_spinning_model\n")
    return site


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state) for every process on the machine."""
    table: dict[int, tuple[int, str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            table[int(entry)] = (int(fields[1]), fields[0])
    return table


def _marked(marker: str) -> set[int]:
    """Every process whose environment carries this cell's marker."""
    needle = f"{MARK}={marker}".encode()
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
            except OSError:
                continue
            if needle in environ.split(b"\0"):
                found.add(int(entry))
    return found


def _descendants(root: int, table: dict[int, tuple[int, str]]) -> set[int]:
    found, frontier = set(), {root}
    while frontier:
        children = {pid for pid, (ppid, _) in table.items() if ppid in frontier} - found
        found |= children
        frontier = children
    return found


def _is_sandbox_worker(pid: int) -> bool:
    try:
        return b"executors.local.worker" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _describe(pids: set[int]) -> str:
    lines = []
    for pid in sorted(pids):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:160]
        except OSError:
            command = "?"
        lines.append(f"{pid}: {command}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of this module's own on a free port (the team-over-redis cells skip without one)."""
    import shutil

    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (scripts/setup.d/50-redis.sh)")
    port = _free_port()
    folder = tmp_path_factory.mktemp("redis")
    server = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not _port_open(port):
            assert server.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(10)


def _command(kind: str, port: int, redis: str | None = None) -> list[str]:
    bin_dir = Path(sys.executable).parent
    smolagent, smol = str(bin_dir / "smolagent"), str(bin_dir / "smol")
    run = [smolagent, "Count for ever", "--model-type", "spinning", "--max-steps", "50"]
    if kind == "single":
        return [*run, "--verbosity-level", "-1"]
    # a team logs its errors (verbosity 0): an agent that printed its traceback on Ctrl-C is caught
    team = ["--num-agents", "3", "--deadline", "300", "--verbosity-level", "0"]
    if kind == "team":
        return [*run, *team]
    if kind == "team-redis":
        assert redis is not None
        return [*run, *team, "--transport", "redis", "--transport-url", redis]
    if kind == "mcp":
        return [
            smol,
            "mcp",
            "serve",
            "--tools",
            "python_interpreter",
            "--transport",
            "http",
            "--port",
            str(port),
        ]
    if kind == "ui":
        return [smol, "ui", "--model-type", "spinning", "--port", str(port), "--verbosity-level", "-1"]
    raise ValueError(kind)


class Cell:
    """One command of the matrix, started directly or under the launcher, in a session of its own."""

    def __init__(
        self, kind: str, launched: bool, plugin_path: Path, tmp: Path, redis: str | None = None
    ) -> None:
        self.kind, self.launched = kind, launched
        self.marker = uuid.uuid4().hex
        self.port = _free_port()
        self.scratch = tmp / "scratch"
        self.scratch.mkdir(parents=True)
        env = {
            **os.environ,
            MARK: self.marker,
            "PYTHONPATH": str(plugin_path),
            "PYTHONUNBUFFERED": "1",
            "TMPDIR": str(self.scratch),
            "SMOL_MCP_TOKEN": "ops-test-token-0123456789abcdef",
            # Gradio's own cache folder (shared by every Gradio app, kept on purpose) lives elsewhere
            "GRADIO_TEMP_DIR": str(tmp / "gradio-cache"),
            "GRADIO_ANALYTICS_ENABLED": "False",
        }
        command = _command(kind, self.port, redis)
        if launched:
            command = [sys.executable, "-c", LAUNCHER, *command]
        # its own session, as a terminal gives it: the test's group signals reach no one else
        self.process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.seen: set[int] = set()
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stderr:  # type: ignore[union-attr]
            self.lines.append(line.decode(errors="replace"))

    def watch(self) -> set[int]:
        table = _table()
        self.seen |= _descendants(self.process.pid, table) | _marked(self.marker)
        return self.seen

    def busy(self) -> bool:
        """Spinning in a sandbox worker (a single run, a team) or listening on its port (servers)."""
        self.watch()
        if self.kind in ("mcp", "ui"):
            return _port_open(self.port)
        # a sandbox worker that has burnt a second of CPU is in the spinning action (its start takes less)
        return any(cpu_seconds(pid) >= 1.0 for pid in self.seen if _is_sandbox_worker(pid))

    def wait_busy(self) -> None:
        deadline = time.monotonic() + 120.0
        while time.monotonic() < deadline:
            if self.busy():
                return
            if self.process.poll() is not None:
                pytest.fail(f"{self.kind} ended early:\n{''.join(self.lines)[-3000:]}")
            time.sleep(0.1)
        pytest.fail(f"{self.kind} never got busy:\n{''.join(self.lines)[-3000:]}")

    def alive(self) -> set[int]:
        table = _table()
        pids = self.seen | _marked(self.marker)
        return {pid for pid in pids if pid in table and table[pid][1] not in ("Z", "X")}

    def leftovers(self) -> set[int]:
        """What of the run is still alive once it should be gone (waits only while some is)."""
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            self.process.poll()
            left = self.alive()
            if not left and self.process.returncode is not None:
                return set()
            time.sleep(0.05)
        return self.alive()

    def clean_up(self) -> None:
        for pid in self.alive():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.wait(10)


@pytest.fixture
def start(plugin_path: Path, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[object]:
    cells: list[Cell] = []

    def make(kind: str, launched: bool) -> Cell:
        redis = request.getfixturevalue("redis_url") if kind == "team-redis" else None
        cell = Cell(kind, launched, plugin_path, tmp_path / f"cell{len(cells)}", redis)
        cells.append(cell)
        return cell

    yield make
    for cell in cells:
        cell.clean_up()


KINDS = ["single", "team", "team-redis", "mcp", "ui"]
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL]
PROGRAM = {"single": "smolagent", "team": "smolagent", "team-redis": "smolagent", "mcp": "smol", "ui": "smol"}


def _available(kind: str) -> None:
    import importlib.util

    needs = {"mcp": "smol_tool_mcp", "ui": "smol_ui_gradio", "team-redis": "smol_transport_redis"}.get(kind)
    if needs and importlib.util.find_spec(needs) is None:
        pytest.skip(f"{needs} is not installed")


@pytest.mark.parametrize("launched", [False, True], ids=["direct", "launched"])
@pytest.mark.parametrize("signum", SIGNALS, ids=[s.name for s in SIGNALS])
@pytest.mark.parametrize("kind", KINDS)
def test_nothing_is_left_behind(start, kind: str, signum: signal.Signals, launched: bool) -> None:
    _available(kind)
    cell: Cell = start(kind, launched)
    cell.wait_busy()
    before = len(cell.lines)
    if launched:
        os.kill(cell.process.pid, signum)  # `kill` of the launcher: it forwards nothing
    elif signum in (signal.SIGINT, signal.SIGHUP):
        os.killpg(cell.process.pid, signum)  # Ctrl-C, a closed terminal: the whole foreground group
    else:
        os.kill(cell.process.pid, signum)  # `kill`, `timeout`, systemd, `docker stop`
    problems: list[str] = []
    left = cell.leftovers()
    if left:
        problems.append(f"alive afterwards:\n{_describe(left)}")
    if kind in ("mcp", "ui") and _port_open(cell.port):
        problems.append(f"port {cell.port} still open")
    leftover_files = sorted(path.name for path in cell.scratch.iterdir())
    if leftover_files:
        problems.append(f"scratch left in TMPDIR: {leftover_files}")
    cell.reader.join(10)
    said = "".join(cell.lines[before:])
    if "Traceback" in said or "leaked" in said:
        problems.append(f"stderr: {said[-2000:]}")
    if not launched and signum != signal.SIGKILL:
        if cell.process.returncode != 128 + signum:
            problems.append(f"exit status {cell.process.returncode}, not {128 + signum}")
        said_lines = [line for line in said.splitlines() if line.strip()]
        if len(said_lines) != 1 or not said_lines[0].startswith(PROGRAM[kind].split()[0]):
            problems.append(f"not one line on stderr: {said[-2000:]!r}")
    assert not problems, f"{signum.name} to {kind} (launched={launched}):\n" + "\n".join(problems)
