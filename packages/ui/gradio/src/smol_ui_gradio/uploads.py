"""Files a user uploads to the chat: checked (type, size), then copied into the upload folder.

A rejected file is answered with the reason, so the user knows what to change. The name is
reduced to safe characters and made unique, so an upload can neither leave the folder nor replace
a file uploaded earlier.
"""

from __future__ import annotations

import re
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_ALLOWED_TYPES = (".pdf", ".docx", ".txt", ".csv", ".json", ".md", ".png", ".jpg", ".jpeg", ".webp")
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
    """Check the upload against `policy` and copy it into `folder` under a fresh, safe name."""
    path = Path(source)
    name = safe_name(original_name or path.name)
    policy.check(name, path.stat().st_size)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{Path(name).stem}-{uuid.uuid4().hex[:8]}{Path(name).suffix}"
    shutil.copyfile(path, target)
    return target
