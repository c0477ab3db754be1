"""The signal matrix: however a smol command ends, nothing it started is left behind.

Each cell starts a real command (a single run, a team over the local transport, `smol mcp serve`,
`smol ui`, and a team over redis where redis-server is installed) in one of three ways: directly;
under a launcher that forwards nothing (an IDE, a CI step); or under real `hatch run`, as the
README's main command runs (hatch, then `/bin/sh -c`, then the command; hatch forwards no signal
and ignores SIGINT while its command runs). It waits until the command is busy (its action spinning
in the sandbox, its port open), sends one signal, and then checks that:

- no process of the run survives: every process whose environment carries this cell's unique
  marker (scanned from /proc/*/environ), and every descendant seen while the run lived;
- no port stays open and no scratch folder stays in the run's own TMPDIR;
- stderr holds no traceback and no "leaked semaphore" warning;
- a command stopped by SIGINT, SIGTERM or SIGHUP, directly or through hatch, says so in one line and
  exits with the documented status (128 + the signal's number: 130, 143, 129), as the user's shell
  sees it.

Bounds are generous: they only catch a hang.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from smol_core.testing.processes import (
    alive,
    as_from_a_terminal,
    carrying,
    cpu_seconds,
    descendants,
    describe,
    entry_point_plugin,
    free_port,
    is_sandbox_worker,
    port_open,
    redis_server,
    silent_launcher,
)

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

MARK = "SMOL_OPS_SIGNAL_CELL"
HANG = 60.0  # seconds: only a hang takes this long


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `smol` entry point for the spinning model, on PYTHONPATH only for the commands of this module."""
    return entry_point_plugin(
        tmp_path_factory.mktemp("spinning-plugin"), "smol_spinning_model", textwrap.dedent(SPINNING_MODEL)
    )


@pytest.fixture(scope="module")
def hatch_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A hatch project whose default environment is this interpreter's: `hatch run smolagent ...` in it
    goes through hatch as a user's does (hatch, then `/bin/sh -c`, then the command) without
    building an environment (no network, no minutes)."""
    if shutil.which("hatch") is None:
        pytest.skip("hatch is not on PATH (bash scripts/test installs it)")
    project = tmp_path_factory.mktemp("hatch-project")
    (project / "hatch.toml").write_text(f'[envs.default]\npath = "{sys.prefix}"\nskip-install = true\n')
    return project


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of this module's own on a free port (the team-over-redis cells skip without one)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (scripts/setup.d/50-redis.sh)")
    with redis_server(binary, tmp_path_factory.mktemp("redis")) as url:
        yield url


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


# How the command is started: by itself (a terminal, a service manager), under a launcher that
# forwards nothing (an IDE, a CI step), or under real `hatch run`, as the README's main command is.
LAUNCHES = ["direct", "launched", "hatch"]


class Cell:
    """One command of the matrix, started as `launch` says, in a session of its own."""

    def __init__(
        self,
        kind: str,
        launch: str,
        plugin_path: Path,
        tmp: Path,
        redis: str | None = None,
        hatch_project: Path | None = None,
    ) -> None:
        self.kind, self.launch = kind, launch
        self.marker = uuid.uuid4().hex
        self.port = free_port()
        self.scratch = tmp / "scratch"
        self.scratch.mkdir(parents=True)
        env = {
            **{name: value for name, value in os.environ.items() if not name.startswith("HATCH_")},
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
        if launch == "launched":
            command = silent_launcher(command)
        elif launch == "hatch":
            assert hatch_project is not None
            env["HATCH_DATA_DIR"] = str(tmp / "hatch-data")  # hatch's own records: the test's, not the user's
            command = ["hatch", "run", *command]
        # its own session, as a terminal gives it: the test's group signals reach no one else
        self.process = subprocess.Popen(
            command,
            cwd=hatch_project,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=as_from_a_terminal,  # whatever this test run was started with (nohup)
        )
        self.seen: set[int] = set()
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stderr:  # type: ignore[union-attr]
            self.lines.append(line.decode(errors="replace"))

    def watch(self) -> set[int]:
        self.seen |= descendants(self.process.pid) | carrying(MARK, self.marker)
        return self.seen

    def busy(self) -> bool:
        """Spinning in a sandbox worker (a single run, a team) or listening on its port (servers)."""
        self.watch()
        if self.kind in ("mcp", "ui"):
            return port_open(self.port)
        # a sandbox worker that has burnt a second of CPU is in the spinning action (its start takes less)
        return any(cpu_seconds(pid) >= 1.0 for pid in self.seen if is_sandbox_worker(pid))

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
        return alive(self.seen | carrying(MARK, self.marker))

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

    def exit_status(self) -> int | None:
        """The status a shell reports (128 + the signal's number for a process a signal killed)."""
        code = self.process.returncode
        return None if code is None else 128 - code if code < 0 else code

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

    def make(kind: str, launch: str) -> Cell:
        redis = request.getfixturevalue("redis_url") if kind == "team-redis" else None
        project = request.getfixturevalue("hatch_project") if launch == "hatch" else None
        cell = Cell(kind, launch, plugin_path, tmp_path / f"cell{len(cells)}", redis, project)
        cells.append(cell)
        return cell

    yield make
    for cell in cells:
        cell.clean_up()


# Ctrl-C under hatch: the one case whose status smol cannot set. hatch ignores SIGINT while its
# command runs and exits with the command's status, but where /bin/sh is dash (Debian's), the
# `/bin/sh -c` between them neither execs the command nor waits for it: the shell dies of SIGINT at
# once, and hatch exits with its -2 as a status (254) while the command is still cleaning up. The
# command's clean-up and its one line are checked as everywhere; a /bin/sh that execs (bash) gives 130.
HATCH_CTRL_C_STATUS = 254

KINDS = ["single", "team", "team-redis", "mcp", "ui"]
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL]
PROGRAM = {"single": "smolagent", "team": "smolagent", "team-redis": "smolagent", "mcp": "smol", "ui": "smol"}


