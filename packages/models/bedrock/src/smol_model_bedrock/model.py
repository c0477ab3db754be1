"""`AmazonBedrockServerModel`: Amazon Bedrock through boto3's Converse API (`converse`, `converse_stream`).

Converse is one request shape for every model family on Bedrock (Claude, Nova, Llama, Mistral...),
with native stop sequences, tool use, images and, on recent SDKs, JSON-schema structured output.
boto3 is imported when the client is made, never at plugin discovery.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from smol_core.errors import AgentGenerationError
from smol_core.messages import ChatMessage, ChatMessageStreamDelta, remove_content_after_stop_sequences
from smol_core.models.base import ApiModel, ModelCapabilities, RetryPolicy
from smol_model_bedrock.convert import (
    from_converse_response,
    from_stream_event,
    to_converse_messages,
    to_output_config,
    to_tool_config,
)

# Our keyword names (shared with the other smol models) for the fields of Converse's `inferenceConfig`.
INFERENCE_KEYS = {"max_tokens": "maxTokens", "temperature": "temperature", "top_p": "topP"}

# Bedrock error codes worth another try, and the HTTP status each stands for (for `is_retryable_error`).
RETRYABLE_CODES = {
    "ThrottlingException": 429,
    "TooManyRequestsException": 429,
    "ServiceUnavailableException": 503,
    "InternalServerException": 500,
    "ModelNotReadyException": 503,
    "ModelTimeoutException": 408,
}


class BedrockError(AgentGenerationError):
    """A Bedrock call failed for good: bad request, bad credentials, or retries ran out."""


class AmazonBedrockServerModel(ApiModel):
    """A model on Amazon Bedrock, through the Converse API.

    Args:
        model_id: the Bedrock model or inference-profile id, e.g. `"us.amazon.nova-pro-v1:0"`.
        client: a ready `boto3.client("bedrock-runtime")`; made from `client_kwargs` when not given.
        client_kwargs: for `boto3.client` (`region_name`, `endpoint_url`, `config`, credentials...).
            boto3's own retries are switched off unless a `config` is given, so that `retry_policy`
            is the one place that decides how often to try.
        custom_role_conversions: e.g. `{"system": "user"}` for models that take no system prompt.
        retry_policy: backoff for throttling, 5xx and time-outs (the default tries 4 times).
        **kwargs: defaults for every call: `max_tokens`, `temperature`, `top_p` (put into
            `inferenceConfig`), or any Converse field (`inferenceConfig`, `guardrailConfig`,
            `additionalModelRequestFields`, `performanceConfig`...). A call's own kwargs win.
    """

    capabilities = ModelCapabilities(
        stop_sequences=True, tool_calling=True, structured_output=True, vision=True, streaming=True
    )

    def __init__(
        self,
        model_id: str,
        client: Any | None = None,
        client_kwargs: dict[str, Any] | None = None,
        custom_role_conversions: dict[str, str] | None = None,
        retry_policy: RetryPolicy | None = None,
        **kwargs: Any,
    ) -> None:
        self.client_kwargs = dict(client_kwargs or {})
        super().__init__(
            model_id=model_id, custom_role_conversions=custom_role_conversions, client=client, **kwargs
        )
        if retry_policy is not None:
            self.retry_policy = retry_policy

    def create_client(self) -> Any:
        try:
            import boto3
            from botocore.config import Config
        except ModuleNotFoundError as error:
            raise ModuleNotFoundError(
                "AmazonBedrockServerModel needs boto3: pip install smol-model-bedrock"
            ) from error
        client_kwargs = dict(self.client_kwargs)
        client_kwargs.setdefault("config", Config(retries={"total_max_attempts": 1, "mode": "standard"}))
        return boto3.client("bedrock-runtime", **client_kwargs)

    # --- request ---------------------------------------------------------------------------------

    def _request(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None,
        response_format: dict[str, Any] | None,
        tools_to_call_from: list[Any] | None,
        kwargs: dict[str, Any],
    ) -> dict[str, Any]:
        options = {**self.kwargs, **kwargs}
        tool_choice = options.pop("tool_choice", "required")
        system, converse_messages = to_converse_messages(messages, self.custom_role_conversions)
        request: dict[str, Any] = {"modelId": self.model_id, "messages": converse_messages}
        if system:
            request["system"] = system
        inference = dict(options.pop("inferenceConfig", None) or {})
        for ours, theirs in INFERENCE_KEYS.items():
            if ours in options:
                inference[theirs] = options.pop(ours)
        if stop_sequences:
            inference["stopSequences"] = list(stop_sequences)
        if inference:
            request["inferenceConfig"] = inference
        if tools_to_call_from:
            request["toolConfig"] = to_tool_config(tools_to_call_from, tool_choice)
        if response_format is not None:
            request["outputConfig"] = to_output_config(response_format)
        request.update(options)
        return request

    def _call(self, method: Callable[..., Any], request: dict[str, Any]) -> Any:
        """One Converse call, with retries; any failure becomes a `BedrockError` saying why."""

        def attempt() -> Any:
            from botocore.exceptions import ClientError, ConnectionClosedError, EndpointConnectionError

            try:
                return method(**request)
            except ClientError as error:
                code = error.response.get("Error", {}).get("Code", "")
                status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
                error.status_code = RETRYABLE_CODES.get(code, status)  # type: ignore[attr-defined]
                raise
            except (EndpointConnectionError, ConnectionClosedError) as error:
                raise ConnectionError(str(error)) from error

        self._apply_rate_limit()
        try:
            return self.retry_policy.run(attempt, describe=f"Bedrock {self.model_id}")
        except Exception as error:
            raise BedrockError(
                f"Amazon Bedrock call to model {self.model_id!r} failed "
                f"(up to {self.retry_policy.max_attempts} attempts): {type(error).__name__}: {error}"
            ) from error

    # --- Model API -------------------------------------------------------------------------------

    def generate(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> ChatMessage:
        request = self._request(messages, stop_sequences, response_format, tools_to_call_from, kwargs)
        message = from_converse_response(self._call(self.client.converse, request))
        # Bedrock stops *at* a stop sequence already; cutting again guards against overruns.
        message.content = remove_content_after_stop_sequences(message.text, stop_sequences)
        return message

    def generate_stream(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatMessageStreamDelta]:
        request = self._request(messages, stop_sequences, response_format, tools_to_call_from, kwargs)
        response = self._call(self.client.converse_stream, request)
        try:
            for event in response["stream"]:
                delta = from_stream_event(event)
                if delta is not None:
                    yield delta
        except (
            Exception
        ) as error:  # an exception event mid-stream: not retried, the text so far is out already
            raise BedrockError(
                f"Amazon Bedrock stream from model {self.model_id!r} broke off: {error}"
            ) from error


AmazonBedrockModel = AmazonBedrockServerModel

__all__ = ["AmazonBedrockModel", "AmazonBedrockServerModel", "BedrockError"]
