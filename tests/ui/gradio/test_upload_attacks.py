"""Attacks on the door in front of Gradio's upload endpoint (`upload_gate.py`), by real HTTP requests
to the real Gradio server on 127.0.0.1: what anyone who reaches the port can send without the page.

Each test is an attack on a promise of the README ("a file of a refused type, by name or by bytes,
is refused before Gradio stores anything", "one client address may upload at most 30 files in 10
minutes"); those that once broke it say so."""

from __future__ import annotations

import http.client
import json
import socket
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser_kit import free_port
from page_api import call_event

from smol_core import CodeAgent
from smol_core.testing import ScriptedModel

pytest.importorskip("gradio")

from smol_ui_gradio import GradioUI  # noqa: E402
from smol_ui_gradio.upload_gate import DEFAULT_UPLOADS_PER_CLIENT  # noqa: E402

HTML = b"<html><body><script>document.title='pwned'</script></body></html>\n"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def launch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Callable[..., tuple[str, int]]]:
    """`ui.launch()` on a free port (host, port), Gradio's cache in tmp_path/'gradio-cache'."""
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio-cache"))
    launched: list[GradioUI] = []

    def start(**options: object) -> tuple[str, int]:
        agent = CodeAgent(tools=[], model=ScriptedModel([]), verbosity_level=-1)
        ui = GradioUI(agent, file_upload_folder=tmp_path / "uploads", **options)  # type: ignore[arg-type]
        port = free_port()
        ui.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
        launched.append(ui)
        return "127.0.0.1", port

    yield start
    for ui in launched:
        ui.demo.close()
        ui.sessions.close_all()


def stored(tmp_path: Path) -> list[Path]:
    return sorted(p for p in (tmp_path / "gradio-cache").rglob("*") if p.is_file())


def part(name: str, data: bytes, boundary: str, headers: str | None = None) -> bytes:
    head = headers or f'Content-Disposition: form-data; name="files"; filename="{name}"\r\n'
    return f"--{boundary}\r\n{head}Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n"


def form(parts: list[bytes], boundary: str) -> bytes:
    return b"".join(parts) + f"--{boundary}--\r\n".encode()


def post(
    server: tuple[str, int],
    body: bytes,
    boundary: str,
    extra: dict[str, str] | None = None,
    source: str | None = None,
    chunked: bool = False,
) -> tuple[int, bytes]:
    """POST `body` to /gradio_api/upload (from the address `source`, when given); status and body."""
    connection = http.client.HTTPConnection(
        *server, timeout=30, source_address=(source, 0) if source else None
    )
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", **(extra or {})}
    try:
        if chunked:
            connection.request(
                "POST",
                "/gradio_api/upload",
                body=iter([body[i : i + 4096] for i in range(0, len(body), 4096)]),
                headers={**headers, "Transfer-Encoding": "chunked"},
                encode_chunked=True,
            )
        else:
            connection.request("POST", "/gradio_api/upload", body=body, headers=headers)
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        connection.close()


def upload(server: tuple[str, int], name: str, data: bytes, **how: object) -> tuple[int, bytes]:
    boundary = uuid.uuid4().hex
    return post(server, form([part(name, data, boundary)], boundary), boundary, **how)  # type: ignore[arg-type]


# --- the bound per client address --------------------------------------------------------------


def test_many_files_in_one_request_count_as_many(
    launch: Callable[..., tuple[str, int]], tmp_path: Path
) -> None:
    """Broke: the bound counted requests, so one request of 1,000 parts (Gradio takes up to 1,000)
    stored 1,000 files, and 30 such requests 30,000, where the README promises 30 files."""
    server = launch()
    boundary = uuid.uuid4().hex
    many = [part(f"n{i}.txt", b"x\n", boundary) for i in range(DEFAULT_UPLOADS_PER_CLIENT + 10)]
    status, _ = post(server, form(many, boundary), boundary)
    assert status == 429
    assert stored(tmp_path) == []
    assert upload(server, "n.txt", b"fine\n")[0] == 200  # a refused request used none of the quota


