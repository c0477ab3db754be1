"""llama.cpp engines: one loaded model per (file, settings), shared by every `LlamaCppModel` in the process.

xllamacpp runs llama.cpp's own C++ server in process: `Server(params)` loads the model, starts the
inference loop on native threads (the GIL is released while it decodes) and also listens for HTTP on
the address in `params`. Requests go through `handle_chat_completions` directly, without HTTP.

Loading takes a fraction of a second for the embedded model, but agents and tests build many models:
sharing the engine keeps one copy of the weights and, with a single slot, lets llama.cpp reuse the KV
cache of a prompt that grows step by step (the agent's memory), which is most of the speed of a run.
"""

from __future__ import annotations

import functools
import os
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class EngineSettings:
    """What changes the loaded engine (per-request settings such as temperature are not here)."""

    model_path: str
    n_ctx: int = 8192
    n_threads: int | None = None
    n_batch: int = 512
    n_parallel: int = 1
    n_gpu_layers: int | None = None
    chat_template: str | None = None
    host: str = "127.0.0.1"
    port: int = 0
    api_key: str | None = None
    alias: str | None = None
    verbosity: int = 0


def default_threads() -> int:
    """The cores this process may use, less those other work keeps busy (the 1-minute load average).

    llama.cpp's threads meet at a spinning barrier many times per token: when one of them waits for
    a core, the others spin until it runs again, so a thread more than the free cores costs far more
    than it brings. On a 2-core machine shared with other work (load averages 4 to 130), 2 threads
    generated 1 to 66 tokens/s (1 to 8 while other llama.cpp processes ran) where 1 thread generated
    40 to 113 (`bench/main_job_limit.py`); near idle, all cores prefill fastest. Hyper-threads gain
    nothing either. `n_threads=` overrides this.

    The load average lags: a minute after other work ended it still reads busy, and the main job
    then ran on 1 of 2 idle cores, at 2.3-2.7 times the model's limit instead of 1.4-1.6. So the
    cores counted busy are the fewer of the load average's and of the tasks runnable right now
    (`busy_now`): both must agree that other work is there.
    """
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    try:
        busy = int(os.getloadavg()[0])
    except (AttributeError, OSError):  # pragma: no cover - platforms without a load average
        busy = 0
    if busy:
        busy = min(busy, busy_now())
    return max(1, min(count, count - busy))


def busy_now(samples: int = 4, interval: float = 0.005, loadavg: str = "/proc/loadavg") -> int:
    """Tasks of other work runnable now: the fewest over a few readings, 5 ms apart, of the
    kernel's count of runnable tasks less those of this process and its descendants. Those are this
    job's own work: a fresh `smolagent` starts its sandbox (the worker template, a first worker: new
    interpreters, a few hundred milliseconds of CPU) beside the model's load, and counted as other
    work they made the main job decode on 1 of 2 idle cores. Read only where the load average says
    the machine is busy. Without that count (not Linux), as many as the load average says."""
    fewest: int | None = None
    try:
        ours = _own_process_tree()
        for reading in range(samples):
            if reading:
                time.sleep(interval)
            with open(loadavg, encoding="ascii") as handle:
                runnable = int(handle.read().split()[3].partition("/")[0]) - _runnable_threads(ours)
            fewest = runnable if fewest is None else min(fewest, runnable)
    except (OSError, ValueError, IndexError):
        fewest = None
    if fewest is None:
        try:
            return int(os.getloadavg()[0])
        except (AttributeError, OSError):  # pragma: no cover
            return 0
    return max(0, fewest)


def _own_process_tree(proc: str = "/proc") -> set[int]:
    """This process and its descendants (from each process's parent in /proc/PID/stat)."""
    parents: dict[int, int] = {}
    for entry in os.listdir(proc):
        if entry.isdigit():
            fields = _stat_fields(f"{proc}/{entry}/stat")
            if fields is not None:
                parents[int(entry)] = int(fields[1])
    tree = {os.getpid()}
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return tree


