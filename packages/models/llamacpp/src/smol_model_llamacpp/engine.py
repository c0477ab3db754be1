"""llama.cpp engines: one loaded model per (file, settings), shared by every `LlamaCppModel` in the process.

xllamacpp runs llama.cpp's own C++ server in process: `Server(params)` loads the model, starts the
inference loop on native threads (the GIL is released while it decodes) and also listens for HTTP on
the address in `params`. Requests go through `handle_chat_completions` directly, without HTTP.

Loading takes a fraction of a second for the embedded model, but agents and tests build many models:
sharing the engine keeps one copy of the weights and, with a single slot, lets llama.cpp reuse the KV
cache of a prompt that grows step by step (the agent's memory), which is most of the speed of a run.
"""

from __future__ import annotations

import os
import secrets
import threading
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
    40 to 113 (`bench/main_job_limit.py`); near idle, all cores prefill fastest. Hyper-threads gain nothing either. `n_threads=` overrides this.
    """
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    try:
        busy = int(os.getloadavg()[0])
    except (AttributeError, OSError):  # pragma: no cover - platforms without a load average
        busy = 0
    return max(1, min(count, count - busy))


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
