"""`connect` and `data_converter`: how the client and the workers write and read payloads.

Both sides must agree: the same key (codec.py) and the same blob folder (blobs.py). `connect`
reads them from the environment unless given (SMOL_TEMPORAL_KEY_FILE or SMOL_TEMPORAL_KEY;
SMOL_TEMPORAL_BLOBS), which is what the worker command does too, so one environment serves both.
A worker uses its client's data converter.

Failures are converted with their message encoded too (`DefaultFailureConverterWithEncodedAttributes`):
an error's text may quote a tool result, and would otherwise sit in clear in the history.
"""

from __future__ import annotations

import os
from pathlib import Path

from temporalio.client import Client
from temporalio.converter import DataConverter, DefaultFailureConverterWithEncodedAttributes, ExternalStorage

from smol_durable_temporal.blobs import BLOBS_ENV, FolderStorage
from smol_durable_temporal.codec import EncryptionCodec, key_from_environment

INLINE_LIMIT = 256 * 1024
"""Payloads bigger than this go to the blob folder (Temporal refuses them over 2 MB, and a history
is limited in total: 50 MB by default)."""


def data_converter(
    key: bytes | None = None, blob_folder: str | Path | None = None, *, inline_limit: int = INLINE_LIMIT
) -> DataConverter:
    """Payloads encrypted with `key` (32 bytes), and those over `inline_limit` stored by reference
    in `blob_folder`; either may be None (no encryption; no payload over Temporal's limit)."""
    if key is None and blob_folder is None:
        return DataConverter.default
    storage = (
        ExternalStorage(drivers=[FolderStorage(blob_folder)], payload_size_threshold=inline_limit)
        if blob_folder is not None
        else None
    )
    return DataConverter(
        payload_codec=EncryptionCodec(key) if key is not None else None,
        failure_converter_class=DefaultFailureConverterWithEncodedAttributes
        if key is not None
        else DataConverter.default.failure_converter_class,
        external_storage=storage,
    )


def data_converter_from_environment() -> DataConverter:
    """`data_converter` with SMOL_TEMPORAL_KEY_FILE / SMOL_TEMPORAL_KEY and SMOL_TEMPORAL_BLOBS."""
    return data_converter(key_from_environment(), os.environ.get(BLOBS_ENV) or None)


async def connect(
    address: str,
    *,
    namespace: str = "default",
    key: bytes | None = None,
    blob_folder: str | Path | None = None,
) -> Client:
    """A client to start and read runs with: `key` and `blob_folder` default to the environment's
    (a worker given --key-file and --blob-folder and this client must agree)."""
    key = key if key is not None else key_from_environment()
    blob_folder = blob_folder if blob_folder is not None else os.environ.get(BLOBS_ENV) or None
    return await Client.connect(address, namespace=namespace, data_converter=data_converter(key, blob_folder))


def offloads(converter: DataConverter) -> bool:
    """Whether `converter` stores big payloads by reference (else a checkpoint over Temporal's limit
    is an error a retry cannot fix)."""
    return converter.external_storage is not None
