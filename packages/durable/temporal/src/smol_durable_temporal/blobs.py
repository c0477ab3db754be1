"""`FolderStorage`: payloads too big for the history, kept in a folder the workers and clients share.

Why: Temporal refuses a payload over its blob size limit (2 MB by default), and the SDK then
retries the step forever. A run whose variables hold a big table or document has a checkpoint that
size. Temporal's Python SDK offloads such payloads to an external store (`ExternalStorage`, its
"claim check"): the history holds a reference, and each process that reads the history fetches the
payload by it. This is the store: one file per payload, named by the SHA-256 of its bytes (the
reference holds that hash and the size, and a read checks both), in a folder on a filesystem every
worker and every client reaches (NFS, a shared volume; on one machine, any folder).

The payload is stored as the codec left it: encrypted when the processes have a key
(codec.py), so the folder holds ciphertext. Files are written once (to a temporary name, then
renamed into place) and never changed; the plugin does not delete them, as a history may still
name them: remove files older than your namespace's retention period.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
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
        target = self.folder / digest
        if not target.exists():  # content-addressed: a file already there holds these bytes
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                with tempfile.NamedTemporaryFile(dir=self.folder, prefix=".part-", delete=False) as part:
                    part.write(data)
                    part.flush()
                    os.fsync(part.fileno())
                os.replace(part.name, target)
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
        path = self.folder / digest
        try:
            with path.open("rb") as file:
                data = file.read(MAX_BLOB_BYTES + 1)
        except OSError as error:
            raise BlobError(
                f"payload {digest[:16]} is not in {self.folder} ({error.strerror or error}): "
                f"give every worker and client the same folder ({BLOBS_ENV}, --blob-folder)"
            ) from None
        if len(data) != int(size) or hashlib.sha256(data).hexdigest() != digest:
            raise BlobError(
                f"payload {digest[:16]} in {self.folder} is not what was stored (its hash differs)"
            )
        return Payload.FromString(data)
