"""How API models meet a misbehaving server: a scripted stand-in on 127.0.0.1, real SDK clients.

The stand-in (`openai_stub`) answers 429 with `Retry-After`, cuts a 200 body short, drops the
connection, or never answers; the clients must retry what may pass, wait as long as the server asks
(up to a cap), give up on what will not pass, and always fail with one `ModelAPIError` that names
the status, the model and the provider.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from email.utils import formatdate
from typing import Any

import pytest
from openai_stub import Dropped, Error, Silent, Stub, Truncated, completion, start_stub

from smol_core.errors import AgentGenerationError, ModelAPIError, SmolError
from smol_core.messages import ChatMessage
from smol_core.models.api_model import ApiModel
from smol_core.models.retry import RetryPolicy, is_retryable_error, retry_after

HI = [ChatMessage(role="user", content="hi")]


def fast(**overrides: Any) -> RetryPolicy:
    settings: dict[str, Any] = {"max_attempts": 3, "base_delay": 0.01, "jitter": False, **overrides}
    return RetryPolicy(**settings)


@pytest.fixture(autouse=True)
def _hub_online(monkeypatch: pytest.MonkeyPatch) -> None:
    """huggingface_hub blocks every request under HF_HUB_OFFLINE=1, loopback included; these go to 127.0.0.1."""
    try:
        from huggingface_hub import constants
    except ImportError:  # an environment without the hf plugin: its tests fail on the import instead
        return
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


@pytest.fixture
def stub() -> Iterator[Stub]:
    server = start_stub()
    yield server
    server.close()


def openai_model(stub: Stub, retry_policy: RetryPolicy | None = None, **kwargs: Any) -> ApiModel:
    from smol_model_openai import OpenAIServerModel

    return OpenAIServerModel("m", api_base=stub.url, retry_policy=retry_policy or fast(), **kwargs)


def litellm_model(stub: Stub, retry_policy: RetryPolicy | None = None, **kwargs: Any) -> ApiModel:
    from smol_model_litellm import LiteLLMModel

    return LiteLLMModel(
        "openai/m", api_base=stub.url, api_key="k", retry_policy=retry_policy or fast(), **kwargs
    )


def hf_model(stub: Stub, retry_policy: RetryPolicy | None = None, **kwargs: Any) -> ApiModel:
    from smol_model_hf import InferenceClientModel

    return InferenceClientModel(
        "m", base_url=stub.url, token="hf_x", retry_policy=retry_policy or fast(), **kwargs
    )


# --- Retry-After -----------------------------------------------------------------------------------


def test_429_waits_as_long_as_retry_after_says(stub: Stub) -> None:
    stub.replies += [Error(429, "slow down", {"Retry-After": "1"}), completion("fine")]
    assert openai_model(stub).generate(HI).content == "fine"
    assert len(stub.requests) == 2
    assert stub.times[1] - stub.times[0] >= 0.9  # the backoff alone would have waited 0.01 s


def test_retry_after_beyond_the_cap_is_cut_to_the_cap(stub: Stub) -> None:
    waits: list[float] = []
    stub.replies += [Error(429, "slow down", {"Retry-After": "3600"}), completion("fine")]
    model = openai_model(stub, fast(max_retry_after=0.05, sleep=waits.append))
    assert model.generate(HI).content == "fine"
    assert waits == [0.05]
    assert len(stub.requests) == 2


def test_retry_after_is_read_as_seconds_or_as_a_date() -> None:
    class Response:
        def __init__(self, headers: dict[str, str]) -> None:
            self.headers = headers
            self.status_code = 429

    class HTTPError(Exception):
        def __init__(self, headers: dict[str, str]) -> None:
            super().__init__("429")
            self.response = Response(headers)

    assert retry_after(HTTPError({"retry-after": "7"})) == 7.0
    assert retry_after(HTTPError({"retry-after-ms": "250"})) == 0.25
    in_a_minute = retry_after(HTTPError({"retry-after": formatdate(usegmt=True)}))
    assert in_a_minute is not None and in_a_minute <= 1.0
    assert retry_after(HTTPError({})) is None
    throttled = Exception("throttled")
    throttled.response = {"ResponseMetadata": {"HTTPHeaders": {"retry-after": "3"}}}  # type: ignore[attr-defined]
    assert retry_after(throttled) == 3.0  # botocore keeps the response as a dict


# --- broken replies --------------------------------------------------------------------------------


HTTP_PLUGINS = pytest.mark.parametrize(
    "make", [openai_model, litellm_model, hf_model], ids=["openai", "litellm", "hf"]
)


@HTTP_PLUGINS
def test_a_200_body_cut_short_is_retried(stub: Stub, make: Callable[..., ApiModel]) -> None:
    stub.replies += [Truncated(completion("lost")), completion("whole")]
    assert make(stub).generate(HI).content == "whole"
    assert len(stub.requests) == 2


@HTTP_PLUGINS
def test_a_dropped_connection_is_retried(stub: Stub, make: Callable[..., ApiModel]) -> None:
    stub.replies += [Dropped(), completion("back")]
    assert make(stub).generate(HI).content == "back"
    assert len(stub.requests) == 2


def test_a_server_that_never_answers_surfaces_after_the_timeout(stub: Stub) -> None:
    stub.replies += [Silent(), Silent()]
    model = openai_model(stub, fast(max_attempts=2), client_kwargs={"timeout": 0.3})
    with pytest.raises(ModelAPIError) as caught:
        model.generate(HI)
    assert len(stub.wait_for_requests(2)) == 2
    assert caught.value.status is None and caught.value.retryable
    assert caught.value.model_id == "m" and "did not answer in time" in str(caught.value)


def test_the_deadline_stops_retries_of_a_dead_server(stub: Stub) -> None:
    stub.replies += [Silent(), Silent(), Silent()]
    model = openai_model(stub, fast(max_attempts=3, deadline=0.2), client_kwargs={"timeout": 0.3})
    with pytest.raises(ModelAPIError):
        model.generate(HI)
    assert len(stub.wait_for_requests(1)) == 1  # past the deadline after the first time-out: no new attempt


def test_a_401_is_not_retried_and_its_error_names_status_model_and_provider(stub: Stub) -> None:
    stub.replies.append(Error(401, "bad key"))
    with pytest.raises(ModelAPIError) as caught:
        openai_model(stub).generate(HI)
    error = caught.value
    assert len(stub.requests) == 1
    assert (error.status, error.model_id, error.provider, error.retryable) == (
        401,
        "m",
        "OpenAI-compatible server",
        False,
    )
    assert "401" in str(error) and "'m'" in str(error) and "OpenAI-compatible server" in str(error)
    assert isinstance(error, SmolError) and isinstance(error, AgentGenerationError)


# --- every HTTP plugin says the same ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "provider"),
    [(openai_model, "OpenAI-compatible server"), (litellm_model, "LiteLLM"), (hf_model, "Hugging Face")],
    ids=["openai", "litellm", "hf"],
)
def test_each_http_plugin_raises_model_api_error_for_a_500(
    stub: Stub, make: Callable[..., ApiModel], provider: str
) -> None:
    stub.replies += [Error(500, "boom")] * 3
    model = make(stub)
    with pytest.raises(ModelAPIError) as caught:
        model.generate(HI)
    error = caught.value
    assert len(stub.requests) == 3  # a 500 is retried until the attempts run out
    assert (error.status, error.model_id, error.provider, error.retryable) == (
        500,
        model.model_id,
        provider,
        True,
    )
    assert "500" in str(error) and provider in str(error)


@HTTP_PLUGINS
def test_each_http_plugin_honours_retry_after(stub: Stub, make: Callable[..., ApiModel]) -> None:
    waits: list[float] = []
    stub.replies += [Error(429, "slow down", {"Retry-After": "2"}), completion("fine")]
    assert make(stub, fast(sleep=waits.append)).generate(HI).content == "fine"
    assert waits == [2.0]


def test_what_is_worth_a_retry() -> None:
    assert is_retryable_error(ConnectionResetError())
    assert is_retryable_error(ModelAPIError("x", status=503, retryable=True))
    assert not is_retryable_error(ModelAPIError("x", status=401))
    assert not is_retryable_error(ValueError("the reply has no choices"))


def test_a_slow_server_is_not_asked_again_and_the_error_says_how_to_wait_longer(stub: Stub) -> None:
    """A local server slower than the time-out: the time-out spends the call's deadline (as the default
    60 s time-out spends the default 60 s deadline), so the reply is not asked for again (the server is
    still busy with it); the error says how to give a longer time-out, from Python and the CLI."""
    from smol_model_openai import OpenAIServerModel

    stub.replies += [Silent(), Silent()]
    # `timeout` as a model keyword, as `smolagent --model-kwargs '{"timeout": ...}'` gives it
    model = OpenAIServerModel("m", api_base=stub.url, retry_policy=fast(deadline=0.2), timeout=0.3)
    with pytest.raises(ModelAPIError) as caught:
        model.generate(HI)
    assert len(stub.wait_for_requests(1)) == 1
    message = str(caught.value)
    assert "did not answer in time" in message and "(1 attempt(s))" in message
    assert "timeout=300" in message and """--model-kwargs '{"timeout": 300}'""" in message


def test_the_default_time_out_spends_the_default_deadline() -> None:
    """What the READMEs say: with the defaults, a reply that runs past the read time-out is not retried."""
    from smol_core.models.api_model import DEFAULT_TIMEOUT

    assert RetryPolicy().deadline is not None and DEFAULT_TIMEOUT >= RetryPolicy().deadline


def test_a_slow_server_behind_litellm_says_how_to_wait_longer(stub: Stub) -> None:
    stub.replies += [Silent(), Silent()]
    model = litellm_model(stub, fast(deadline=0.2), timeout=0.3)
    with pytest.raises(ModelAPIError) as caught:
        model.generate(HI)
    assert len(stub.wait_for_requests(1)) == 1
    assert """--model-kwargs '{"timeout": 300}'""" in str(caught.value)
