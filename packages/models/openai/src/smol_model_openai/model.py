"""`OpenAIServerModel` and `AzureOpenAIServerModel`, through the official `openai` SDK.

The SDK is imported when a model is built, never when the plugin is discovered. Its own retries are
switched off (unless `client_kwargs` sets `max_retries`) so that the core's `RetryPolicy` decides:
429, 5xx, time-outs and refused connections are retried with backoff, then turned into an
`AgentGenerationError` that says what went wrong and where.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from smol_core.errors import AgentGenerationError, SmolError
from smol_core.messages import ChatMessage, ChatMessageStreamDelta, TokenUsage
from smol_core.models.base import ApiModel, ModelCapabilities, get_tool_json_schema
from smol_core.models.openai_format import (
    chat_request,
    message_from_response,
    model_supports_stop,
    refuses_stop,
    stream_deltas,
)
from smol_core.models.schema_tool_calls import (
    tool_call_deltas,
    tool_call_from_json,
    tool_call_response_format,
    tools_prompt,
    with_system_note,
)

TOOL_CALLING_MODES = ("native", "json_schema")


class OpenAIServerModel(ApiModel):
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
        retry_policy: backoff settings (`RetryPolicy(max_attempts=..., base_delay=...)`).
        **kwargs: default request options (temperature, max_tokens, seed, extra_body...).
    """

    capabilities = ModelCapabilities(
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
        self.capabilities = replace(type(self).capabilities, stop_sequences=stop)

    # --- client -----------------------------------------------------------------------------------

    def _sdk(self) -> Any:
        try:
            import openai
        except ImportError as error:  # pragma: no cover - a declared dependency
            raise SmolError(
                "OpenAIServerModel needs the openai SDK: pip install smol-model-openai"
            ) from error
        return openai

    def create_client(self) -> Any:
        openai = self._sdk()
        key = self.api_key or os.environ.get("OPENAI_API_KEY")
        if not key and self.api_base:
            key = "not-needed"  # local OpenAI-compatible servers usually take no key; the SDK insists on one
        if not key:
            raise SmolError(
                "No OpenAI API key: pass api_key=... or set OPENAI_API_KEY (or give api_base=... for a local "
                "OpenAI-compatible server)."
            )
        options = {"max_retries": 0, **self.client_kwargs}
        return openai.OpenAI(
            base_url=self.api_base,
            api_key=key,
            organization=self.organization,
            project=self.project,
            **options,
        )

    @property
    def endpoint(self) -> str:
        """Where requests go, for error messages."""
        base = getattr(self.client, "base_url", None) or self.api_base or "https://api.openai.com/v1"
        return str(base).rstrip("/")

    # --- requests ---------------------------------------------------------------------------------

    def _completion_kwargs(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None,
        response_format: dict[str, Any] | None,
        tools_to_call_from: list[Any] | None,
        kwargs: dict[str, Any],
    ) -> dict[str, Any]:
        through_schema = self._calls_tools_through_schema(tools_to_call_from, kwargs)
        body = chat_request(
            messages,
            role_conversions=self.custom_role_conversions,
            flatten_messages_as_text=self.flatten_messages_as_text,
            stop_sequences=stop_sequences,
            send_stop=self.supports_stop_parameter,
            response_format=None if through_schema else response_format,
            tools_to_call_from=None if through_schema else tools_to_call_from,
        )
        if through_schema:
            schemas = [get_tool_json_schema(tool) for tool in tools_to_call_from or []]
            body["messages"] = with_system_note(body["messages"], tools_prompt(schemas))
            body["response_format"] = tool_call_response_format(schemas)
            kwargs = {k: v for k, v in kwargs.items() if k != "tool_choice"}
        return {"model": self.model_id, **body, **self.kwargs, **kwargs}

    def _calls_tools_through_schema(
        self, tools_to_call_from: list[Any] | None, kwargs: dict[str, Any]
    ) -> bool:
        return (
            bool(tools_to_call_from)
            and self.tool_calling == "json_schema"
            and kwargs.get("tool_choice") != "none"
        )

    def generate(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> ChatMessage:
        request = self._completion_kwargs(
            messages, stop_sequences, response_format, tools_to_call_from, kwargs
        )
        through_schema = self._calls_tools_through_schema(tools_to_call_from, kwargs)
        response = self._request(request)
        try:
            message = message_from_response(response, stop_sequences)
        except ValueError as error:
            raise AgentGenerationError(
                f"{self.provider_name} at {self.endpoint} sent a malformed reply: {error}"
            ) from error
        message.token_usage = message.token_usage or TokenUsage(0, 0)
        if through_schema:
            message.tool_calls = [tool_call_from_json(message.text)]
            message.content = None
        return message

    def generate_stream(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatMessageStreamDelta]:
        if self._calls_tools_through_schema(tools_to_call_from, kwargs):
            yield from tool_call_deltas(
                self.generate(messages, stop_sequences, response_format, tools_to_call_from, **kwargs)
            )
            return
        request = self._completion_kwargs(
            messages, stop_sequences, response_format, tools_to_call_from, kwargs
        )
        request["stream"] = True
        request.setdefault("stream_options", {"include_usage": True})
        stream = self._request(request)
        usage_seen = False
        try:
            for delta in stream_deltas(stream, stop_sequences):
                usage_seen = usage_seen or delta.token_usage is not None
                yield delta
        except Exception as error:
            raise self._describe(error, during_stream=True) from error
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
        if not usage_seen:  # every call records its usage, if only as unknown
            yield ChatMessageStreamDelta(token_usage=TokenUsage(0, 0))

    # --- errors -----------------------------------------------------------------------------------

    def _request(self, request: dict[str, Any]) -> Any:
        """One call with retries; a server that refuses `stop` is asked again without it (and remembered)."""
        try:
            return self.call_with_retries(
                lambda: self.client.chat.completions.create(**request),
                describe=f"{self.provider_name} {self.model_id} at {self.endpoint}",
            )
        except Exception as error:
            if refuses_stop(error, request):
                self.capabilities = replace(self.capabilities, stop_sequences=False)
                return self._request({k: v for k, v in request.items() if k != "stop"})
            raise self._describe(error) from error

    def _describe(self, error: Exception, during_stream: bool = False) -> Exception:
        """An `AgentGenerationError` that says what went wrong, where, and what to do."""
        if isinstance(error, AgentGenerationError | SmolError):
            return error
        where = f"{self.provider_name} at {self.endpoint}"
        attempts = self.retry_policy.max_attempts
        status = getattr(error, "status_code", None)
        detail = _server_message(error)
        name = type(error).__name__
        if during_stream:
            text = f"{where} broke off the streamed reply of {self.model_id!r}: {name}: {detail}"
        elif name == "APITimeoutError":
            text = f"{where} did not answer in time for {self.model_id!r} ({attempts} attempt(s)): {detail}"
        elif name == "APIConnectionError":
            text = (
                f"Could not reach {where} ({attempts} attempt(s)): {detail}. Is the server running, and is "
                "api_base right?"
            )
        elif status == 401:
            text = f"{where} rejected the API key (401): {detail}. Check api_key (or the key's environment variable)."
        elif status == 403:
            text = f"{where} refused access to {self.model_id!r} (403): {detail}"
        elif status == 404:
            text = f"{where} does not know the model or route {self.model_id!r} (404): {detail}"
        elif status == 429:
            text = f"{where} kept rate-limiting {self.model_id!r} after {attempts} attempt(s) (429): {detail}"
        elif isinstance(status, int) and status >= 500:
            text = f"{where} failed with {status} after {attempts} attempt(s): {detail}"
        elif isinstance(status, int):
            text = f"{where} refused the request for {self.model_id!r} ({status}): {detail}"
        else:
            text = f"{where} failed for {self.model_id!r}: {name}: {detail}"
        return AgentGenerationError(text)

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
        openai = self._sdk()
        if not self.azure_endpoint:
            raise SmolError("No Azure endpoint: pass azure_endpoint=... or set AZURE_OPENAI_ENDPOINT.")
        if not self.api_version:
            raise SmolError(
                "No Azure API version: pass api_version=... (e.g. '2024-10-21') or set OPENAI_API_VERSION."
            )
        key = self.api_key or os.environ.get("AZURE_OPENAI_API_KEY")
        if not key and self.azure_ad_token_provider is None:
            raise SmolError(
                "No Azure OpenAI credentials: pass api_key=..., set AZURE_OPENAI_API_KEY, or pass azure_ad_token_provider."
            )
        options = {"max_retries": 0, **self.client_kwargs}
        return openai.AzureOpenAI(
            azure_endpoint=self.azure_endpoint,
            api_key=key,
            api_version=self.api_version,
            azure_ad_token_provider=self.azure_ad_token_provider,
            **options,
        )

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["api_version"] = self.api_version
        return data


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
