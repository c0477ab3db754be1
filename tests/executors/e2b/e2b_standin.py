"""A stand-in for E2B on 127.0.0.1: the control plane (create/kill sandbox) and envd's process service.

Why a stand-in: E2B lives in a cloud our tests cannot reach. The real SDK talks to this server
exactly as to E2B (its E2B_API_URL / E2B_SANDBOX_URL settings), and the commands it starts really
run here, in subprocesses, so the executor's whole path is exercised: sandbox creation, the relay and
the bundled worker started as a background command, protocol frames over send_stdin and the stdout
stream, kills, and sandbox removal. envd's Connect endpoints are served by the SDK's own generated
server stubs (`ProcessWSGIApplication`), so requests and responses are encoded as envd encodes them.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from connectrpc.code import Code
from connectrpc.errors import ConnectError
from e2b.envd.process import process_pb
from e2b.envd.process.process_connect import ProcessWSGIApplication
from protobuf import Oneof

ENVD_VERSION = "0.5.8"


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Processes:
    """envd's process service, for real: `/bin/bash -l -c CMD` in a subprocess per Start."""

    def __init__(self, owner: StandInE2B) -> None:
        self.owner = owner
        self.procs: dict[int, subprocess.Popen[bytes]] = {}

    def _get(self, selector: Any) -> subprocess.Popen[bytes]:
        pid = selector.selector.value if selector is not None and selector.selector is not None else None
        proc = self.procs.get(pid)  # type: ignore[arg-type]
        if proc is None:
            raise ConnectError(Code.NOT_FOUND, f"process {pid} not found")
        return proc

    def start(self, request: Any, ctx: Any) -> Iterator[Any]:
        config = request.process
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": self.owner.home, "E2B_SANDBOX": "true"}
        env.update(dict(config.envs or {}))
        proc = subprocess.Popen(
            [config.cmd, *config.args],
            stdin=subprocess.PIPE if request.stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=config.cwd or self.owner.home,
            start_new_session=True,
        )
        self.procs[proc.pid] = proc
        self.owner.commands.append(config.args[-1] if config.args else config.cmd)
        events: queue.Queue[tuple[str, bytes] | None] = queue.Queue()

        def pump(stream: Any, name: str) -> None:
            for chunk in iter(lambda: os.read(stream.fileno(), 65536), b""):
                events.put((name, chunk))
            events.put(None)

        for stream, name in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
            threading.Thread(target=pump, args=(stream, name), daemon=True).start()
        yield _event("start", process_pb.ProcessEvent.StartEvent(pid=proc.pid))
        open_streams = 2
        while open_streams:
            item = events.get()
            if item is None:
                open_streams -= 1
                continue
            data = process_pb.ProcessEvent.DataEvent(output=Oneof(item[0], item[1]))
            yield _event("data", data)
        code = proc.wait()
        self.procs.pop(proc.pid, None)
        status = f"exit status {code}" if code >= 0 else f"signal: {signal.Signals(-code).name.lower()}"
        end = process_pb.ProcessEvent.EndEvent(
            exit_code=code if code >= 0 else 128 - code, exited=True, status=status
        )
        yield _event("end", end)

    def send_input(self, request: Any, ctx: Any) -> Any:
        proc = self._get(request.process)
        assert proc.stdin is not None
        try:
            proc.stdin.write(request.input.input.value)
            proc.stdin.flush()
        except OSError as exc:
            raise ConnectError(Code.FAILED_PRECONDITION, f"stdin closed: {exc}") from None
        self.owner.stdin_requests += 1
        return process_pb.SendInputResponse()

    def close_stdin(self, request: Any, ctx: Any) -> Any:
        proc = self._get(request.process)
        if proc.stdin is not None:
            proc.stdin.close()
        return process_pb.CloseStdinResponse()

    def send_signal(self, request: Any, ctx: Any) -> Any:
        proc = self._get(request.process)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # envd's SIGKILL reaches the command's process group
        self.owner.kills += 1
        return process_pb.SendSignalResponse()

    def kill_all(self) -> None:
        for proc in list(self.procs.values()):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

    def list(self, request: Any, ctx: Any) -> Any:
        raise ConnectError(Code.UNIMPLEMENTED, "not in the stand-in")

    connect = update = stream_input = list


def _event(kind: str, value: Any) -> Any:
    return process_pb.StartResponse(event=process_pb.ProcessEvent(event=Oneof(kind, value)))


