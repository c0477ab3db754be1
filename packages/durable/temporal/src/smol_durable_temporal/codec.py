"""`EncryptionCodec`: every payload encrypted (AES-256-GCM) before it leaves the process.

Why: a run's checkpoint holds its memory and sandbox variables (tool results, secrets a tool handed
the code), and the workflow's history, which the Temporal server keeps and shows to anyone with
access to the namespace, holds every checkpoint. With this codec on the client and the workers
(`data_converter(key=...)`, `connect(...)`), the history holds ciphertext only: run inputs (the
task), step results (checkpoints), heartbeats (mid-step checkpoints), the memo (a call waiting for
approval), failure messages (with `DefaultFailureConverterWithEncodedAttributes`) and payloads
stored by reference. The shape follows Temporal's encryption sample: the encrypted payload is a
new payload whose metadata names the encoding and the key's id.

A process with a key refuses a payload not encrypted with it, changed since, or encrypted with
another key: it decodes to `{"smol_refused_payload": why}` (one line that says which key it needs),
never to the data. Why not an exception: the codec runs before the workflow, over every payload of
a workflow task, so one that raised would fail the task each time it is retried, and a signal sent
by anyone who reaches the server without the key (a forged approval) would stop the run for good.
Refused, the signal is ignored; a run's input is refused by the workflow (its task fails, retried
for a worker with the right key): a run started without the key is never run. The client says
which key a result or memo needs. The key's id is the first 16 hex
digits of its SHA-256 (it names the key without giving it away).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from google.protobuf.message import DecodeError
from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

from smol_core.plugin_api import SmolError
from smol_durable_temporal.messages import REFUSED

ENCODING = b"binary/encrypted"
KEY_ID = "encryption-key-id"
NONCE_BYTES = 12
KEY_BYTES = 32
KEY_ENV = "SMOL_TEMPORAL_KEY"
KEY_FILE_ENV = "SMOL_TEMPORAL_KEY_FILE"
MAKE_KEY = (
    'python -c "import base64, os; print(base64.b64encode(os.urandom(32)).decode())" > smol-temporal.key'
)


class PayloadKeyError(SmolError):
    """A payload key that cannot be used: missing, unreadable, not 32 bytes (one line)."""


def key_id(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()[:16]


class EncryptionCodec(PayloadCodec):
    """AES-256-GCM over each whole payload (its metadata too), under a key of 32 bytes."""

    def __init__(self, key: bytes) -> None:
        if len(key) != KEY_BYTES:
            raise PayloadKeyError(
                f"a payload key is {KEY_BYTES} bytes, not {len(key)}: make one with {MAKE_KEY}"
            )
        self._cipher = AESGCM(key)
        self.key_id = key_id(key)

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._encrypt(payload) for payload in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._decrypt(payload) for payload in payloads]

    def _encrypt(self, payload: Payload) -> Payload:
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._cipher.encrypt(nonce, payload.SerializeToString(), self.key_id.encode())
        return Payload(metadata={"encoding": ENCODING, KEY_ID: self.key_id.encode()}, data=nonce + sealed)

    def _decrypt(self, payload: Payload) -> Payload:
        if payload.metadata.get("encoding") != ENCODING:
            return _refused(
                f"a payload that is not encrypted: this process holds key {self.key_id}; "
                f"give whoever sent it the same key ({KEY_FILE_ENV})"
            )
        sealed_with = payload.metadata.get(KEY_ID, b"").decode("ascii", "replace")[:40]
        if sealed_with != self.key_id:
            return _refused(
                f"a payload encrypted with key {sealed_with!r}, and this process holds key {self.key_id}: "
                f"give it that key ({KEY_FILE_ENV})"
            )
        try:
            plain = self._cipher.decrypt(
                payload.data[:NONCE_BYTES], payload.data[NONCE_BYTES:], self.key_id.encode()
            )
            return Payload.FromString(plain)
        except (InvalidTag, DecodeError):
            return _refused(f"a payload encrypted with key {self.key_id} does not open: it was changed")


def _refused(why: str) -> Payload:
    """What a payload the key does not open decodes to: why, and none of its data."""
    return Payload(metadata={"encoding": b"json/plain"}, data=json.dumps({REFUSED: why}).encode())


def parse_key(text: bytes, where: str) -> bytes:
    """A key as written in a file or a variable: base64 of 32 bytes (what MAKE_KEY writes)."""
    try:
        key = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != KEY_BYTES:
        raise PayloadKeyError(f"{where} is not a key (base64 of {KEY_BYTES} bytes): make one with {MAKE_KEY}")
    return key


def key_from_file(path: str | Path) -> bytes:
    try:
        text = Path(path).read_bytes()[:1024]
    except OSError as error:
        raise PayloadKeyError(f"cannot read the payload key {path} ({error.strerror or error})") from None
    return parse_key(text, f"the payload key file {path}")


def key_from_environment(environ: Mapping[str, str] | None = None) -> bytes | None:
    """The key in SMOL_TEMPORAL_KEY_FILE (a file's path) or SMOL_TEMPORAL_KEY (the key), or None."""
    environ = os.environ if environ is None else environ
    if environ.get(KEY_FILE_ENV):
        return key_from_file(environ[KEY_FILE_ENV])
    if environ.get(KEY_ENV):
        return parse_key(environ[KEY_ENV].encode(), KEY_ENV)
    return None
