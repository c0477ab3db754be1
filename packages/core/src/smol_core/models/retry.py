"""Retries for remote models: which failures are worth another try, and how long to wait first.

One policy for every API plugin, so that the SDKs' own retries are switched off and the behaviour is
the same whatever the client: rate limits, server errors, time-outs, dropped connections and bodies
cut short are retried with backoff; a server's `Retry-After` is honoured (up to a cap); bad requests
and bad keys fail at once. A `deadline` bounds the whole call, so that a dead server surfaces in
about a minute rather than after several long time-outs in a row.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from smol_core import instrumentation

__all__ = [
    "RETRY_WAIT",
    "RetryPolicy",
    "attempts_made",
    "error_status",
    "is_missing_key_error",
    "is_retryable_error",
    "retry_after",
]

logger = logging.getLogger("smol_core.models")

# Words in an exception's class names that mean "the connection failed or the body was cut short":
# SDKs wrap httpx, requests, urllib3 and botocore errors that subclass neither ConnectionError nor
# TimeoutError (`openai.APIConnectionError`, `httpx.RemoteProtocolError`, `requests.ChunkedEncodingError`...).
_TRANSIENT_CLASS_WORDS = (
    "connecterror",
    "connectionerror",
    "connectionclosed",
    "timeout",
    "remoteprotocolerror",
    "readerror",
    "incompleteread",
    "chunkedencodingerror",
    "protocolerror",
    "responsestreamingerror",
)
_TRANSIENT_TEXT = (
    "429",
    "rate limit",
    "too many requests",
    "timeout",
    "timed out",
    "overloaded",
    "503",
    "502",
)

# Words that mean "no usable key": permanent, whatever status an SDK wraps them in (LiteLLM reports an
# OpenAI-compatible client's missing key as a 500).
_MISSING_KEY_TEXT = (
    "api_key client option must be set",
    "missing api key",
    "missing credentials",
    "invalid api key",
    "incorrect api key",
)


def is_missing_key_error(error: BaseException) -> bool:
    """Whether `error` says the API key is missing or wrong (not worth another try)."""
    text = " ".join(str(link).lower() for link in _causes(error))
    return any(marker in text for marker in _MISSING_KEY_TEXT)


def error_status(error: BaseException) -> int | None:
    """The HTTP status an SDK's error carries (`error.status_code`, `error.status` or `error.response.status_code`)."""
    for status in (
        getattr(error, "status_code", None),
        getattr(error, "status", None),
        getattr(getattr(error, "response", None), "status_code", None),
    ):
        if isinstance(status, int) and not isinstance(status, bool):
            return status
    return None


def is_retryable_error(error: BaseException) -> bool:
    """Rate limits, server errors, time-outs, dropped connections and truncated bodies are worth
    another try; bad requests and bad keys are not."""
    retryable = getattr(error, "retryable", None)
    if isinstance(retryable, bool):
        return retryable
    if is_missing_key_error(error):
        return False
    status = error_status(error)
    if status is not None:
        return status == 429 or status >= 500 or status == 408
    if isinstance(error, TimeoutError | ConnectionError | json.JSONDecodeError):
        return True
    for link in _causes(error):
        lineage = " ".join(cls.__name__.lower() for cls in type(link).__mro__)
        if any(word in lineage for word in _TRANSIENT_CLASS_WORDS):
            return True
    text = f"{type(error).__name__} {error}".lower()
    return any(marker in text for marker in _TRANSIENT_TEXT)


def retry_after(error: BaseException) -> float | None:
    """Seconds the server asked us to wait (`Retry-After`, `retry-after-ms`), or None if it said nothing."""
    for link in _causes(error):
        hinted = getattr(link, "retry_after", None)
        if isinstance(hinted, int | float) and not isinstance(hinted, bool):
            return max(0.0, float(hinted))
        headers = _headers_of(link)
        if headers is None:
            continue
        millis = _header(headers, "retry-after-ms")
        if millis is not None:
            try:
                return max(0.0, float(millis) / 1000)
            except ValueError:
                pass
        value = _header(headers, "retry-after")
        if value is not None:
            return _parse_retry_after(value)
    return None


RETRY_WAIT = 0.5
"""The backoff's unit in seconds (smolagents' name): the first wait is 2-4 times it (1-2 s). smolagents
uses 60 s; smol's unit is shorter, and the policy's `deadline` ends the retries of a call within
about a minute, so that a server that is down says so quickly."""


