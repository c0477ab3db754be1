"""Files a user uploads to the chat: checked (type, size), then copied into the upload folder.

A rejected file is answered with the reason, so the user knows what to change. The name is
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

DEFAULT_ALLOWED_TYPES = (".pdf", ".docx", ".txt")
"""smolagents' default: documents only. Pass `allowed_file_types` for more (images, data)."""
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
IMAGE_TYPES = (".png", ".jpg", ".jpeg", ".webp")


class UploadRejected(ValueError):
    """The upload breaks a rule; the message says which, in words for the user."""


@dataclass(frozen=True)
class UploadPolicy:
    """Which files the chat accepts: extensions (lower case, with the dot) and a size limit."""

    allowed_types: tuple[str, ...] = DEFAULT_ALLOWED_TYPES
    max_bytes: int = DEFAULT_MAX_BYTES
    _normalised: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "_normalised",
            frozenset(t.lower() if t.startswith(".") else f".{t.lower()}" for t in self.allowed_types),
        )

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
    policy.check(name, path.stat().st_size)
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