def test_a_forwarded_for_header_from_a_client_is_not_another_address(
    launch: Callable[..., tuple[str, int]], tmp_path: Path
) -> None:
    """Held: a client that is not a trusted proxy (here 127.0.0.2; uvicorn trusts 127.0.0.1 only)
    cannot get a fresh quota by sending a new X-Forwarded-For with each upload."""
    server = launch()
    codes = [
        upload(server, "n.txt", b"x\n", source="127.0.0.2", extra={"X-Forwarded-For": f"10.0.0.{n}"})[0]
        for n in range(DEFAULT_UPLOADS_PER_CLIENT + 2)
    ]
    assert codes[DEFAULT_UPLOADS_PER_CLIENT:] == [429, 429]
    assert upload(server, "n.txt", b"x\n", source="127.0.0.3")[0] == 200  # another address has its own


# --- type confusion ------------------------------------------------------------------------------


def test_a_second_content_disposition_cannot_rename_the_file(
    launch: Callable[..., tuple[str, int]], tmp_path: Path
) -> None:
    """Broke: the door joined a part's repeated headers into one, where Gradio keeps the last, so the
    door checked `notes.txt` (HTML is valid text) and Gradio stored `page.html`."""
    server = launch()
    boundary = uuid.uuid4().hex
    headers = (
        'Content-Disposition: form-data; name="files"; filename="notes.txt"; x="\r\n'
        'Content-Disposition: form-data; name="files"; filename="page.html"\r\n'
    )
    status, answer = post(server, form([part("", HTML, boundary, headers)], boundary), boundary)
    assert status == 400, answer
    assert stored(tmp_path) == []


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("page.html", HTML),
        ("image.svg", b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>"),
        ("script.js", b"alert(1)\n"),
        ("page.html.txt.exe", b"MZ" + b"\x00" * 64),
        ("notes.txt", PNG + HTML),  # a text name on binary bytes
        ("report.pdf", HTML + b"%PDF-1.7"),  # the signature must start the file
        ("../../../outside.pdf", HTML),
        ("notes.TXT\x00.html", HTML),
        ("a" * 5000 + ".exe", b"x"),
    ],
)
def test_refused_types_are_refused_however_named(
    launch: Callable[..., tuple[str, int]], tmp_path: Path, name: str, data: bytes
) -> None:
    server = launch()
    assert upload(server, name, data)[0] in (400, 415)
    assert stored(tmp_path) == []


def test_names_that_leave_no_folder_and_huge_names_are_stored_inside_the_cache(
    launch: Callable[..., tuple[str, int]], tmp_path: Path
) -> None:
    """Held: a path in the name is reduced to its last part; a name longer than a part's headers may
    be (8 KiB, as Gradio's own parser) is refused as a malformed form."""
    server = launch()
    assert upload(server, "b" * 9000 + ".txt", b"text\n")[0] == 400
    assert stored(tmp_path) == []
    for name in ("../../../../tmp/escaped.txt", "..\\..\\escaped.txt", "b" * 150 + ".txt"):
        status, answer = upload(server, name, b"text\n")
        assert status == 200, answer
        (kept,) = json.loads(answer)
        assert Path(kept).resolve().is_relative_to((tmp_path / "gradio-cache").resolve())
    assert not (tmp_path / "escaped.txt").exists() and not Path("/tmp/escaped.txt").exists()


