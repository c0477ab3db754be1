"""What a file is, from its bytes: an upload is kept only when its content is of the type its name says.

Why from the bytes: a name is what the sender chose. A page that accepts `.txt` and `.pdf` kept an
executable, an archive or an HTML page named `notes.txt`, and a file of any type at all when it was
sent to Gradio's upload endpoint directly. Each accepted extension has a check here: a signature at
the start of the file for binary formats, valid UTF-8 without NUL bytes for text. An extension with no
check here cannot be accepted (`UploadPolicy` refuses it when the page is made), so nothing is kept
on the strength of its name alone.
"""

from __future__ import annotations

from collections.abc import Callable

HEAD_BYTES = 16
"""How many bytes at the start of a file the signatures need."""


def _starts(*prefixes: bytes) -> Callable[[bytes], bool]:
    return lambda data: any(data.startswith(prefix) for prefix in prefixes)


def _riff(kind: bytes) -> Callable[[bytes], bool]:
    return lambda data: data[:4] == b"RIFF" and data[8:12] == kind


def is_text(data: bytes) -> bool:
    """UTF-8 (a BOM allowed) with no NUL byte: what a text file is, and a binary almost never is."""
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_ZIP = _starts(b"PK\x03\x04")
SIGNATURES: dict[str, Callable[[bytes], bool]] = {
    ".pdf": _starts(b"%PDF-"),
    ".docx": _ZIP,
    ".xlsx": _ZIP,
    ".pptx": _ZIP,
    ".zip": _ZIP,
    ".png": _starts(b"\x89PNG\r\n\x1a\n"),
    ".jpg": _starts(b"\xff\xd8\xff"),
    ".jpeg": _starts(b"\xff\xd8\xff"),
    ".gif": _starts(b"GIF87a", b"GIF89a"),
    ".webp": _riff(b"WEBP"),
    ".wav": _riff(b"WAVE"),
    ".mp3": _starts(b"ID3", b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"),
}
"""Binary types: their signature, checked on the first `HEAD_BYTES` bytes."""
TEXT_TYPES = frozenset({".txt", ".md", ".csv", ".tsv", ".json", ".jsonl", ".xml", ".yaml", ".yml", ".log"})
"""Text types: the whole file must be text (`is_text`)."""
CHECKABLE = frozenset(SIGNATURES) | TEXT_TYPES


def content_matches(suffix: str, data: bytes) -> bool:
    """Whether `data` (the whole file for a text type, at least its head for the others) is a file of
    type `suffix` (lower case, with the dot)."""
    if suffix in TEXT_TYPES:
        return is_text(data)
    check = SIGNATURES.get(suffix)
    return check is not None and check(data[:HEAD_BYTES])
