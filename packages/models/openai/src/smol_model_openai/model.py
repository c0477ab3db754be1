"""`OpenAIServerModel` and `AzureOpenAIServerModel`, through the official `openai` SDK.

The SDK is imported when a model is built, never when the plugin is discovered. Its own retries are
switched off (unless `client_kwargs` sets `max_retries`) so that the core's `RetryPolicy` decides:
429 (after its `Retry-After`), 5xx, time-outs, dropped connections and bodies cut short are retried
with backoff, then turned into a `ModelAPIError` (status, model id, provider) that says what went
wrong and where. The request/retry/parse skeleton is `ChatCompletionsModel`'s; this module adds the
client, tool calls through a JSON schema, and the wording of errors.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from smol_core.plugin_api import (
    CONNECT_TIMEOUT,
    DEFAULT_TIMEOUT,
    CapabilityDetector,
    ChatCompletionsModel,
    ChatMessage,
    ChatMessageStreamDelta,
    DetectedCapabilities,
    ModelCapabilities,
    ModelRequest,
    SmolError,
    get_tool_json_schema,
    install_hint,
    model_supports_stop,
    tool_call_deltas,
    tool_call_from_json,
    tool_call_response_format,
    tools_prompt,
    with_system_note,
)

TOOL_CALLING_MODES = ("native", "json_schema")


class OpenAIServerModel(DetectedCapabilities, ChatCompletionsModel):
    """A chat model behind the OpenAI API, or behind any server that speaks it.

    Args:
        model_id: the model name the server knows (`gpt-4o-mini`, or e.g. a llama.cpp server's alias).
        api_base: the server's base URL (`http://127.0.0.1:8080/v1`); None for OpenAI itself.
        api_key: the key (default: `OPENAI_API_KEY`; a local server with `api_base` needs none).
        organization, project: OpenAI account scoping.
        client_kwargs: more arguments for `openai.OpenAI(...)` (timeout, default_headers, http_client...).
        custom_role_conversions: e.g. `{"system": "user"}` for servers without a system role.
        flatten_messages_as_text: send each message's content as one string (for text-only servers).
        supports_stop: override whether the server accepts `stop` (otherwise guessed from model_id).
        tool_calling: "native" (the API's `tools`), or "json_schema" for a server whose model has no tool
            format in its chat template (small local models): the reply is held to a tool call by a
            `response_format` JSON schema, which llama.cpp's server, vLLM and Ollama enforce.
        capabilities: what the model can do, instead of learning it from the server: a
            `ModelCapabilities` (used as is), or fields forced on top of what is detected
            (`{"small": True, "grammar": False}`).
        small: shortcut for `capabilities={"small": ...}` (the CLI's `--small` / `--no-small`).
        detect_capabilities: ask the server what it serves (`CapabilityDetector`: llama.cpp's `/props`
            and `/v1/models`, Ollama's `/api/show`), once, on first use: a small model then gets the
            small-model prompt, and llama.cpp's server GBNF-constrained actions, as in process. None
            (default): only a server on this machine or a private network; True: any `api_base`.
        retry_policy: backoff settings (`RetryPolicy(max_attempts=..., base_delay=...)`).
        **kwargs: default request options (temperature, max_tokens, seed, extra_body...).
    """

    base_capabilities = ModelCapabilities(
        stop_sequences=True, tool_calling=True, structured_output=True, vision=True, streaming=True
    )
    provider_name = "OpenAI-compatible server"

    def __init__(
        self,
        model_id: str,
        api_base: str | None = None,
        api_key: str | None = None,
        organization: str | None = None,
        project: str | None = None,
        client_kwargs: dict[str, Any] | None = None,
        custom_role_conversions: dict[str, str] | None = None,
        flatten_messages_as_text: bool = False,
        supports_stop: bool | None = None,
        tool_calling: str = "native",
        capabilities: ModelCapabilities | Mapping[str, bool] | None = None,
        small: bool | None = None,
        detect_capabilities: bool | None = None,
        **kwargs: Any,
    ) -> None:
        if tool_calling not in TOOL_CALLING_MODES:
            raise ValueError(f"tool_calling must be one of {TOOL_CALLING_MODES}, got {tool_calling!r}")
        self.tool_calling = tool_calling
        self.api_base = api_base
        self.api_key = api_key
        self.organization = organization
        self.project = project
        self.client_kwargs = dict(client_kwargs or {})
        super().__init__(
            model_id=model_id,
            custom_role_conversions=custom_role_conversions,
            flatten_messages_as_text=flatten_messages_as_text,
            **kwargs,
        )
        stop = model_supports_stop(model_id) if supports_stop is None else supports_stop
        if small is not None and not isinstance(capabilities, ModelCapabilities):
            capabilities = {**(capabilities or {}), "small": small}
        self.detector = CapabilityDetector(
            replace(type(self).base_capabilities, stop_sequences=stop),
            api_base=api_base,
            model_id=model_id,
            api_key=api_key,
            override=capabilities,
            detect=detect_capabilities,
        )

    # --- client -----------------------------------------------------------------------------------

    def _sdk(self) -> Any:
        try:
            import openai
        except ImportError as error:  # pragma: no cover - a declared dependency
            raise SmolError(f"OpenAIServerModel needs the openai SDK: {install_hint('openai')}") from error
        return openai

    def create_client(self) -> Any:
        """`openai.OpenAI(base_url=api_base, api_key=..., organization=..., project=..., **client_kwargs)`.

        The SDK's own retries are off unless `client_kwargs` sets `max_retries`; its time-out is
        given with each request (`request_timeout`) unless `client_kwargs` sets one. A missing key
        is the SDK's error, reworded to say where a key comes from.
        """
        openai = self._sdk()
        key = self.api_key
        if not key and self.api_base and not os.environ.get("OPENAI_API_KEY"):
            key = "not-needed"  # local OpenAI-compatible servers usually take no key; the SDK insists on one
        try:
            return openai.OpenAI(
                base_url=self.api_base,
                api_key=key,
                organization=self.organization,
                project=self.project,
                **{"max_retries": 0, **self.client_kwargs},
            )
        except openai.OpenAIError as error:
            raise SmolError(
                f"No OpenAI API key ({error}): pass api_key=... or set OPENAI_API_KEY (or give api_base=... "
                "for a local OpenAI-compatible server)."
            ) from error

    def request_timeout(self) -> Any:
        """The time-out of each request, unless the client was given one (`client_kwargs["timeout"]`)."""
        if "timeout" in self.client_kwargs or "timeout" in self.kwargs:
            return None
        return default_timeout(self._sdk())

    @property
    def endpoint(self) -> str:
        """Where requests go, for error messages."""
        base = getattr(self.client, "base_url", None) or self.api_base or "https://api.openai.com/v1"
        return str(base).rstrip("/")

    def call_api(self, payload: dict[str, Any], stream: bool) -> Any:
        timeout = self.request_timeout()
        if timeout is not None and "timeout" not in payload:
            payload = {**payload, "timeout": timeout}
        return self.client.chat.completions.create(**payload)

    # --- tool calls through a JSON schema ------------------------------------------------------------

    def _calls_tools_through_schema(self, request: ModelRequest) -> bool:
        return (
            bool(request.tools_to_call_from)
            and self.tool_calling == "json_schema"
            and request.tool_choice != "none"
        )

    def chat_payload(self, request: ModelRequest) -> dict[str, Any]:
        if request.grammar is not None:  # not an SDK argument: llama.cpp's server reads it from the body
            options = dict(request.options)
            extra_body = {**(self.kwargs.get("extra_body") or {}), **(options.get("extra_body") or {})}
            options["extra_body"] = {**extra_body, "grammar": request.grammar}
            request = replace(request, grammar=None, options=options)
        if not self._calls_tools_through_schema(request):
            return super().chat_payload(request)
        schemas = [get_tool_json_schema(tool) for tool in request.tools_to_call_from or []]
        body = self.chat_body(request, response_format=None, tools_to_call_from=None)
        body["messages"] = with_system_note(body["messages"], tools_prompt(schemas))
        body["response_format"] = tool_call_response_format(schemas)
        payload = self.with_options({"model": self.model_id, **body}, replace(request, tool_choice=None))
        payload.pop("tool_choice", None)  # the schema is the choice: a request has none to make
        return payload

    def parse_response(self, response: Any, request: ModelRequest) -> ChatMessage:
        message = super().parse_response(response, request)
        if self._calls_tools_through_schema(request):
            message.tool_calls = [tool_call_from_json(message.text)]
            message.content = None
        return message

    def request_stream(self, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        if self._calls_tools_through_schema(request):  # a call is only usable whole: it comes as one
            yield from tool_call_deltas(self.request(request))
            return
        yield from super().request_stream(request)

    # --- errors -----------------------------------------------------------------------------------

    def error_message(self, error: Exception, status: int | None, during_stream: bool) -> str:
        """What went wrong, where, and what to do."""
        where = f"{self.provider_name} at {self.endpoint}"
        attempts = self.attempts(error)
        detail = _server_message(error)
        name = type(error).__name__
        if during_stream:
            return f"{where} broke off the streamed reply of {self.model_id!r}: {name}: {detail}"
        if name == "APITimeoutError":
            # Not tried again once the time-out has used up the call's deadline (the default): the
            # server, a local one above all, is still working on the reply, and a second request
            # would wait behind it. What helps a slow model is a longer time-out.
            return (
                f"{where} did not answer in time for {self.model_id!r} ({attempts} attempt(s)): {detail}. "
                "A slow model (a large one on a CPU, a busy server) needs a longer time-out: "
                "timeout=300 (seconds) in Python, smolagent --model-kwargs '{\"timeout\": 300}' on the "
                "command line."
            )
        if name == "APIConnectionError":
            return (
                f"Could not reach {where} ({attempts} attempt(s)): {detail}. Is the server running, and is "
                "api_base right?"
            )
        if status == 401:
            return (
                f"{where} rejected the API key (401) for {self.model_id!r}: {detail}. Check api_key (or the "
                "key's environment variable)."
            )
        if status == 403:
            return f"{where} refused access to {self.model_id!r} (403): {detail}"
        if status == 404:
            return f"{where} does not know the model or route {self.model_id!r} (404): {detail}"
        if status == 429:
            return f"{where} kept rate-limiting {self.model_id!r} after {attempts} attempt(s) (429): {detail}"
        if status is not None and status >= 500:
            return f"{where} failed with {status} for {self.model_id!r} after {attempts} attempt(s): {detail}"
        if status is not None:
            return f"{where} refused the request for {self.model_id!r} ({status}): {detail}"
        return f"{where} failed for {self.model_id!r}: {name}: {detail}"

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["tool_calling"] = self.tool_calling
        return data


class AzureOpenAIServerModel(OpenAIServerModel):
    """A deployment on Azure OpenAI. `model_id` is the deployment name.

    Args:
        model_id: the deployment name (requests go to `/openai/deployments/<model_id>/...`).
        azure_endpoint: `https://<resource>.openai.azure.com` (default: `AZURE_OPENAI_ENDPOINT`).
        api_key: the key, sent as the `api-key` header (default: `AZURE_OPENAI_API_KEY`).
        api_version: e.g. `2024-10-21` (default: `OPENAI_API_VERSION`).
        azure_ad_token_provider: a callable giving Entra ID tokens, instead of a key.
    """

    provider_name = "Azure OpenAI"

    def __init__(
        self,
        model_id: str,
        azure_endpoint: str | None = None,
        api_key: str | None = None,
        api_version: str | None = None,
        client_kwargs: dict[str, Any] | None = None,
        custom_role_conversions: dict[str, str] | None = None,
        flatten_messages_as_text: bool = False,
        azure_ad_token_provider: Any | None = None,
        **kwargs: Any,
    ) -> None:
        self.azure_endpoint = azure_endpoint or os.environ.get("AZURE_OPENAI_ENDPOINT")
        self.api_version = api_version or os.environ.get("OPENAI_API_VERSION")
        self.azure_ad_token_provider = azure_ad_token_provider
        super().__init__(
            model_id=model_id,
            api_key=api_key,
            client_kwargs=client_kwargs,
            custom_role_conversions=custom_role_conversions,
            flatten_messages_as_text=flatten_messages_as_text,
            **kwargs,
        )

    def create_client(self) -> Any:
        """`openai.AzureOpenAI(base_url=api_base, api_key=..., api_version=..., azure_endpoint=...,
        organization=..., project=..., **client_kwargs)`, as `OpenAIServerModel.create_client`; what
        the SDK finds missing (endpoint, version, credentials) is said in one line."""
        openai = self._sdk()
        options: dict[str, Any] = {"max_retries": 0, **self.client_kwargs}
        if self.azure_ad_token_provider is not None:
            options["azure_ad_token_provider"] = self.azure_ad_token_provider
        try:
            return openai.AzureOpenAI(
                base_url=self.api_base,
                api_key=self.api_key,
                api_version=self.api_version,
                azure_endpoint=self.azure_endpoint,
                organization=self.organization,
                project=self.project,
                **options,
            )
        except (openai.OpenAIError, ValueError) as error:
            raise SmolError(
                f"Azure OpenAI is not configured ({error}): give azure_endpoint= (or AZURE_OPENAI_ENDPOINT), "
                "api_version= (or OPENAI_API_VERSION) and api_key= (or AZURE_OPENAI_API_KEY, or "
                "azure_ad_token_provider=)."
            ) from error

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["api_version"] = self.api_version
        return data


def default_timeout(openai: Any) -> Any:
    """A short connect time-out and a read time-out of a minute (the SDK's own is ten minutes, per
    attempt): with the retry policy's deadline, a dead server surfaces in about a minute."""
    return openai.Timeout(DEFAULT_TIMEOUT, connect=CONNECT_TIMEOUT)


# Names used by smolagents' newer releases.
OpenAIModel = OpenAIServerModel
AzureOpenAIModel = AzureOpenAIServerModel


def _server_message(error: Exception) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    cause = error.__cause__ or error.__context__
    text = str(error)
    if cause is not None and str(cause) and str(cause) not in text:
        text = f"{text} ({cause})"
    return text