def test_an_html_polyglot_is_never_served_as_a_page(
    launch: Callable[..., tuple[str, int]], tmp_path: Path
) -> None:
    """Held: HTML is valid text and may be kept as `.txt`, and HTML behind a PNG signature as `.png`;
    Gradio serves each by its kept name's type, never as text/html."""
    server = launch(allowed_file_types=[".txt", ".png"])
    for name, data, kind in (("notes.txt", HTML, "text/plain"), ("image.png", PNG + HTML, "image/png")):
        status, answer = upload(server, name, data)
        assert status == 200, answer
        (kept,) = json.loads(answer)
        connection = http.client.HTTPConnection(*server, timeout=30)
        connection.request("GET", "/gradio_api/file=" + urllib.parse.quote(kept))
        served = connection.getresponse()
        served.read()
        connection.close()
        assert served.status == 200
        assert served.getheader("content-type", "").startswith(kind)


# --- bodies --------------------------------------------------------------------------------------


def test_a_chunked_body_without_a_length_is_bounded(
    launch: Callable[..., tuple[str, int]], tmp_path: Path
) -> None:
    server = launch(max_upload_bytes=100_000)
    status, _ = upload(server, "big.txt", b"x" * 1_000_000, chunked=True)
    assert status == 413
    assert upload(server, "small.txt", b"x" * 1000, chunked=True)[0] == 200
    assert [p.stat().st_size for p in stored(tmp_path)] == [1000]


def test_a_false_content_length_is_refused(launch: Callable[..., tuple[str, int]], tmp_path: Path) -> None:
    server = launch(max_upload_bytes=100_000)
    for length in ("-1", "1e9", "99999999999999999999", " 10"):
        status, _ = upload(server, "n.txt", b"x\n", extra={"Content-Length": length})
        assert status in (400, 413), length
    assert stored(tmp_path) == []


def test_slow_uploads_from_one_address_leave_room_for_others(
    launch: Callable[..., tuple[str, int]], tmp_path: Path
) -> None:
    """Broke: four bodies sent slowly (never finished) from one address held every slot of the door,
    and every other visitor's upload was refused (503) for as long as they stayed open."""
    server = launch()
    boundary = uuid.uuid4().hex
    held: list[socket.socket] = []
    refused = b""
    try:
        for _ in range(16):  # open bodies that never finish, until the door says no to this address
            sock = socket.create_connection(server, timeout=30)
            held.append(sock)
            sock.sendall(
                b"POST /gradio_api/upload HTTP/1.1\r\nHost: x\r\n"
                + f"Content-Type: multipart/form-data; boundary={boundary}\r\n".encode()
                + b"Content-Length: 100000\r\n\r\n"
                + part("slow.txt", b"x", boundary)[:40]
            )
            sock.settimeout(0.5)
            try:
                refused = sock.recv(200)
            except TimeoutError:
                continue
            if refused:
                break
        assert refused.startswith(b"HTTP/1.1 429") or refused.startswith(b"HTTP/1.1 503")
        assert upload(server, "n.txt", b"x\n", source="127.0.0.2")[0] == 200
    finally:
        for sock in held:
            sock.close()


# --- the page's own events, called without the page ------------------------------------------------


