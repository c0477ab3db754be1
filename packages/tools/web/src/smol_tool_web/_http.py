"""One way to make a request for every web tool, so that every failure reads the same to the model.

Rate limits (HTTP 429, and DuckDuckGo's 202 "anomaly" page), refused connections, timeouts and HTTP
errors all become a `WebToolError` whose message says what happened and what the model can do next
(wait, try another query or tool, check the URL). The agent shows it as the step's observation.
So does a refused address: every fetch goes through smol's one address policy, which only connects
to public addresses unless the user allowed more, checks every redirect hop, and bounds what a
download may bring in (`MAX_BYTES`): `request` through `smol_core.plugin_api.guarded_request`, and
`post_json` (the Exa engine, which sends with `requests.post` as smolagents' does) through a
`PolicyProxy` that applies the same checks where it connects.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx

from smol_core.plugin_api import (
    AddressPolicy,
    AddressRefusedError as PolicyRefusal,
    AgentToolExecutionError,
    DownloadTooLargeError,
    TooManyRedirectsError,
    guarded_request,
    refusal_message,
)

DEFAULT_USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) smol-tool-web/0.1"
)


class WebToolError(AgentToolExecutionError):
    """A web tool could not get its answer; the message says why and what to try next."""


class RateLimitedError(WebToolError):
    """The service asked us to slow down (HTTP 429, or a 202 challenge page)."""


class AddressRefusedError(WebToolError):
    """The URL (or a redirect hop) points at an address web tools may not fetch (see `address_policy`)."""


MAX_REDIRECTS = 10
MAX_BYTES = 10 * 1024 * 1024  # a page or API answer larger than this is refused, not read


def request(
    service: str,
    method: str,
    url: str,
    *,
    timeout: float,
    params: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    json: Any = None,
    data: dict[str, str] | None = None,
    follow_redirects: bool = True,
    rate_limit_statuses: tuple[int, ...] = (429,),
    policy: AddressPolicy | None = None,
) -> httpx.Response:
    """`service` names the site in messages ("DuckDuckGo", "the page").

    Only public addresses are fetched unless `policy` (or `SMOL_WEB_ALLOW_PRIVATE`) allows more:
    every hop of a redirect chain is checked before its request and again where its connection
    opens (see `smol_core.network.guarded_http`), and redirects are followed here, at most `MAX_REDIRECTS`.
    """
    sent_headers = {"User-Agent": DEFAULT_USER_AGENT, **(headers or {})}
    try:
        response = guarded_request(
            method,
            url,
            policy=policy,
            timeout=timeout,
            max_redirects=MAX_REDIRECTS,
            max_bytes=MAX_BYTES,
            follow_redirects=follow_redirects,
            params=params,
            headers=sent_headers,
            json=json,
            data=data,
        )
    except PolicyRefusal as error:
        message = refusal_message(error.url or url, error.reason, "fetch", "web tools")
        raise AddressRefusedError(message) from None
    except TooManyRedirectsError as error:
        raise WebToolError(f"{service}: {error} The page cannot be reached.") from None
    except DownloadTooLargeError as error:
        raise WebToolError(f"{service}: {error} Try another page or source.") from None
    except httpx.TimeoutException as error:
        raise WebToolError(
            f"{service} did not answer within {timeout:g} s ({url}). Try again later, or another source."
        ) from error
    except httpx.ConnectError as error:
        raise WebToolError(
            f"Could not connect to {service} at {_origin(url)} ({error}). "
            "Check the address, or use another tool or source."
        ) from error
    except httpx.HTTPError as error:  # protocol errors, invalid URLs
        raise WebToolError(f"Request to {service} failed: {type(error).__name__}: {error}") from error
    if response.status_code in rate_limit_statuses:
        wait = response.headers.get("Retry-After")
        hint = f"wait {wait} s before retrying" if wait and wait.isdigit() else "wait before retrying"
        raise RateLimitedError(
            f"{service} is rate-limiting these requests (HTTP {response.status_code}): {hint}, "
            "or use another search tool or a different query."
        )
    if response.status_code >= 400:
        raise WebToolError(
            _http_error(service, response.status_code, response.reason_phrase, str(response.url))
        )
    return response


def post_json(
    service: str, url: str, *, headers: dict[str, str], json: Any, timeout: float, policy: AddressPolicy
) -> dict[str, Any]:
    """POST `json` with `requests.post`, as smolagents' engines do, and return the JSON object answered.

    Why `requests`: code written for smolagents patches `requests.post` to stand in for the service,
    and that patch reaches this call. The request still goes out under the address policy: through
    a `PolicyProxy`, which connects only where `policy` allows and bounds the answer (`MAX_BYTES`);
    redirects are not followed (an API answers where it is asked)."""
    import requests

    from smol_tool_web.policy_proxy import PolicyProxy

    sent_headers = {"User-Agent": DEFAULT_USER_AGENT, **headers}
    with PolicyProxy(policy.with_environment(), MAX_BYTES, timeout) as proxy:
        try:
            response = requests.post(
                url, headers=sent_headers, json=json, timeout=timeout,
                proxies=proxy.proxies_for(url), allow_redirects=False,
            )  # fmt: skip
            response.raise_for_status()
            data = response.json()
        except (requests.RequestException, ValueError) as error:
            _raise_proxy_problem(service, url, proxy)
            raise _requests_error(service, url, timeout, error) from error
    _raise_proxy_problem(service, url, proxy)
    if not isinstance(data, dict):
        raise WebToolError(f"{service} sent JSON of an unexpected shape ({type(data).__name__}).")
    return data


def _raise_proxy_problem(service: str, url: str, proxy: Any) -> None:
    """What the proxy saw (a refused address, an oversized answer) says more than `requests`' error."""
    if proxy.refusal_reason is not None:
        raise AddressRefusedError(refusal_message(url, proxy.refusal_reason, "fetch", "web tools"))
    if proxy.too_large:
        raise WebToolError(
            f"{service}: {url} sent more than the {proxy.max_bytes} bytes allowed. Try another source."
        )
    if proxy.unreachable is not None:
        raise WebToolError(
            f"Could not connect to {service} at {_origin(url)} ({proxy.unreachable}). "
            "Check the address, or use another tool or source."
        )


