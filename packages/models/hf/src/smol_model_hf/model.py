"""`InferenceClientModel`: Hugging Face Inference Providers, Inference Endpoints, or any TGI/OpenAI-style server.

`huggingface_hub.InferenceClient.chat_completion` speaks the OpenAI chat-completions protocol, so the
same class reaches a hosted provider (`provider="together"`...), a dedicated endpoint, or a local
server given as `base_url`. huggingface_hub is imported when the client is made.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, ClassVar

from smol_core.plugin_api import (
    DEFAULT_TIMEOUT,
    ChatCompletionsModel,
    ModelAPIError,
    ModelCapabilities,
    ModelRequest,
    RetryPolicy,
    install_hint,
    model_supports_stop,
)

DEFAULT_MODEL_ID = "Qwen/Qwen3-Next-80B-A3B-Thinking"

STRUCTURED_GENERATION_PROVIDERS = ("cerebras", "fireworks-ai")
"""Inference providers that follow a `response_format`, as smolagents lists them. With another named
provider a request with one is refused at once; with the router's own choice (no provider, or
"auto") or a `base_url` server, the request is sent and the server decides."""


class InferenceClientError(ModelAPIError):
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


class InferenceClientModel(ChatCompletionsModel):
    """A model served through `huggingface_hub.InferenceClient`.

    Args:
        model_id: a hub model id (or an endpoint URL); with `base_url`, the name the server knows.
        provider: the inference provider (`"together"`, `"sambanova"`, `"hf-inference"`...; default "auto").
        token: a Hugging Face token (default: `HF_TOKEN` or the cached login); `api_key` is an alias.
        timeout: seconds to wait for an answer.
        client_kwargs: more arguments for `InferenceClient` (`headers`, `cookies`...).
        bill_to: an organisation to bill (Enterprise Hub).
        base_url: a server to call instead of a provider, e.g. `http://127.0.0.1:8080/v1`.
        api_base: another name for `base_url` (as the other API models and `smolagent --api-base` call it).
        supports_stop: whether the backend takes `stop` (guessed from the model name otherwise).
        retry_policy: backoff for 429, 5xx and time-outs.
        **kwargs: defaults for every `chat_completion` call (`temperature`, `max_tokens`, `seed`...).
    """

    capabilities = ModelCapabilities(
        stop_sequences=True, tool_calling=True, structured_output=True, vision=True, streaming=True
    )
    provider_name: ClassVar[str] = "Hugging Face"
    error_class: ClassVar[type[ModelAPIError]] = InferenceClientError

    def __init__(
        self,
        model_id: str = DEFAULT_MODEL_ID,
        provider: str | None = None,
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        client_kwargs: dict[str, Any] | None = None,
        custom_role_conversions: dict[str, str] | None = None,
        api_key: str | None = None,
        bill_to: str | None = None,
        base_url: str | None = None,
        api_base: str | None = None,
        supports_stop: bool | None = None,
        retry_policy: RetryPolicy | None = None,
        **kwargs: Any,
    ) -> None:
        if token is not None and api_key is not None:
            raise ValueError(
                "Received both `token` and `api_key` arguments. Please provide only one of them: "
                "`api_key` is another name for `token`."
            )
        if base_url is not None and api_base is not None and base_url != api_base:
            raise ValueError(
                "Received both `base_url` and `api_base`: give one (`api_base` is another name for it)."
            )
        base_url = base_url if base_url is not None else api_base
        token = token if token is not None else api_key
        self.provider = provider
        self.timeout = timeout
        self.base_url = base_url
        self.api_base = base_url  # what `to_dict` saves, and `from_dict` gives back as `api_base`
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
                f"InferenceClientModel needs huggingface_hub: {install_hint('huggingface_hub')}"
            ) from error
        return InferenceClient(**{k: v for k, v in self.client_kwargs.items() if v is not None})

    @property
    def endpoint(self) -> str:
        return self.base_url or f"Hugging Face ({self.provider or 'auto'} provider)"

    def chat_payload(self, request: ModelRequest) -> dict[str, Any]:
        response_format = request.response_format
        named_provider = self.provider not in (None, "auto") and not self.base_url
        if (
            response_format is not None
            and named_provider
            and self.provider not in STRUCTURED_GENERATION_PROVIDERS
        ):
            raise ValueError(
                "InferenceClientModel only supports structured outputs with these providers: "
                + ", ".join(STRUCTURED_GENERATION_PROVIDERS)
                + f" (or a base_url server); {self.provider!r} is not one of them."
            )
        if response_format is not None and self.base_url:
            response_format = for_server(response_format)
        payload = self.chat_body(request, response_format=response_format)
        if self.base_url:
            payload["model"] = self.model_id
        return self.with_options(payload, request)

    def call_api(self, payload: dict[str, Any], stream: bool) -> Any:
        try:
            return self.client.chat_completion(**payload)
        except Exception as error:
            if type(error).__name__ == "OfflineModeIsEnabled":  # not worth a retry: say what to do
                raise InferenceClientError(
                    f"huggingface_hub refuses every request, even to {self.endpoint}, while HF_HUB_OFFLINE=1: "
                    "unset it for this process (it also blocks local servers given as base_url).",
                    model_id=self.model_id,
                    provider=self.provider_name,
                ) from error
            lineage = " ".join(c.__name__.lower() for c in type(error).__mro__)
            if "connecterror" in lineage or "connectionerror" in lineage:
                raise ConnectionError(str(error)) from error  # retryable, whatever the HTTP library
            raise

    def error_message(self, error: Exception, status: int | None, during_stream: bool) -> str:
        where = f"{self.model_id!r} at {self.endpoint}"
        if during_stream:
            return f"The streamed reply of {where} broke off: {type(error).__name__}: {error}"
        hint = {401: " Check the token (HF_TOKEN).", 402: " The account is out of credits."}.get(
            status or 0, ""
        )
        if isinstance(error, ConnectionError):
            hint = " Is the server running, and is base_url right?"
        return (
            f"Hugging Face inference call to {where} failed (status {status}, {self.attempts(error)} "
            f"attempt(s)): {type(error).__name__}: {error}.{hint}"
        )