def _runnable_threads(pids: set[int], proc: str = "/proc") -> int:
    """The threads of `pids` the kernel counts as runnable (state R), the reading one included."""
    count = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"{proc}/{pid}/task")
        except OSError:
            continue  # ended meanwhile
        for task in tasks:
            fields = _stat_fields(f"{proc}/{pid}/task/{task}/stat")
            count += fields is not None and fields[0] == "R"
    return max(1, count)


def _stat_fields(path: str) -> list[str] | None:
    """A /proc stat line's fields after the command name (state first, then the parent's pid)."""
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read().rpartition(")")[2].split()
    except OSError:
        return None


def import_xllamacpp() -> Any:
    try:
        import xllamacpp
    except ImportError as error:  # pragma: no cover - the package depends on it
        raise ImportError(
            "smol-model-llamacpp needs the prebuilt llama.cpp wheel: pip install xllamacpp"
        ) from error
    return xllamacpp


def build_params(settings: EngineSettings) -> Any:
    """xllamacpp `CommonParams` for these settings."""
    xlc = import_xllamacpp()
    params = xlc.CommonParams()
    params.model.path = settings.model_path
    params.n_ctx = settings.n_ctx
    params.n_batch = settings.n_batch
    params.n_parallel = settings.n_parallel
    threads = settings.n_threads or default_threads()
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    if settings.n_gpu_layers is not None:
        params.n_gpu_layers = settings.n_gpu_layers
    if hasattr(params, "fit_params") and (settings.n_gpu_layers == 0 or not has_gpu(xlc)):
        # llama.cpp's fitting of layers and context to the free memory of the GPUs: with none, it
        # has nothing to fit, and its dry run was a quarter of the embedded model's load (0.1 s)
        params.fit_params = False
    if settings.chat_template:
        params.chat_template = settings.chat_template
    params.hostnames = [settings.host]
    params.port = settings.port
    # The in-process engine listens on loopback whether we use HTTP or not: a random key keeps other
    # local processes from using it. A served model (LlamaServer) sets its own key or none.
    params.api_keys = [settings.api_key] if settings.api_key else []
    if settings.alias:
        params.model_alias = {settings.alias}
    params.verbosity = settings.verbosity
    params.sampling.temp = 0.0
    params.sampling.top_k = 1
    return params


_GPU_TYPES = ("GGML_BACKEND_DEVICE_TYPE_GPU", "GGML_BACKEND_DEVICE_TYPE_IGPU")


@functools.cache
def has_gpu(xlc: Any) -> bool:
    """Whether llama.cpp sees a GPU (dedicated or integrated) to offload layers to."""
    try:
        devices = xlc.get_device_info()
    except Exception:  # an older wheel without it: let llama.cpp fit as it always did
        return True
    return any(getattr(device.get("type"), "name", "") in _GPU_TYPES for device in devices)


@dataclass
class Engine:
    settings: EngineSettings
    server: Any
    users: int = 0

    @property
    def address(self) -> str:
        return str(self.server.listening_address)


_ENGINES: dict[EngineSettings, Engine] = {}
_LOCK = threading.Lock()


def acquire_engine(settings: EngineSettings) -> Engine:
    """The shared engine for these settings, loading the model on first use."""
    if not Path(settings.model_path).is_file():
        raise FileNotFoundError(f"No GGUF file at {settings.model_path}")
    with _LOCK:
        engine = _ENGINES.get(settings)
        if engine is None:
            xlc = import_xllamacpp()
            private = settings if settings.api_key else _with_private_key(settings)
            engine = Engine(settings, xlc.Server(build_params(private)))
            _ENGINES[settings] = engine
        engine.users += 1
        return engine


def release_engine(engine: Engine) -> None:
    """Drop one user; the model is unloaded when the last one goes."""
    with _LOCK:
        engine.users -= 1
        if engine.users <= 0 and _ENGINES.get(engine.settings) is engine:
            del _ENGINES[engine.settings]
            engine.server = None


def loaded_engines() -> list[Engine]:
    with _LOCK:
        return list(_ENGINES.values())


def _with_private_key(settings: EngineSettings) -> EngineSettings:
    from dataclasses import replace

    return replace(settings, api_key=secrets.token_urlsafe(16))
