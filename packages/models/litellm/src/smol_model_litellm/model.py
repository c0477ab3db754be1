"""`LiteLLMModel` and `LiteLLMRouterModel`: a hundred providers behind LiteLLM's one client.

`import litellm` takes seconds and, by default, fetches a price list from the internet: it is
imported only when a model is built, with `LITELLM_LOCAL_MODEL_COST_MAP=True` set first so that it
reads the copy it ships with instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from smol_core.plugin_api import (
    DEFAULT_TIMEOUT,
    CapabilityDetector,
    ChatCompletionsModel,
    DetectedCapabilities,
    ModelAPIError,
    ModelCapabilities,
    ModelRequest,
    RetryPolicy,
    TokenUsage,
    install_hint,
    model_supports_stop,
)

# Providers whose chat endpoints take a message's content as one string, not a list of parts.
FLAT_TEXT_PREFIXES = ("ollama", "groq", "cerebras")
# Providers that are a server the user runs (llama.cpp, vLLM, Ollama...): it is asked what it serves.
SELF_HOSTED_PREFIXES = ("openai/", "hosted_vllm/", "ollama/", "ollama_chat/", "llamafile/", "lm_studio/")
OLLAMA_DEFAULT_BASE = "http://localhost:11434"


class LiteLLMError(ModelAPIError):
    """A LiteLLM call failed for good: refused, or still failing after the retries."""


def import_litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(f"LiteLLMModel needs litellm: {install_hint('litellm')}") from error
    # LiteLLM prints a "Give Feedback / Get Help" banner to stdout before raising each error: stdout
    # is the answer's (`answer=$(smolagent ...)`), and the error itself says what went wrong.
    litellm.suppress_debug_info = True
    return litellm


class LiteLLMModel(DetectedCapabilities, ChatCompletionsModel):
    """Any model LiteLLM reaches: `"openai/gpt-4o"`, `"anthropic/claude-..."`, `"ollama/qwen2.5"`...

    Args:
        model_id: LiteLLM's `provider/model` name.
        api_base: the provider's URL, e.g. a local OpenAI-compatible server's `http://127.0.0.1:8080/v1`.
        api_key: the key (LiteLLM otherwise reads the provider's usual environment variable).
        custom_role_conversions: e.g. `{"system": "user"}` for models without a system role.
        flatten_messages_as_text: send content as one string (default: for ollama, groq, cerebras).
        supports_stop: whether the backend takes `stop` (guessed from the model name; reasoning models
            do not). Without it, or when the server refuses it, replies are cut client-side.
        retry_policy: backoff for 429, 5xx and time-outs.
        capabilities, small, detect_capabilities: as for `OpenAIServerModel`; a self-hosted provider
            (`openai/`, `hosted_vllm/`, `ollama/`... with `api_base` on this machine or a private
            network) is asked what it serves, so the agent prompts a small model as one.
        **kwargs: defaults for every `completion` call (`temperature`, `max_tokens`, `num_ctx`...).
    """

    base_capabilities = ModelCapabilities(
        stop_sequences=True, tool_calling=True, structured_output=True, vision=True, streaming=True
    )
    provider_name: ClassVar[str] = "LiteLLM"
    error_class: ClassVar[type[ModelAPIError]] = LiteLLMError

    def __init__(
        self,
        model_id: str | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
        custom_role_conversions: dict[str, str] | None = None,
        flatten_messages_as_text: bool | None = None,
        supports_stop: bool | None = None,
        retry_policy: RetryPolicy | None = None,
        capabilities: ModelCapabilities | Mapping[str, bool] | None = None,
        small: bool | None = None,
        detect_capabilities: bool | None = None,
        **kwargs: Any,
    ) -> None:
        if not model_id:
            raise ValueError(
                "LiteLLMModel needs a model_id such as 'openai/gpt-4o-mini' or 'ollama/qwen2.5'."
            )
        self.api_base = api_base
        self.api_key = api_key
        if flatten_messages_as_text is None:
            flatten_messages_as_text = model_id.startswith(FLAT_TEXT_PREFIXES)
        super().__init__(
            model_id=model_id,
            custom_role_conversions=custom_role_conversions,
            flatten_messages_as_text=flatten_messages_as_text,
            **kwargs,
        )
        if retry_policy is not None:
            self.retry_policy = retry_policy
        stop = model_supports_stop(model_id) if supports_stop is None else supports_stop
        if small is not None and not isinstance(capabilities, ModelCapabilities):
            capabilities = {**(capabilities or {}), "small": small}
        self_hosted = model_id.startswith(SELF_HOSTED_PREFIXES)
        server = api_base or (OLLAMA_DEFAULT_BASE if model_id.startswith("ollama") else None)
        self.detector = CapabilityDetector(
            replace(type(self).base_capabilities, stop_sequences=stop),
            api_base=server if self_hosted else None,
            model_id=model_id.split("/", 1)[1] if self_hosted else model_id,
            api_key=api_key,
            override=capabilities,
            detect=detect_capabilities,
        )

    def create_client(self) -> Any:
        return import_litellm()

    @property
    def endpoint(self) -> str:
        return self.api_base or "the provider's API"

    def chat_payload(self, request: ModelRequest) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.model_id, **self.chat_body(request)}
        if self.api_base:
            payload["api_base"] = self.api_base
        if self.api_key:
            payload["api_key"] = self.api_key
        # The SDK under LiteLLM retries on its own; `retry_policy` is the one place that decides.
        payload["max_retries"] = 0
        payload.setdefault("timeout", DEFAULT_TIMEOUT)  # LiteLLM's own is ten minutes
        payload = self.with_options(payload, request)
        if "grammar" in payload:  # llama.cpp's server reads it from the body; LiteLLM passes extra_body on
            payload["extra_body"] = {**(payload.get("extra_body") or {}), "grammar": payload.pop("grammar")}
        return payload

    def call_api(self, payload: dict[str, Any], stream: bool) -> Any:
        return self.client.completion(**payload)

    def cost_of(self, usage: TokenUsage) -> float | None:
        """The calls' price from LiteLLM's bundled price map (read offline); None for a model the map
        does not list (a self-hosted one, a new release): a run's cost budget then says so."""
        try:
            prompt, completion = import_litellm().cost_per_token(
                model=self.model_id, prompt_tokens=usage.input_tokens, completion_tokens=usage.output_tokens
            )
        except Exception:  # LiteLLM raises when the model is not in its map
            return None
        return float(prompt) + float(completion)

    def error_message(self, error: Exception, status: int | None, during_stream: bool) -> str:
        where = f"{self.model_id!r} at {self.endpoint}"
        if during_stream:
            return f"The streamed reply of {where} broke off: {type(error).__name__}: {error}"
        detail = f"{type(error).__name__}: {error}"
        if _says_missing_key(detail):  # the cause first: the rest of a LiteLLM error is long
            return (
                f"Missing API Key for {where}: pass api_key=... or set the provider's key variable "
                f"(e.g. {(self.model_id or '').split('/')[0].upper()}_API_KEY). {detail}"
            )
        hint = ""
        if status == 401:
            hint = " Check api_key or the provider's key variable."
        elif "timeout" in type(error).__name__.lower():  # not asked again: the server is still busy with it
            hint = (
                " A slow model needs a longer time-out: timeout=300 (seconds) in Python, "
                "smolagent --model-kwargs '{\"timeout\": 300}' on the command line."
            )
        elif "connect" in f"{type(error).__name__} {error}".lower():
            hint = " Is the server running, and is api_base right?"
        return (
            f"LiteLLM call to {where} failed (status {status}, {self.attempts(error)} attempt(s)): "
            f"{type(error).__name__}: {error}.{hint}"
        )


class LiteLLMRouterModel(LiteLLMModel):
    """Several deployments behind LiteLLM's `Router`: load balancing, fallbacks, cooldowns.

    Args:
        model_id: the model group to call (a `model_name` in `model_list`).
        model_list: LiteLLM deployments, `[{"model_name": ..., "litellm_params": {"model": ..., ...}}]`.
        client_kwargs: more arguments for `Router` (`routing_strategy`, `fallbacks`, `num_retries`...).
        **kwargs: as for `LiteLLMModel`.
    """

    def __init__(
        self,
        model_id: str,
        model_list: list[dict[str, Any]],
        client_kwargs: dict[str, Any] | None = None,
        custom_role_conversions: dict[str, str] | None = None,
        flatten_messages_as_text: bool | None = None,
        **kwargs: Any,
    ) -> None:
        self.client_kwargs = {"model_list": model_list, **(client_kwargs or {})}
        super().__init__(
            model_id=model_id,
            custom_role_conversions=custom_role_conversions,
            flatten_messages_as_text=flatten_messages_as_text,
            **kwargs,
        )

    def create_client(self) -> Any:
        import_litellm()
        from litellm.router import Router

        return Router(**self.client_kwargs)

    @property
    def endpoint(self) -> str:
        return "the LiteLLM router"


def _says_missing_key(text: str) -> bool:
    """Whether a provider's error says its key is missing (LiteLLM reports some as a 500)."""
    lowered = text.lower()
    return any(
        words in lowered
        for words in ("api_key client option must be set", "missing api key", "missing credentials")
    )
