"""`ApiModel`: the request/retry/parse skeleton every model behind an API shares.

A plugin for a remote service writes only what differs: its payload, one call, and how to read the
reply; sending under the rate limit and the retry policy, and turning every failure into one
`ModelAPIError`, happen here once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from smol_core.errors import ModelAPIError
from smol_core.messages import ChatMessage, ChatMessageStreamDelta, TokenUsage
from smol_core.models.base import Model
from smol_core.models.request import ModelRequest
from smol_core.models.retry import RetryPolicy, attempts_made, error_status, is_retryable_error

__all__ = ["CONNECT_TIMEOUT", "DEFAULT_TIMEOUT", "ApiModel"]

DEFAULT_TIMEOUT = 60.0
"""Seconds to wait for a server's answer. With `RetryPolicy.deadline`, a dead server surfaces in about
a minute; a backend that takes longer to write a long reply without streaming needs `timeout=`."""
CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a connection: a server that is up accepts in milliseconds."""


class ApiModel(Model):
    """Base of models behind an API: one client, and the request/retry/parse skeleton every one shares.

    `request` builds the provider's payload (`build_request`), sends it under the rate limit and the
    retry policy (`call_api`, one attempt), and reads the reply (`parse_response`); `request_stream`
    does the same for a stream (`parse_stream`), closing it and recording usage (unknown if the
    server sent none). Every failure comes out as one `ModelAPIError` (`error_class`), with status,
    model id and provider; `error_message` words it. A plugin implements the four hooks and
    `create_client`; `retry_without` lets it ask again without an option the server refused.
    """

    provider_name: ClassVar[str] = "API"
    error_class: ClassVar[type[ModelAPIError]] = ModelAPIError

    def __init__(
        self,
        model_id: str,
        custom_role_conversions: dict[str, str] | None = None,
        client: Any | None = None,
        requests_per_minute: float | None = None,
        retry: bool = True,
        retry_policy: RetryPolicy | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(model_id=model_id, **kwargs)
        self.custom_role_conversions = custom_role_conversions or {}
        if retry_policy is not None:
            self.retry_policy = retry_policy
        else:
            self.retry_policy = RetryPolicy() if retry else RetryPolicy(max_attempts=1)
        self.requests_per_minute = requests_per_minute
        self._last_request = 0.0
        self.client = client or self.create_client()

    def create_client(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement create_client().")

    @property
    def endpoint(self) -> str:
        """Where requests go, for error messages."""
        return str(getattr(self, "api_base", None) or "the provider's API")

    # --- the skeleton ------------------------------------------------------------------------------

    def request(self, request: ModelRequest) -> ChatMessage:
        response = self.send(self.build_request(request, stream=False), stream=False)
        try:
            message = self.parse_response(response, request)
        except ValueError as error:
            raise self.error_class(
                f"{self.provider_name} at {self.endpoint} sent a malformed reply for {self.model_id!r}: {error}",
                status=None,
                model_id=self.model_id,
                provider=self.provider_name,
                retryable=False,
            ) from error
        message.token_usage = message.token_usage or TokenUsage(0, 0)
        return message

    def request_stream(self, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        stream = self.send(self.build_request(request, stream=True), stream=True)
        usage_seen = False
        try:
            for delta in self.parse_stream(stream, request):
                usage_seen = usage_seen or delta.token_usage is not None
                yield delta
        except ModelAPIError:
            raise
        except Exception as error:  # not retried: the text so far is out already
            raise self.describe_error(error, during_stream=True) from error
        finally:
            close = getattr(stream, "close", None)
            if callable(close):
                close()
        if not usage_seen:  # every call records its usage, if only as unknown
            yield ChatMessageStreamDelta(token_usage=TokenUsage(0, 0))

    def send(self, payload: dict[str, Any], stream: bool) -> Any:
        """One API call under the rate limit and the retry policy; a failure comes out as `ModelAPIError`."""
        self._apply_rate_limit()
        try:
            return self.retry_policy.run(
                lambda: self.call_api(payload, stream),
                describe=f"{self.provider_name} {self.model_id} at {self.endpoint}",
            )
        except ModelAPIError:
            raise
        except Exception as error:
            again = self.retry_without(error, payload)
            if again is not None:
                return self.send(again, stream)
            raise self.describe_error(error) from error

    def call_with_retries(self, call: Callable[[], Any], describe: str | None = None) -> Any:
        """Run one API call under the rate limit and the retry policy (the last error propagates)."""
        self._apply_rate_limit()
        return self.retry_policy.run(call, describe=describe or f"{type(self).__name__} {self.model_id}")

    # --- hooks a plugin implements -------------------------------------------------------------------

    def build_request(self, request: ModelRequest, stream: bool) -> dict[str, Any]:
        """The provider's payload for `request` (streamed or not)."""
        raise NotImplementedError(f"{type(self).__name__} must implement build_request().")

    def call_api(self, payload: dict[str, Any], stream: bool) -> Any:
        """One attempt: send `payload` with the client and return its reply (or, if `stream`, its stream)."""
        raise NotImplementedError(f"{type(self).__name__} must implement call_api().")

    def parse_response(self, response: Any, request: ModelRequest) -> ChatMessage:
        """The reply as a `ChatMessage` (a ValueError means the reply was malformed)."""
        raise NotImplementedError(f"{type(self).__name__} must implement parse_response().")

    def parse_stream(self, stream: Any, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        """The streamed reply as deltas (errors propagate, for the skeleton to describe)."""
        raise NotImplementedError(f"{type(self).__name__} must implement parse_stream().")

    def retry_without(self, error: Exception, payload: dict[str, Any]) -> dict[str, Any] | None:
        """A payload to send again after `error` (the server refused an option), or None to fail."""
        return None

    # --- errors ------------------------------------------------------------------------------------

    def describe_error(self, error: Exception, during_stream: bool = False) -> ModelAPIError:
        """`error` as this model's `ModelAPIError`: status, model id, provider, and what to do."""
        if isinstance(error, ModelAPIError):
            return error
        status = error_status(error)
        return self.error_class(
            self.error_message(error, status, during_stream),
            status=status,
            model_id=self.model_id,
            provider=self.provider_name,
            retryable=is_retryable_error(error),
        )

    def error_message(self, error: Exception, status: int | None, during_stream: bool) -> str:
        """The words of a failure; plugins override it to add their own hints."""
        where = f"{self.provider_name} at {self.endpoint}"
        if during_stream:
            return (
                f"{where} broke off the streamed reply of {self.model_id!r}: {type(error).__name__}: {error}"
            )
        return (
            f"{where} failed for {self.model_id!r} (status {status}, {self.attempts(error)} attempt(s)): "
            f"{type(error).__name__}: {error}"
        )

    def attempts(self, error: Exception) -> int:
        """How many attempts were made before `error` (for messages)."""
        return attempts_made(error, self.retry_policy.max_attempts)

    def _apply_rate_limit(self) -> None:
        if not self.requests_per_minute:
            return
        interval = 60.0 / self.requests_per_minute
        wait = self._last_request + interval - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._last_request = time.monotonic()
