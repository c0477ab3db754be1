"""`AmazonBedrockServerModel`: Amazon Bedrock through boto3's Converse API (`converse`, `converse_stream`).

Converse is one request shape for every model family on Bedrock (Claude, Nova, Llama, Mistral...),
with native stop sequences, tool use, images and, on recent SDKs, JSON-schema structured output.
boto3 is imported when the client is made, never at plugin discovery.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from smol_core.plugin_api import (
    CONNECT_TIMEOUT,
    DEFAULT_TIMEOUT,
    ApiModel,
    ChatMessage,
    ChatMessageStreamDelta,
    ModelAPIError,
    ModelCapabilities,
    ModelRequest,
    RetryPolicy,
    install_hint,
    remove_content_after_stop_sequences,
)
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


class BedrockError(ModelAPIError):
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
    provider_name: ClassVar[str] = "Amazon Bedrock"
    error_class: ClassVar[type[ModelAPIError]] = BedrockError

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
            from botocore.exceptions import BotoCoreError, NoRegionError
        except ModuleNotFoundError as error:
            raise ModuleNotFoundError(
                f"AmazonBedrockServerModel needs boto3: {install_hint('boto3')}"
            ) from error
        client_kwargs = dict(self.client_kwargs)
        client_kwargs.setdefault(
            "config",
            Config(
                retries={"total_max_attempts": 1, "mode": "standard"},
                connect_timeout=CONNECT_TIMEOUT,
                read_timeout=DEFAULT_TIMEOUT,
            ),
        )
        # boto3 reports a missing region or profile as a deep traceback: one line that says what to set
        try:
            return boto3.client("bedrock-runtime", **client_kwargs)
        except NoRegionError as error:
            raise BedrockError(
                "Amazon Bedrock needs an AWS region: set AWS_REGION (e.g. AWS_REGION=us-east-1) or pass "
                "client_kwargs={'region_name': 'us-east-1'}",
                model_id=self.model_id,
                provider=self.provider_name,
            ) from error
        except BotoCoreError as error:
            raise BedrockError(
                f"Could not make the Amazon Bedrock client: {error} (check the AWS settings: AWS_REGION, "
                "AWS_PROFILE, credentials)",
                model_id=self.model_id,
                provider=self.provider_name,
            ) from error

    @property
    def endpoint(self) -> str:
        return str(self.client_kwargs.get("endpoint_url") or "Amazon Bedrock")

    # --- the skeleton's hooks ------------------------------------------------------------------------

    def build_request(self, request: ModelRequest, stream: bool) -> dict[str, Any]:
        options = request.options_over(self.kwargs)
        default_choice = options.pop("tool_choice", "required")
        tool_choice = request.tool_choice if request.tool_choice is not None else default_choice
        system, converse_messages = to_converse_messages(request.messages, self.custom_role_conversions)
        payload: dict[str, Any] = {"modelId": self.model_id, "messages": converse_messages}
        if system:
            payload["system"] = system
        inference = dict(options.pop("inferenceConfig", None) or {})
        for ours, theirs in INFERENCE_KEYS.items():
            if ours in options:
                inference[theirs] = options.pop(ours)
        if request.stop_sequences:
            inference["stopSequences"] = list(request.stop_sequences)
        if inference:
            payload["inferenceConfig"] = inference
        if request.tools_to_call_from:
            payload["toolConfig"] = to_tool_config(request.tools_to_call_from, tool_choice)
        if request.response_format is not None:
            payload["outputConfig"] = to_output_config(request.response_format)
        payload.update(options)
        return payload

    def call_api(self, payload: dict[str, Any], stream: bool) -> Any:
        """One Converse call; Bedrock's error codes are given the HTTP status they stand for."""
        from botocore.exceptions import ClientError, ConnectionClosedError, EndpointConnectionError

        method = self.client.converse_stream if stream else self.client.converse
        try:
            return method(**payload)
        except ClientError as error:
            code = error.response.get("Error", {}).get("Code", "")
            status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            error.status_code = RETRYABLE_CODES.get(code, status)
            raise
        except (EndpointConnectionError, ConnectionClosedError) as error:
            raise ConnectionError(str(error)) from error

    def parse_response(self, response: Any, request: ModelRequest) -> ChatMessage:
        message = from_converse_response(response)
        # Bedrock stops *at* a stop sequence already; cutting again guards against overruns.
        message.content = remove_content_after_stop_sequences(message.text, request.stop_sequences)
        return message

    def parse_stream(self, stream: Any, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        for event in stream["stream"]:
            delta = from_stream_event(event)
            if delta is not None:
                yield delta

    def error_message(self, error: Exception, status: int | None, during_stream: bool) -> str:
        if during_stream:
            return f"Amazon Bedrock stream from model {self.model_id!r} broke off: {error}"
        attempts = self.attempts(error)
        return (
            f"Amazon Bedrock call to model {self.model_id!r} failed "
            f"(status {status}, {attempts} attempt{'' if attempts == 1 else 's'}): {type(error).__name__}: {error}"
        )


AmazonBedrockModel = AmazonBedrockServerModel

__all__ = ["AmazonBedrockModel", "AmazonBedrockServerModel", "BedrockError"]
