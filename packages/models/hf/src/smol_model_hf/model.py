"""`InferenceClientModel`: Hugging Face Inference Providers, Inference Endpoints, or any TGI/OpenAI-style server.

`huggingface_hub.InferenceClient.chat_completion` speaks the OpenAI chat-completions protocol, so the
same class reaches a hosted provider (`provider="together"`...), a dedicated endpoint, or a local
server given as `base_url`. huggingface_hub is imported when the client is made.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from smol_core.errors import AgentGenerationError
from smol_core.messages import ChatMessage, ChatMessageStreamDelta
from smol_core.models.base import ApiModel, ModelCapabilities, RetryPolicy, error_status
from smol_core.models.openai_format import (
    chat_request,
    message_from_response,
    model_supports_stop,
    refuses_stop,
    stream_deltas,
)

DEFAULT_MODEL_ID = "Qwen/Qwen3-Next-80B-A3B-Thinking"


class InferenceClientError(AgentGenerationError):
    """A Hugging Face inference call failed for good: refused, or still failing after the retries."""


def for_server(response_format: dict[str, Any]) -> dict[str, Any]:
    """A JSON-schema `response_format` that both TGI and OpenAI-style servers read.

    For a `base_url`, huggingface_hub rewrites `json_schema` into TGI's `{"type": "json_object",
    "value": schema}`, which llama.cpp ignores (it reads `schema`): give the schema under both keys.
    """
    spec = response_format.get("json_schema") if response_format.get("type") == "json_schema" else None
    if not isinstance(spec, dict) or "schema" not in spec:
        return response_format
    return {"type": "json_object", "value": spec["schema"], "schema": spec["schema"]}


class InferenceClientModel(ApiModel):
    """A model served through `huggingface_hub.InferenceClient`.

    Args:
        model_id: a hub model id (or an endpoint URL); with `base_url`, the name the server knows.
        provider: the inference provider (`"together"`, `"sambanova"`, `"hf-inference"`...; default "auto").
        token: a Hugging Face token (default: `HF_TOKEN` or the cached login); `api_key` is an alias.
        timeout: seconds to wait for an answer.
        client_kwargs: more arguments for `InferenceClient` (`headers`, `cookies`...).
        bill_to: an organisation to bill (Enterprise Hub).
        base_url: a server to call instead of a provider, e.g. `http://127.0.0.1:8080/v1`.
        supports_stop: whether the backend takes `stop` (guessed from the model name otherwise).
        retry_policy: backoff for 429, 5xx and time-outs.
        **kwargs: defaults for every `chat_completion` call (`temperature`, `max_tokens`, `seed`...).
    """

    capabilities = ModelCapabilities(
        stop_sequences=True, tool_calling=True, structured_output=True, vision=True, streaming=True
    )

    def __init__(
        self,
        model_id: str = DEFAULT_MODEL_ID,
        provider: str | None = None,
        token: str | None = None,
        timeout: int = 120,
        client_kwargs: dict[str, Any] | None = None,
        custom_role_conversions: dict[str, str] | None = None,
        api_key: str | None = None,
        bill_to: str | None = None,
        base_url: str | None = None,
        supports_stop: bool | None = None,
        retry_policy: RetryPolicy | None = None,
        **kwargs: Any,
    ) -> None:
        if token is not None and api_key is not None:
            raise ValueError("Give `token` or `api_key` (its alias), not both.")
        token = token if token is not None else api_key
        self.provider = provider
        self.timeout = timeout
        self.base_url = base_url
        self.client_kwargs = {
            **(client_kwargs or {}),
            "provider": provider,
            "token": token if token is not None else os.getenv("HF_TOKEN"),
            "timeout": timeout,
            "bill_to": bill_to,
        }
        if base_url:
            self.client_kwargs["base_url"] = base_url  # InferenceClient takes a model or a base_url, not both
        else:
            self.client_kwargs["model"] = model_id
        super().__init__(model_id=model_id, custom_role_conversions=custom_role_conversions, **kwargs)
        if retry_policy is not None:
            self.retry_policy = retry_policy
        stop = model_supports_stop(model_id) if supports_stop is None else supports_stop
        self.capabilities = replace(type(self).capabilities, stop_sequences=stop)

    def create_client(self) -> Any:
        try:
            from huggingface_hub import InferenceClient
        except ModuleNotFoundError as error:
            raise ModuleNotFoundError(
                "InferenceClientModel needs huggingface_hub: pip install smol-model-hf"
            ) from error
        return InferenceClient(**{k: v for k, v in self.client_kwargs.items() if v is not None})

    @property
    def endpoint(self) -> str:
        return self.base_url or f"Hugging Face ({self.provider or 'auto'} provider)"

    def _request(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None,
        response_format: dict[str, Any] | None,
        tools_to_call_from: list[Any] | None,
        kwargs: dict[str, Any],
    ) -> dict[str, Any]:
        if response_format is not None and self.base_url:
            response_format = for_server(response_format)
        request = chat_request(
            messages,
            role_conversions=self.custom_role_conversions,
            flatten_messages_as_text=self.flatten_messages_as_text,
            stop_sequences=stop_sequences,
            send_stop=self.capabilities.stop_sequences,
            response_format=response_format,
            tools_to_call_from=tools_to_call_from,
        )
        if self.base_url:
            request["model"] = self.model_id
        request.update(self.kwargs)
        request.update(kwargs)
        return request

    def _call(self, request: dict[str, Any]) -> Any:
        """One call with retries; a backend that refuses `stop` is asked again without it (and remembered)."""

        def attempt() -> Any:
            try:
                return self.client.chat_completion(**request)
            except Exception as error:
                if type(error).__name__ == "OfflineModeIsEnabled":  # not worth a retry: say what to do
                    raise InferenceClientError(
                        f"huggingface_hub refuses every request, even to {self.endpoint}, while HF_HUB_OFFLINE=1: "
                        "unset it for this process (it also blocks local servers given as base_url)."
                    ) from error
                lineage = " ".join(c.__name__.lower() for c in type(error).__mro__)
                if "connecterror" in lineage or "connectionerror" in lineage:
                    raise ConnectionError(str(error)) from error  # retryable, whatever the HTTP library
                raise

        self._apply_rate_limit()
        try:
            return self.retry_policy.run(attempt, describe=f"InferenceClientModel {self.model_id}")
        except InferenceClientError:
            raise
        except Exception as error:
            if refuses_stop(error, request):
                self.capabilities = replace(self.capabilities, stop_sequences=False)
                return self._call({k: v for k, v in request.items() if k != "stop"})
            raise self.describe(error) from error

    def describe(self, error: Exception, during_stream: bool = False) -> InferenceClientError:
        where = f"{self.model_id!r} at {self.endpoint}"
        if during_stream:
            return InferenceClientError(
                f"The streamed reply of {where} broke off: {type(error).__name__}: {error}"
            )
        status = error_status(error)
        hint = {401: " Check the token (HF_TOKEN).", 402: " The account is out of credits."}.get(
            status or 0, ""
        )
        if isinstance(error, ConnectionError):
            hint = " Is the server running, and is base_url right?"
        return InferenceClientError(
            f"Inference call to {where} failed (status {status}, up to {self.retry_policy.max_attempts} "
            f"attempt(s)): {type(error).__name__}: {error}.{hint}"
        )

    # --- Model API -------------------------------------------------------------------------------

    def generate(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> ChatMessage:
        response = self._call(
            self._request(messages, stop_sequences, response_format, tools_to_call_from, kwargs)
        )
        try:
            return message_from_response(response, stop_sequences)
        except ValueError as error:
            raise InferenceClientError(
                f"{self.model_id!r} at {self.endpoint} sent a malformed reply: {error}"
            ) from error

    def generate_stream(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatMessageStreamDelta]:
        request = self._request(messages, stop_sequences, response_format, tools_to_call_from, kwargs)
        request.update(stream=True, stream_options={"include_usage": True})
        stream: Iterator[Any] = self._call(request)
        try:
            yield from stream_deltas(stream, stop_sequences)
        except Exception as error:
            raise self.describe(error, during_stream=True) from error
