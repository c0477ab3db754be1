"""Files a user uploads to the chat: checked (type from the name and the bytes, size, the session's
count and bytes), then copied into the session's upload folder.

A rejected file is answered with the reason, so the user knows what to change. A file's type is
checked from its content too (`content_types.py`): a name is what the sender chose. Each session may
keep at most `max_files` files and `max_session_bytes` bytes, so one visitor cannot fill the disk
with files that are each under the size limit; the session's folder goes when the session ends. The name is
reduced to safe characters (and given a suffix only when the folder already holds that name), so an
upload can neither leave the folder nor replace a file uploaded earlier. On the page these checks
are the last of three: Gradio refuses a file over the size limit while it is still being received
(`launch(max_file_size=...)`), and a file of another type before the handler sees it (`file_types`).
"""

from __future__ import annotations

import contextlib
import re
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from smol_ui_gradio.content_types import CHECKABLE, content_matches

DEFAULT_ALLOWED_TYPES = (".pdf", ".docx", ".txt")
"""smolagents' default: documents only. Pass `allowed_file_types` for more (images, data)."""
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
DEFAULT_MAX_FILES = 20
"""Files one session may keep at once (Reset, or the end of the session, deletes them)."""
DEFAULT_MAX_SESSION_BYTES = 100 * 1024 * 1024
IMAGE_TYPES = (".png", ".jpg", ".jpeg", ".webp")


class UploadRejected(ValueError):
    """The upload breaks a rule; the message says which, in words for the user."""


@dataclass(frozen=True)
class UploadPolicy:
    """Which files the chat accepts: extensions (lower case, with the dot; each one's content is
    checked too, so only those `content_types.CHECKABLE` knows), a size limit for one file, and how
    many files and bytes one session may keep."""

    allowed_types: tuple[str, ...] = DEFAULT_ALLOWED_TYPES
    max_bytes: int = DEFAULT_MAX_BYTES
    max_files: int = DEFAULT_MAX_FILES
    max_session_bytes: int = DEFAULT_MAX_SESSION_BYTES
    _normalised: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        normalised = frozenset(
            t.lower() if t.startswith(".") else f".{t.lower()}" for t in self.allowed_types
        )
        unknown = sorted(normalised - CHECKABLE)
        if unknown:
            raise ValueError(
                f"uploads of type {', '.join(unknown)} cannot be checked from their content, so they cannot "
                f"be accepted; types that can: {', '.join(sorted(CHECKABLE))}"
            )
        object.__setattr__(self, "_normalised", normalised)

    @property
    def types(self) -> list[str]:
        """The accepted extensions, lower case with the dot, sorted (what Gradio's `file_types` takes)."""
        return sorted(self._normalised)

    def check(self, name: str, size: int) -> None:
        """Raise `UploadRejected` with the reason when a file of this name and size breaks a rule."""
        suffix = Path(name).suffix.lower()
        if suffix not in self._normalised:
            allowed = ", ".join(sorted(self._normalised))
            raise UploadRejected(
                f"{name}: files of type {suffix or '(none)'} are not accepted (allowed: {allowed})."
            )
        if size > self.max_bytes:
            raise UploadRejected(
                f"{name}: {_megabytes(size)} is over the {_megabytes(self.max_bytes)} limit for one file."
            )

    def check_content(self, name: str, data: bytes) -> None:
        """Raise `UploadRejected` unless `data` (the file's bytes) is of the type `name` says."""
        suffix = Path(name).suffix.lower()
        if not content_matches(suffix, data):
            raise UploadRejected(f"{name}: its content is not a {suffix} file, so it is not accepted.")

    def check_room(self, name: str, size: int, folder: Path) -> None:
        """Raise `UploadRejected` when `folder` (a session's) cannot take one more file of `size` bytes."""
        kept = [p for p in folder.iterdir() if p.is_file()] if folder.is_dir() else []
        if len(kept) >= self.max_files:
            raise UploadRejected(
                f"{name}: this session already keeps {len(kept)} files, its limit: press Reset to start afresh."
            )
        held = sum(p.stat().st_size for p in kept)
        if held + size > self.max_session_bytes:
            raise UploadRejected(
                f"{name}: the session's files would take {_megabytes(held + size)}, over its "
                f"{_megabytes(self.max_session_bytes)}: press Reset to start afresh."
            )


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def safe_name(name: str) -> str:
    """The file's name reduced to letters, digits, `-`, `_` and `.` (never a path, never hidden)."""
    cleaned = re.sub(r"[^\w\-.]", "_", Path(name).name).lstrip(".")
    return cleaned or "upload"


def save_upload(
    source: str | Path, folder: Path, policy: UploadPolicy, original_name: str | None = None
) -> Path:
    """Check the upload against `policy` and copy it into `folder` under a safe name of its own."""
    path = Path(source)
    name = safe_name(original_name or path.name)
    size = path.stat().st_size
    policy.check(name, size)
    policy.check_room(name, size, folder)
    with open(path, "rb") as data:
        policy.check_content(name, data.read(policy.max_bytes + 1))
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    while True:
        try:  # "x": never replaces a file uploaded earlier, even by a request running at the same time
            with open(target, "xb") as out, open(path, "rb") as data:
                shutil.copyfileobj(data, out)
            return target
        except FileExistsError:
            target = folder / f"{Path(name).stem}-{uuid.uuid4().hex[:8]}{Path(name).suffix}"


def discard(path: str | Path) -> None:
    """Delete a file Gradio received (its copy in Gradio's cache), kept or rejected: nothing stays."""
    with contextlib.suppress(OSError):
        Path(path).unlink()
