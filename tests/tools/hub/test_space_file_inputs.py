"""A Space tool's file inputs are chosen by the model: a path on this machine is never uploaded to the
app, and a URL is fetched by the host only under smol's address policy (no loopback, private or
metadata addresses unless the user allowed them)."""

from __future__ import annotations

import http.server
import io
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from smol_tool_hub import tool_from_space

from smol_core.errors import AgentToolExecutionError

pytestmark = pytest.mark.filterwarnings(
    "ignore:.*no_silent_downcasting:Warning", "ignore:The copy keyword is deprecated:Warning"
)


def _png(size: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (size, size), (0, 0, 255)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def picture_server() -> Iterator[tuple[str, list[str]]]:
    """An internal service on 127.0.0.1 holding a picture; it records what it was asked for."""
    hits: list[str] = []
    body = _png(7)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{httpd.server_address[1]}", hits
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def _no_environment_grant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SMOL_WEB_ALLOW_PRIVATE", raising=False)


def test_a_host_path_is_never_uploaded(gradio_app: str, tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(_png(9))
    measure = tool_from_space(gradio_app, "measure", "Measures a picture.", api_name="/measure")
    for value in (str(secret), f"file://{secret}", secret):
        with pytest.raises(AgentToolExecutionError, match="never sent to a Space"):
            measure(value)


def test_a_loopback_url_is_refused_before_it_is_fetched(
    gradio_app: str, picture_server: tuple[str, list[str]]
) -> None:
    address, hits = picture_server
    measure = tool_from_space(gradio_app, "measure", "Measures a picture.", api_name="/measure")
    with pytest.raises(AgentToolExecutionError, match="loopback addresses are not allowed"):
        measure(f"http://{address}/p.png")
    with pytest.raises(AgentToolExecutionError, match="cloud metadata"):
        measure("http://169.254.169.254/latest/meta-data/p.png")
    assert hits == []


def test_an_allowed_url_is_fetched_and_sent(gradio_app: str, picture_server: tuple[str, list[str]]) -> None:
    address, hits = picture_server
    measure = tool_from_space(
        gradio_app, "measure", "Measures a picture.", api_name="/measure", allow_private_addresses=[address]
    )
    assert measure(f"http://{address}/p.png") == "7x7"
    assert hits == ["/p.png"]