def _requests_error(service: str, url: str, timeout: float, error: Exception) -> WebToolError:
    import requests

    if isinstance(error, requests.HTTPError) and error.response is not None:
        answer = error.response
        if answer.status_code == 429:
            wait = answer.headers.get("Retry-After")
            hint = f"wait {wait} s before retrying" if wait and wait.isdigit() else "wait before retrying"
            return RateLimitedError(
                f"{service} is rate-limiting these requests (HTTP 429): {hint}, "
                "or use another search tool or a different query."
            )
        return WebToolError(_http_error(service, answer.status_code, answer.reason, answer.url))
    if isinstance(error, requests.Timeout):
        return WebToolError(
            f"{service} did not answer within {timeout:g} s ({url}). Try again later, or another source."
        )
    if isinstance(error, ValueError) and not isinstance(error, requests.RequestException):
        return WebToolError(f"{service} sent something other than JSON; try again later.")
    return WebToolError(f"Request to {service} failed: {type(error).__name__}: {error}")


def json_body(service: str, response: httpx.Response) -> dict[str, Any]:
    """The response's JSON object, or a `WebToolError` if the service sent something else (a login page...)."""
    try:
        data = response.json()
    except ValueError as error:
        kind = response.headers.get("Content-Type", "unknown content")
        raise WebToolError(f"{service} sent {kind} where JSON was expected; try again later.") from error
    if not isinstance(data, dict):
        raise WebToolError(f"{service} sent JSON of an unexpected shape ({type(data).__name__}).")
    return data


def _http_error(service: str, status: int, reason: str, url: str) -> str:
    if status in (401, 403):
        advice = "the service refused access: check the API key, or the site blocks automated visits"
    elif status == 404:
        advice = "nothing is at this address: check the URL, or search for the page instead"
    elif status >= 500:
        advice = "the server failed: try again later, or another source"
    else:
        advice = "the request was refused"
    return f"{service} answered HTTP {status} {reason} for {url}: {advice}."


def _origin(url: str) -> str:
    try:
        parsed = httpx.URL(url)
    except Exception:
        return url
    return f"{parsed.scheme}://{parsed.netloc.decode()}"


class RateLimiter:
    """At most `per_second` calls per second, by sleeping: polite to free services that ban bursts."""

    def __init__(self, per_second: float | None) -> None:
        self.interval = 1.0 / per_second if per_second else 0.0
        self._last = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            delay = self._last + self.interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._last = time.monotonic()
