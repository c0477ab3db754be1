"""`LlamaServer`: a real OpenAI-compatible llama.cpp server on 127.0.0.1, for clients and their tests.

    with LlamaServer() as server:                     # the embedded SmolLM2 GGUF
        model = OpenAIServerModel("smollm2", api_base=server.base_url, api_key="none")

The server runs in a child process (`python -m smol_model_llamacpp.server`), so that it has its own
threads and logs, and a crash in native code cannot take the caller down. The child binds port 0 (the
OS picks a free port: no race between choosing and binding), reports its address on stdout, and
serves until its stdin closes, which also happens when the parent dies: no orphaned servers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from smol_core.plugin_api import SmolError
from smol_model_llamacpp.embedded import resolve_model_path


class LlamaServerError(SmolError):
    """The llama.cpp server did not start or did not become healthy."""


class LlamaServer:
    """Start llama.cpp's OpenAI-compatible server for a GGUF file; stop it on exit.

    Args:
        model_path: a GGUF path or model id (see `resolve_model_path`); None for the embedded default.
        alias: the model name the server reports and accepts (`model=` in requests).
        n_ctx: total context, shared by the `n_parallel` slots.
        n_threads: CPU threads for decoding.
        api_key: require this bearer key (None: open, as is usual on loopback).
        port: 0 picks a free port.
        startup_timeout: seconds to wait for the server to be healthy.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        alias: str = "smollm2",
        n_ctx: int = 4096,
        n_threads: int | None = None,
        n_parallel: int = 1,
        api_key: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        startup_timeout: float = 60.0,
        verbose: bool = False,
    ) -> None:
        self.model_path = resolve_model_path(model_path)
        self.alias = alias
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.n_parallel = n_parallel
        self.api_key = api_key
        self.host = host
        self.port = port
        self.startup_timeout = startup_timeout
        self.verbose = verbose
        self.address: str | None = None
        self._process: subprocess.Popen[str] | None = None
        self._log: IO[str] | None = None

    # --- public ---------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """`http://127.0.0.1:PORT` (llama.cpp's own endpoints: /health, /props, /completion...)."""
        if self.address is None:
            raise LlamaServerError("The server is not running: use it as a context manager or call start().")
        return self.address

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT/v1`, the `api_base` / `base_url` of OpenAI-compatible clients."""
        return self.url + "/v1"

    @property
    def model_id(self) -> str:
        return self.alias

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> LlamaServer:
        if self.running:
            return self
        command = [
            sys.executable,
            "-m",
            "smol_model_llamacpp.server",
            "--model",
            str(self.model_path),
            "--alias",
            self.alias,
            "--n-ctx",
            str(self.n_ctx),
            "--n-parallel",
            str(self.n_parallel),
            "--host",
            self.host,
            "--port",
            str(self.port),
        ]
        if self.n_threads:
            command += ["--threads", str(self.n_threads)]
        if self.verbose:
            command += ["--verbose"]
        env = dict(os.environ)
        if self.api_key:
            env["SMOL_LLAMA_SERVER_API_KEY"] = self.api_key  # not on the command line, where ps shows it
        self._log = tempfile.TemporaryFile(mode="w+", prefix="smol-llama-server-")  # noqa: SIM115 (closed in stop)
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            env=env,
        )
        try:
            self.address = self._read_address()
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self, timeout: float = 10.0) -> None:
        process, self._process = self._process, None
        if process is not None:
            try:
                if process.stdin is not None:
                    process.stdin.close()  # the child's signal to shut down
            except OSError:
                pass
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.terminate()
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if self._log is not None:
            self._log.close()
            self._log = None
        self.address = None

    def logs(self) -> str:
        """What the server wrote to stderr so far (llama.cpp's log; verbose=True for all of it)."""
        if self._log is None:
            return ""
        self._log.flush()
        position = self._log.tell()
        self._log.seek(0)
        text = self._log.read()
        self._log.seek(position)
        return text

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = self.address if self.running else "stopped"
        return f"LlamaServer({self.model_path.name}, {state})"

    # --- internals ----------------------------------------------------------------------------------

    def _read_address(self) -> str:
        assert self._process is not None and self._process.stdout is not None
        result: dict[str, Any] = {}
        stdout = self._process.stdout

        def read() -> None:
            line = stdout.readline()
            if line:
                try:
                    result.update(json.loads(line))
                except json.JSONDecodeError:
                    result["error"] = line.strip()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(self.startup_timeout)
        if "address" in result:
            return str(result["address"])
        detail = result.get("error") or self.logs().strip()[-2000:] or "no output"
        if reader.is_alive():
            raise LlamaServerError(
                f"llama.cpp server did not start within {self.startup_timeout:.0f}s: {detail}"
            )
        raise LlamaServerError(f"llama.cpp server for {self.model_path} failed to start: {detail}")

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        last = ""
        while time.monotonic() < deadline:
            if not self.running:
                raise LlamaServerError(
                    f"llama.cpp server exited during start-up: {self.logs().strip()[-2000:]}"
                )
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError) as error:
                last = str(error)
            time.sleep(0.05)
        raise LlamaServerError(f"llama.cpp server at {self.url} never became healthy: {last}")


# --- the child process ---------------------------------------------------------------------------------


def _serve(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve a GGUF model over llama.cpp's OpenAI-compatible API.")
    parser.add_argument("--model", default=None, help="GGUF path or model id (default: the embedded model)")
    parser.add_argument("--alias", default="smollm2")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--n-parallel", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument(
        "--foreground", action="store_true", help="serve until Ctrl-C instead of until stdin closes"
    )
    args = parser.parse_args(argv)

    from smol_model_llamacpp.engine import EngineSettings, build_params, import_xllamacpp

    try:
        settings = EngineSettings(
            model_path=str(resolve_model_path(args.model)),
            n_ctx=args.n_ctx,
            n_threads=args.threads,
            n_parallel=args.n_parallel,
            host=args.host,
            port=args.port,
            api_key=os.environ.get("SMOL_LLAMA_SERVER_API_KEY") or None,
            alias=args.alias,
            verbosity=3 if args.verbose else 0,
        )
        server = import_xllamacpp().Server(build_params(settings))
    except Exception as error:
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        return 1
    print(json.dumps({"address": server.listening_address, "model": settings.model_path}), flush=True)
    try:
        if args.foreground:
            print(
                f"Serving {Path(settings.model_path).name} at {server.listening_address}/v1", file=sys.stderr
            )
            threading.Event().wait()
        else:
            sys.stdin.read()  # returns when the parent closes our stdin or dies
    except KeyboardInterrupt:
        pass
    del server
    return 0


if __name__ == "__main__":
    sys.exit(_serve())