def test_the_upload_event_takes_no_file_gradio_did_not_receive(
    launch: Callable[..., tuple[str, int]], tmp_path: Path
) -> None:
    """Held: the page's upload handler copies the file it is given into the caller's session and
    deletes Gradio's copy; a caller naming another session's kept file, or any file of the host, gets
    Gradio's refusal (it was not uploaded), so nothing is copied to the caller or deleted."""
    server = launch()
    victim_folder = tmp_path / "uploads" / "session-victim"
    victim_folder.mkdir(parents=True)
    secret = victim_folder / "secret.txt"
    secret.write_text("the victim's\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("the host's\n")
    for target in (secret, outside):
        said = call_event(
            server, "on_upload", [{"path": str(target), "meta": {"_type": "gradio.FileData"}}, []], "attacker"
        )
        assert '"success":false' in said.replace(" ", "")
        assert target.exists()
    copied = [p for p in (tmp_path / "uploads").rglob("*") if p.is_file() and p.parent != victim_folder]
    assert copied == []


def test_a_made_up_session_decides_nothing(launch: Callable[..., tuple[str, int]], tmp_path: Path) -> None:
    """Held: Approve from a session id the page never gave a call to decides nothing (the key alone
    is not enough: a decision is the session's own)."""
    server = launch()
    said = call_event(server, "on_approve", ["", "0123456789ab", []], "made-up")
    assert '"success":true' in said.replace(" ", "")
    assert "Approved" not in said


def test_a_body_that_stops_arriving_gives_its_slot_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Broke: a body that stopped arriving held its slot for as long as the connection stayed open,
    so slow clients at four addresses refused every upload. Now it is answered 408 once it has paused
    `body_idle_seconds` (30 by default; 1 here), and the slot is free again."""
    from smol_ui_gradio.upload_gate import UploadGate
    from starlette.middleware import Middleware

    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio-cache"))
    agent = CodeAgent(tools=[], model=ScriptedModel([]), verbosity_level=-1)
    ui = GradioUI(agent, file_upload_folder=tmp_path / "uploads")
    gate = Middleware(UploadGate, policy=ui.upload_policy, concurrent_uploads=1, body_idle_seconds=1.0)
    demo = ui.create_app()
    port = free_port()
    demo.launch(
        server_name="127.0.0.1",
        server_port=port,
        prevent_thread_lock=True,
        quiet=True,
        app_kwargs={"middleware": [gate]},
    )
    server = ("127.0.0.1", port)
    boundary = uuid.uuid4().hex
    try:
        with socket.create_connection(server, timeout=30) as slow:
            slow.sendall(
                b"POST /gradio_api/upload HTTP/1.1\r\nHost: x\r\n"
                + f"Content-Type: multipart/form-data; boundary={boundary}\r\n".encode()
                + b"Content-Length: 100000\r\n\r\n"
                + part("slow.txt", b"x", boundary)[:40]
            )
            assert slow.recv(200).startswith(b"HTTP/1.1 408")  # it never sent the rest
            assert upload(server, "n.txt", b"x\n", source="127.0.0.2")[0] == 200  # while it stays connected
    finally:
        demo.close()
        ui.sessions.close_all()


@pytest.mark.parametrize("path", ["/gradio_api/process_recording", "/gradio_api/component_server"])
def test_files_sent_to_gradios_other_multipart_endpoints_are_refused_at_the_door(
    launch: Callable[..., tuple[str, int]], path: str
) -> None:
    """Broke: Gradio takes multipart files at two more endpoints, with no session (a screen
    recording, which it writes to its temporary folder and sends back; a component's files, up to
    1,000 of them, each up to the size limit, read into memory), which the door did not cover. The
    page uses neither: the door refuses a multipart body anywhere but at the upload endpoint."""
    server = launch()
    boundary = uuid.uuid4().hex
    body = form(
        [part("video.exe", b"MZ" + b"\x00" * 64, boundary).replace(b'name="files"', b'name="video"')],
        boundary,
    )
    connection = http.client.HTTPConnection(*server, timeout=30)
    try:
        connection.request(
            "POST", path, body=body, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
        )
        answer = connection.getresponse()
        returned = answer.read()
    finally:
        connection.close()
    assert answer.status == 415, returned
    assert b"MZ" not in returned


def test_made_up_session_ids_cannot_open_more_sessions_than_the_limit(
    launch: Callable[..., tuple[str, int]], tmp_path: Path
) -> None:
    """Held: each made-up session id is a session (an agent, a sandbox, a folder), up to
    `max_sessions`; the next one is told the page is full, in one line, and nothing is made for it."""
    server = launch(max_sessions=3)
    for n in range(3):
        assert "serves 3 sessions" not in call_event(server, "on_upload", [None, []], f"made-up-{n}")
    said = call_event(server, "on_upload", [None, []], "one-too-many")
    assert "This page already serves 3 sessions, its limit" in said
    assert len(list((tmp_path / "uploads").iterdir())) == 3