def _available(kind: str) -> None:
    import importlib.util

    needs = {"mcp": "smol_tool_mcp", "ui": "smol_ui_gradio", "team-redis": "smol_transport_redis"}.get(kind)
    if needs and importlib.util.find_spec(needs) is None:
        pytest.skip(f"{needs} is not installed")


@pytest.mark.parametrize("launch", LAUNCHES)
@pytest.mark.parametrize("signum", SIGNALS, ids=[s.name for s in SIGNALS])
@pytest.mark.parametrize("kind", KINDS)
def test_nothing_is_left_behind(start, kind: str, signum: signal.Signals, launch: str) -> None:
    _available(kind)
    cell: Cell = start(kind, launch)
    cell.wait_busy()
    before = len(cell.lines)
    if launch == "launched":
        os.kill(cell.process.pid, signum)  # `kill` of the launcher: it forwards nothing
    elif signum in (signal.SIGINT, signal.SIGHUP):
        os.killpg(cell.process.pid, signum)  # Ctrl-C, a closed terminal: the whole foreground group
    else:
        # `kill`, `timeout`, systemd, `docker stop`: to the command, or to hatch, which forwards
        # nothing (the command follows hatch through the shell between them: smol_core.cli.lifetime)
        os.kill(cell.process.pid, signum)
    problems: list[str] = []
    left = cell.leftovers()
    if left:
        problems.append(f"alive afterwards:\n{describe(left)}")
    if kind in ("mcp", "ui") and port_open(cell.port):
        problems.append(f"port {cell.port} still open")
    leftover_files = sorted(path.name for path in cell.scratch.iterdir())
    if leftover_files:
        problems.append(f"scratch left in TMPDIR: {leftover_files}")
    cell.reader.join(10)
    said = "".join(cell.lines[before:])
    if "Traceback" in said or "leaked" in said:
        problems.append(f"stderr: {said[-2000:]}")
    if launch != "launched" and signum != signal.SIGKILL:
        # what the user sees, directly or through hatch: the status and the command's one line
        expected = {128 + signum}
        if launch == "hatch" and signum == signal.SIGINT:
            expected.add(HATCH_CTRL_C_STATUS)
        if cell.exit_status() not in expected:
            problems.append(f"exit status {cell.exit_status()}, not {sorted(expected)}")
        said_lines = [line for line in said.splitlines() if line.strip()]
        if len(said_lines) != 1 or not said_lines[0].startswith(PROGRAM[kind]):
            problems.append(f"not one line on stderr: {said[-2000:]!r}")
    assert not problems, f"{signum.name} to {kind} ({launch}):\n" + "\n".join(problems)


def _shared_memory_files_of(pids: set[int]) -> set[Path]:
    """The /dev/shm files (semaphores) that `pids` have open by name, found by their inodes."""
    from smol_core.leftovers import _read_maps, _shared_memory_files

    mapped = {identity for pid in pids for identity in _shared_memory_files(_read_maps(pid))}
    shm = Path("/dev/shm")
    return {path for path in shm.glob("sem.*") if (path.lstat().st_dev, path.lstat().st_ino) in mapped}


def test_a_team_killed_with_its_whole_group_leaves_what_the_next_run_sweeps(start) -> None:
    """SIGKILL of a team's whole process group (an OOM kill of its cgroup, `docker kill`, a CI
    runner's timeout) kills its janitor and multiprocessing's resource tracker too: nothing cleans
    up at that moment. What is left (smol's folders, the fork server's folder, named semaphores)
    is removed by the next run's sweep, once it is old enough to be sure nobody is still making it."""
    from smol_core.leftovers import GRACE_SECONDS, sweep

    cell: Cell = start("team", "direct")
    cell.wait_busy()
    semaphores = _shared_memory_files_of(cell.watch())
    os.killpg(cell.process.pid, signal.SIGKILL)
    assert cell.leftovers() == set(), "a process of the killed group survived"
    left = [*cell.scratch.iterdir(), *(path for path in semaphores if path.exists())]
    then = time.time() - GRACE_SECONDS - 5
    for path in left:
        os.utime(path, (then, then), follow_symlinks=False)
    sweep(str(cell.scratch))
    assert sorted(path.name for path in left if path.exists()) == []
