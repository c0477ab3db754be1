"""`FolderStorage`: payloads too big for the history, kept in a folder the workers and clients share.

Why: Temporal refuses a payload over its blob size limit (2 MB by default), and the SDK then
retries the step forever. A run whose variables hold a big table or document has a checkpoint that
size. Temporal's Python SDK offloads such payloads to an external store (`ExternalStorage`, its
"claim check"): the history holds a reference, and each process that reads the history fetches the
payload by it. This is the store: one file per payload, named by the SHA-256 of its bytes (the
reference holds that hash and the size, and a read checks both), in a folder on a filesystem every
worker and every client reaches (NFS, a shared volume; on one machine, any folder).

The payload is stored as the codec left it: encrypted when the processes have a key
(codec.py), so the folder holds ciphertext. Each store writes its file whole (to a temporary name,
then renamed into place, over whatever had that name), and a read takes only a plain file of the
size the reference names whose SHA-256 is its name (no link, no FIFO, no device); the plugin does not delete them, as a history may still
name them: remove files older than your namespace's retention period.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
import re
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path

from temporalio.api.common.v1 import Payload
from temporalio.converter import (
    StorageDriver,
    StorageDriverClaim,
    StorageDriverRetrieveContext,
    StorageDriverStoreContext,
)

from smol_core.plugin_api import SmolError

BLOBS_ENV = "SMOL_TEMPORAL_BLOBS"
MAX_BLOB_BYTES = 96 * 1024 * 1024
"""The biggest payload read back (a checkpoint may be 64 MiB; base64 and encryption add a third)."""
_SHA256 = re.compile(r"[0-9a-f]{64}")


class BlobError(SmolError):
    """A payload stored by reference that cannot be stored or read back (one line)."""


class FolderStorage(StorageDriver):
    """Payloads as files named by their SHA-256, in `folder` (made if missing)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def name(self) -> str:
        return "smol-folder"

    async def store(
        self, context: StorageDriverStoreContext, payloads: Sequence[Payload]
    ) -> list[StorageDriverClaim]:
        return await asyncio.to_thread(lambda: [self._store(payload) for payload in payloads])

    async def retrieve(
        self, context: StorageDriverRetrieveContext, claims: Sequence[StorageDriverClaim]
    ) -> list[Payload]:
        return await asyncio.to_thread(lambda: [self._retrieve(claim) for claim in claims])

    def _store(self, payload: Payload) -> StorageDriverClaim:
        data = payload.SerializeToString()
        digest = hashlib.sha256(data).hexdigest()
        # written every time, even when a file of that name exists: a file someone else put there
        # (its name is known in advance when payloads are not encrypted) must not stand for these bytes
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.folder, prefix=".part-", delete=False) as part:
                part.write(data)
                part.flush()
                os.fsync(part.fileno())
            os.replace(part.name, self.folder / digest)
        except OSError as error:
            raise BlobError(
                f"cannot store a payload of {len(data):,} bytes in {self.folder} ({error.strerror or error})"
            ) from None
        return StorageDriverClaim({"sha256": digest, "size": str(len(data))})

    def _retrieve(self, claim: StorageDriverClaim) -> Payload:
        digest, size = claim.claim_data.get("sha256", ""), claim.claim_data.get("size", "")
        if _SHA256.fullmatch(digest) is None or not size.isdigit() or int(size) > MAX_BLOB_BYTES:
            raise BlobError(
                f"a payload reference that names no stored payload: {dict(claim.claim_data)!r:.200}"
            )
        data = self._read(digest, int(size))
        if len(data) != int(size) or hashlib.sha256(data).hexdigest() != digest:
            raise BlobError(
                f"payload {digest[:16]} in {self.folder} is not what was stored (its hash differs)"
            )
        return Payload.FromString(data)

    def _read(self, digest: str, size: int) -> bytes:
        """The bytes of the file named `digest`, if it is a plain file of `size` bytes. Opened
        without following a link and without waiting (a FIFO put in its place would block the read
        for ever), and checked before a byte is read: whoever else can write the folder can swap it."""
        path = self.folder / digest
        try:
            descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise BlobError(
                    f"payload {digest[:16]} in {self.folder} is a link, not a stored payload"
                ) from None
            raise BlobError(
                f"payload {digest[:16]} is not in {self.folder} ({error.strerror or error}): "
                f"give every worker and client the same folder ({BLOBS_ENV}, --blob-folder)"
            ) from None
        with os.fdopen(descriptor, "rb") as file:
            found = os.fstat(file.fileno())
            if not stat.S_ISREG(found.st_mode) or found.st_size != size:
                raise BlobError(
                    f"payload {digest[:16]} in {self.folder} is not what was stored "
                    f"(not a file of {size:,} bytes)"
                )
            return file.read(size + 1)
