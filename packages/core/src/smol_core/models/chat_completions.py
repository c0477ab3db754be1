"""`ChatCompletionsModel`: the skeleton of models whose API speaks OpenAI's chat completions.

OpenAI, Azure, LiteLLM (for every provider) and Hugging Face's `InferenceClient` take the same body
and give the same replies, so building the body, reading replies and stream chunks, cutting text at
stop sequences and asking again without `stop` when a server refuses it are written once, here. A
plugin adds its client (`create_client`, `call_api`) and what its provider needs on top of the body
(`chat_payload`), and may word its errors (`error_message`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from smol_core.messages import ChatMessage, ChatMessageStreamDelta
from smol_core.models.api_model import ApiModel
from smol_core.models.openai_format import chat_request, message_from_response, refuses_stop, stream_deltas
from smol_core.models.request import ModelRequest

__all__ = ["ChatCompletionsModel"]


class ChatCompletionsModel(ApiModel):
    """Base of API models that take and give OpenAI chat-completions shapes (see `ApiModel`)."""

    def chat_body(self, request: ModelRequest, **overrides: Any) -> dict[str, Any]:
        """The messages, `stop` (where the server takes it), `response_format` and tools of `request`."""
        fields: dict[str, Any] = {
            "stop_sequences": request.stop_sequences,
            "response_format": request.response_format,
            "tools_to_call_from": request.tools_to_call_from,
            **overrides,
        }
        return chat_request(
            request.messages,
            role_conversions=self.custom_role_conversions,
            flatten_messages_as_text=self.flatten_messages_as_text,
            send_stop=self.capabilities.stop_sequences,
            **fields,
        )

    def chat_payload(self, request: ModelRequest) -> dict[str, Any]:
        """The whole payload: the body, then the model's default options, then the call's own."""
        return self.with_options({"model": self.model_id, **self.chat_body(request)}, request)

    def build_request(self, request: ModelRequest, stream: bool) -> dict[str, Any]:
        payload = self.chat_payload(request)
        if stream:
            payload["stream"] = True
            payload.setdefault("stream_options", {"include_usage": True})
        return payload

    def parse_response(self, response: Any, request: ModelRequest) -> ChatMessage:
        return message_from_response(response, request.stop_sequences)

    def parse_stream(self, stream: Any, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        return stream_deltas(stream, request.stop_sequences)

    def retry_without(self, error: Exception, payload: dict[str, Any]) -> dict[str, Any] | None:
        """A server that refused `stop` is asked again without it, and the model remembers: its
        replies are cut client-side from then on."""
        if not refuses_stop(error, payload):
            return None
        self.capabilities = replace(self.capabilities, stop_sequences=False)
        return {key: value for key, value in payload.items() if key != "stop"}
