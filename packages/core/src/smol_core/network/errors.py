"""The guarded HTTP client's errors, in a module of their own: `guarded_http` needs httpx, which
smol-core does not depend on, and code must be able to catch (and `smol_core.exceptions` to list)
these errors without it."""

from __future__ import annotations

from smol_core.errors import SmolError

__all__ = ["BlockedAddressError", "DownloadTooLargeError", "TooManyRedirectsError"]


class BlockedAddressError(Exception):
    """A connection was refused by the address policy; `reason` says which rule refused it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class TooManyRedirectsError(SmolError):
    """A redirect chain longer than the caller allows."""


class DownloadTooLargeError(SmolError):
    """A response body larger than the caller allows; nothing past the limit was read."""
