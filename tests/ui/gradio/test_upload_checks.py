"""Uploads are kept only when their bytes are of an accepted type, within the session's count and byte
limits; Gradio's upload endpoint, reached without the page, refuses the same files before it stores
anything (it used to keep any file up to 20 MB, of any type, with no session and no count limit)."""

from __future__ import annotations

import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser_kit import free_port

from smol_core import CodeAgent
from smol_core.testing import ScriptedModel

pytest.importorskip("gradio")

from smol_ui_gradio import GradioUI  # noqa: E402
from smol_ui_gradio.uploads import UploadPolicy, UploadRejected, save_upload  # noqa: E402

ELF = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 200


def _file(folder: Path, name: str, data: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("notes.txt", ELF),
        ("notes.txt", b"\xff\xfe not utf-8 \xc3"),
        ("report.pdf", b"<html><script>alert(1)</script></html>"),
        ("letter.docx", b"%PDF-1.7 a pdf named as a document"),
    ],
)
def test_a_file_whose_bytes_are_not_its_type_is_refused(tmp_path: Path, name: str, data: bytes) -> None:
    with pytest.raises(UploadRejected, match="its content is not a"):
        save_upload(_file(tmp_path / "in", name, data), tmp_path / "kept", UploadPolicy())
    assert not (tmp_path / "kept").exists() or list((tmp_path / "kept").iterdir()) == []


def test_files_of_their_type_are_kept(tmp_path: Path) -> None:
    policy = UploadPolicy()
    for name, data in (
        ("notes.txt", "héllo\n".encode()),
        ("report.pdf", b"%PDF-1.7\n"),
        ("a.docx", b"PK\x03\x04"),
    ):
        assert save_upload(_file(tmp_path / "in", name, data), tmp_path / "kept", policy).read_bytes() == data


def test_a_type_that_cannot_be_checked_cannot_be_accepted() -> None:
    with pytest.raises(ValueError, match=r"\.exe cannot be checked from their content"):
        UploadPolicy(allowed_types=(".txt", ".exe"))


def test_a_session_keeps_a_bounded_number_of_files_and_bytes(tmp_path: Path) -> None:
    with CodeAgent(tools=[], model=ScriptedModel([]), verbosity_level=-1) as agent:
        ui = GradioUI(agent, file_upload_folder=tmp_path / "up", max_uploads_per_session=2)
        session = ui.sessions.get("visitor")
        try:
            note = _file(tmp_path / "in", "n.txt", b"note")
            for _ in range(2):
                assert ui.accept_upload(str(note), [], session.folder)[0].startswith("File uploaded")
            status, files, said = ui.accept_upload(str(note), [], session.folder)
            assert status == "Too many files" and files == [] and "already keeps 2 files" in said
            assert session.folder is not None and len(list(session.folder.iterdir())) == 2
        finally:
            ui.sessions.close_all()
    policy = UploadPolicy(max_session_bytes=10)
    save_upload(_file(tmp_path / "in", "a.txt", b"123456"), tmp_path / "s", policy)
    with pytest.raises(UploadRejected, match="over its 0.0 MB"):
        save_upload(_file(tmp_path / "in", "b.txt", b"123456"), tmp_path / "s", policy)


@pytest.fixture
def launch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Callable[[GradioUI], str]]:
    """`ui.launch()` on a free port of 127.0.0.1, Gradio's cache in tmp_path/'gradio-cache'."""
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio-cache"))
    launched: list[GradioUI] = []

    def start(ui: GradioUI) -> str:
        port = free_port()
        ui.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
        launched.append(ui)
        return f"http://127.0.0.1:{port}/"

    yield start
    for ui in launched:
        ui.demo.close()
        ui.sessions.close_all()


def _post(url: str, name: str, data: bytes) -> int:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        url + "gradio_api/upload",
        data=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 (127.0.0.1 only)
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return int(refused.code)


def _stored(tmp_path: Path) -> list[Path]:
    return [p for p in (tmp_path / "gradio-cache").rglob("*") if p.is_file()]


def test_the_upload_endpoint_refuses_before_storing(
    launch: Callable[[GradioUI], str], tmp_path: Path
) -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([]), verbosity_level=-1)
    url = launch(GradioUI(agent, file_upload_folder=tmp_path / "uploads"))
    before = _stored(tmp_path)
    assert _post(url, "tool.exe", ELF) == 415  # a type the page refuses
    assert _post(url, "notes.txt", ELF) == 415  # an accepted name on other bytes
    assert _stored(tmp_path) == before
    assert _post(url, "notes.txt", b"fine\n") == 200
    assert any(p.read_bytes() == b"fine\n" for p in _stored(tmp_path))


def test_the_upload_endpoint_bounds_uploads_per_client(
    launch: Callable[[GradioUI], str], tmp_path: Path
) -> None:
    from smol_ui_gradio.upload_gate import DEFAULT_UPLOADS_PER_CLIENT

    agent = CodeAgent(tools=[], model=ScriptedModel([]), verbosity_level=-1)
    url = launch(GradioUI(agent, file_upload_folder=tmp_path / "uploads"))
    codes = [_post(url, "n.txt", b"x") for _ in range(DEFAULT_UPLOADS_PER_CLIENT + 2)]
    assert codes[:DEFAULT_UPLOADS_PER_CLIENT] == [200] * DEFAULT_UPLOADS_PER_CLIENT
    assert codes[DEFAULT_UPLOADS_PER_CLIENT:] == [429, 429]