class StandInE2B:
    """E2B's API and one sandbox's envd on one port. `url` is both E2B_API_URL and E2B_SANDBOX_URL."""

    def __init__(self, api_key: str = "e2b_standin_key", login_banner: str | None = None) -> None:
        self.api_key = api_key
        self.access_token = "envd-standin-token"
        self.home = tempfile.mkdtemp(prefix="e2b-standin-home-")
        if login_banner is not None:  # a template whose login shell talks (commands run under bash -l)
            with open(os.path.join(self.home, ".bash_profile"), "w") as profile:
                profile.write(f"echo {login_banner!r}\n")
        self.sandboxes: dict[str, dict[str, Any]] = {}
        self.commands: list[str] = []
        self.stdin_requests = 0
        self.kills = 0
        self.refuse_creates = False
        self._ids = itertools.count(1)
        self.processes = _Processes(self)
        self._envd = ProcessWSGIApplication(self.processes)
        self._server = make_server(
            "127.0.0.1", 0, self._app, server_class=_Server, handler_class=_QuietHandler
        )
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> StandInE2B:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.processes.kill_all()
        self._server.shutdown()
        self._server.server_close()
        shutil.rmtree(self.home, ignore_errors=True)

    def live_sandboxes(self) -> list[str]:
        return [sid for sid, info in self.sandboxes.items() if not info["killed"]]

    # --- HTTP ------------------------------------------------------------------------------
    def _app(self, environ: dict[str, Any], start_response: Any) -> Any:
        path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
        if environ.get("HTTP_TRANSFER_ENCODING", "").lower() == "chunked":
            _dechunk(environ)  # the SDK streams request bodies; wsgiref passes the raw chunks on
        sandbox = self.sandboxes.get(environ.get("HTTP_E2B_SANDBOX_ID", ""))
        if (path.startswith("/process.Process/") or path == "/health") and (
            sandbox is None or sandbox["killed"]
        ):
            # E2B's edge answers for sandboxes that are gone
            return _json(start_response, "502 Bad Gateway", {"code": 502, "message": "sandbox not found"})
        if path.startswith("/process.Process/"):
            if environ.get("HTTP_X_ACCESS_TOKEN") != self.access_token:
                return _json(start_response, "401 Unauthorized", {"code": 401, "message": "bad envd token"})
            return self._envd(environ, start_response)
        if path == "/health":
            start_response("204 No Content", [])
            return [b""]
        if environ.get("HTTP_X_API_KEY") != self.api_key:
            return _json(start_response, "401 Unauthorized", {"code": 401, "message": "Invalid API key"})
        if path == "/v2/sandboxes" and method == "POST":
            return self._create(environ, start_response)
        if path.startswith("/sandboxes/") and path.endswith("/timeout") and method == "POST":
            info = self.sandboxes.get(path.split("/")[2])
            if info is None or info["killed"]:
                return _json(start_response, "404 Not Found", {"code": 404, "message": "sandbox not found"})
            size = int(environ.get("CONTENT_LENGTH") or 0)
            info.setdefault("timeouts", []).append(json.loads(environ["wsgi.input"].read(size))["timeout"])
            start_response("204 No Content", [])
            return [b""]
        if path.startswith("/sandboxes/") and method == "DELETE":
            info = self.sandboxes.get(path.rsplit("/", 1)[1])
            if info is None or info["killed"]:
                return _json(start_response, "404 Not Found", {"code": 404, "message": "sandbox not found"})
            info["killed"] = True
            self.processes.kill_all()
            start_response("204 No Content", [])
            return [b""]
        return _json(start_response, "404 Not Found", {"code": 404, "message": f"no route {method} {path}"})

    def _create(self, environ: dict[str, Any], start_response: Any) -> Any:
        size = int(environ.get("CONTENT_LENGTH") or 0)
        body = json.loads(environ["wsgi.input"].read(size) or b"{}")
        if self.refuse_creates:
            return _json(start_response, "429 Too Many Requests", {"code": 429, "message": "rate limited"})
        sandbox_id = f"standin{next(self._ids)}"
        self.sandboxes[sandbox_id] = {"request": body, "killed": False}
        return _json(
            start_response,
            "201 Created",
            {
                "templateID": body.get("templateID", "base"),
                "sandboxID": sandbox_id,
                "clientID": "standin",
                "envdVersion": ENVD_VERSION,
                "envdAccessToken": self.access_token,
                "domain": None,
            },
        )


def _dechunk(environ: dict[str, Any]) -> None:
    """Read a chunked request body whole (the streams here carry one small message each)."""
    raw, body = environ["wsgi.input"], bytearray()
    while True:
        size = int(raw.readline().split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            while raw.readline() not in (b"\r\n", b"\n", b""):
                pass
            break
        body += raw.read(size)
        raw.readline()
    environ["wsgi.input"] = io.BytesIO(bytes(body))
    environ["CONTENT_LENGTH"] = str(len(body))
    del environ["HTTP_TRANSFER_ENCODING"]


def _json(start_response: Any, status: str, payload: dict[str, Any]) -> list[bytes]:
    data = json.dumps(payload).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
    return [data]