@dataclass
class RetryPolicy:
    """Exponential backoff with jitter, for remote models.

    Attributes:
        max_attempts: tries in all (1 means no retry).
        base_delay: the backoff's unit, in seconds (default: `RETRY_WAIT` when the policy is made).
        exponential_base: how much each wait grows over the one before.
        max_delay: the largest wait, in seconds.
        jitter: grow each wait by a further 0-100% at random, so that many clients do not retry in step.
        max_retry_after: the longest a server's `Retry-After` is honoured for (a larger one is cut).
        deadline: no new attempt starts once this many seconds have passed since the first (None: no
            bound). With the default 60 s read time-out, a dead server surfaces in about a minute.
        sleep: how to wait (swap it in tests to see the waits without taking them).
    """

    max_attempts: int = 4
    base_delay: float = field(default_factory=lambda: RETRY_WAIT)
    exponential_base: float = 2.0
    max_delay: float = 30.0
    jitter: bool = True
    max_retry_after: float = 30.0
    deadline: float | None = 60.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False, compare=False)

    def delay(self, error: BaseException, attempt: int, previous: float | None = None) -> float:
        """The wait before attempt `attempt + 1`: the server's `Retry-After` (capped), else backoff.

        The backoff is smolagents': each wait is the one before (at first `base_delay`) times
        `exponential_base`, times `1 + random()` with jitter, and at most `max_delay`.
        """
        hinted = retry_after(error)
        if hinted is not None:
            return min(hinted, self.max_retry_after)
        growth = self.exponential_base * (1 + random.random()) if self.jitter else self.exponential_base
        start = self.base_delay if previous is None else previous
        return min(self.max_delay, start * growth)

    def run(self, call: Callable[[], Any], describe: str = "model call") -> Any:
        """`call()`, tried again on retryable errors; the last error propagates."""
        started = time.monotonic()
        attempt = 0
        delay: float | None = None
        while True:
            attempt += 1
            try:
                return call()
            except Exception as error:
                _note_attempts(error, attempt)
                if attempt >= self.max_attempts or not is_retryable_error(error):
                    raise
                delay = self.delay(error, attempt, delay)
                if self.deadline is not None and time.monotonic() - started + delay > self.deadline:
                    raise
                logger.info(
                    "%s failed (%s); retry %d/%d in %.1fs",
                    describe,
                    error,
                    attempt,
                    self.max_attempts - 1,
                    delay,
                )
                instrumentation.event(
                    "retry",
                    {
                        "retry.attempt": attempt,
                        "error.type": type(error).__qualname__,
                        "http.response.status_code": error_status(error),
                        "retry.reason": str(error)[:500],  # content: instrumentors record it on opt-in
                        "retry.delay_seconds": delay,
                    },
                )
                self.sleep(delay)


def attempts_made(error: BaseException, default: int) -> int:
    """How many attempts `RetryPolicy.run` made before `error` came out (`default` if it did not say):
    a deadline or a refusal can end the retries before `max_attempts`."""
    attempts = getattr(error, "smol_attempts", None)
    return attempts if isinstance(attempts, int) else default


def _note_attempts(error: BaseException, attempt: int) -> None:
    with contextlib.suppress(AttributeError):  # an exception type with __slots__ keeps no note
        error.smol_attempts = attempt  # type: ignore[attr-defined]


def _causes(error: BaseException) -> list[BaseException]:
    """The error and what it was raised from (SDKs wrap the transport's error), at most a few deep."""
    chain: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and len(chain) < 5 and link not in chain:
        chain.append(link)
        link = link.__cause__ or link.__context__
    return chain


def _headers_of(error: BaseException) -> Any:
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if headers is not None:
        return headers
    if isinstance(response, Mapping):  # botocore's ClientError keeps the response as a dict
        return response.get("ResponseMetadata", {}).get("HTTPHeaders")
    return getattr(error, "headers", None)


def _header(headers: Any, name: str) -> str | None:
    try:
        value = headers.get(name)
        if value is None and isinstance(headers, Mapping):
            value = next((v for k, v in headers.items() if str(k).lower() == name), None)
    except (AttributeError, TypeError):
        return None
    return None if value is None else str(value)


def _parse_retry_after(value: str) -> float | None:
    """`Retry-After` is seconds or an HTTP date."""
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())
