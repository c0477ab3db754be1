"""`TransformersModel`: a model run in this process with Hugging Face Transformers.

Takes a hub id (from the local cache when offline), a local folder, or a GGUF file (`gguf_file=`, or
a path ending in `.gguf`), which Transformers dequantises into PyTorch weights. Prompts come from the
model's own chat template, tools included, so a tool-tuned model sees tools the way it was trained
to. torch and transformers are imported here, when a model is built, never at plugin discovery.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import replace
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
    get_clean_message_list,
    get_tool_json_schemas,
    install_hint,
    remove_content_after_stop_sequences,
    tool_calls_in,
)

__all__ = ["TransformersModel", "TransformersModelError", "count_generated", "tool_calls_in"]

logger = logging.getLogger("smol_model_transformers")


class TransformersModelError(SmolError, ValueError):
    """The model or its tokenizer could not be loaded, or was asked for something it cannot do."""


class TransformersModel(Model):
    """A local model run with Transformers (PyTorch).

    Args:
        model_id: a hub id, a local folder, or the path of a `.gguf` file.
        device_map: where to put the weights (`"cpu"`, `"cuda"`, `"auto"`...); CUDA if there is one.
        torch_dtype: `"auto"`, `"float32"`, `"bfloat16"`...; Transformers' default when not given.
        trust_remote_code: run the model repository's own code (only for repositories you trust).
        model_kwargs: more arguments for `from_pretrained` (`revision`, `attn_implementation`...).
        max_new_tokens: cap on each reply's length (`max_tokens` is an alias that wins).
        apply_chat_template_kwargs: more arguments for the chat template (`enable_thinking=False`...).
        gguf_file: the GGUF file's name inside `model_id` (a folder or hub id).
        **kwargs: defaults for `model.generate` (`temperature`, `do_sample`, `top_p`...).
    """

    capabilities = ModelCapabilities(
        stop_sequences=True, tool_calling=True, structured_output=False, vision=False, streaming=True
    )

    def __init__(
        self,
        model_id: str | None = None,
        device_map: str | None = None,
        torch_dtype: str | None = None,
        trust_remote_code: bool = False,
        model_kwargs: dict[str, Any] | None = None,
        max_new_tokens: int = 4096,
        max_tokens: int | None = None,
        apply_chat_template_kwargs: dict[str, Any] | None = None,
        gguf_file: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not model_id:
            raise TransformersModelError(
                "TransformersModel needs a model_id: a hub id, a local folder or a .gguf file."
            )
        try:
            import torch
        except ModuleNotFoundError as error:
            raise ModuleNotFoundError(
                f"TransformersModel needs torch: {install_hint('torch==2.13.0')}"
            ) from error
        if gguf_file is None and str(model_id).endswith(".gguf") and os.path.isfile(model_id):
            model_id, gguf_file = os.path.dirname(os.path.abspath(model_id)), os.path.basename(model_id)
        self.device_map = device_map or ("cuda" if torch.cuda.is_available() else "cpu")
        self.torch_dtype = torch_dtype
        self.gguf_file = gguf_file
        self.max_new_tokens = max_tokens if max_tokens is not None else max_new_tokens
        self.apply_chat_template_kwargs = dict(apply_chat_template_kwargs or {})
        self.model_kwargs = dict(model_kwargs or {})
        self.trust_remote_code = trust_remote_code
        self._load(model_id)
        super().__init__(model_id=model_id, flatten_messages_as_text=not self.is_vlm, **kwargs)
        self.capabilities = replace(type(self).capabilities, vision=self.is_vlm)

    def _load(self, model_id: str) -> None:
        from transformers import (
            AutoConfig,
            AutoModelForCausalLM,
            AutoModelForImageTextToText,
            AutoProcessor,
            AutoTokenizer,
        )

        common: dict[str, Any] = {"trust_remote_code": self.trust_remote_code}
        if self.gguf_file:
            common["gguf_file"] = self.gguf_file
        try:
            config = AutoConfig.from_pretrained(model_id, **common)
            # A vision-language model has a vision tower: it needs a processor for its images.
            self.is_vlm = getattr(config, "vision_config", None) is not None
            model_class = AutoModelForImageTextToText if self.is_vlm else AutoModelForCausalLM
            load_kwargs = {"device_map": self.device_map, **common, **self.model_kwargs}
            if self.torch_dtype is not None:
                load_kwargs["dtype"] = self.torch_dtype
            self.model = model_class.from_pretrained(model_id, **load_kwargs)
            if self.is_vlm:
                self.processor = AutoProcessor.from_pretrained(model_id, **common)
                self.tokenizer = self.processor.tokenizer
            else:
                self.processor = None
                self.tokenizer = AutoTokenizer.from_pretrained(model_id, **common)
        except (OSError, ValueError, ImportError) as error:
            where = f"{model_id}/{self.gguf_file}" if self.gguf_file else model_id
            raise TransformersModelError(
                f"Could not load model and tokenizer from {where!r}: {error}"
            ) from error
        if getattr(self.tokenizer, "chat_template", None) is None:
            raise TransformersModelError(
                f"{model_id!r} has no chat template; give an instruction-tuned model or set tokenizer.chat_template."
            )

    # --- prompt ----------------------------------------------------------------------------------

    def _chat(self, messages: list[ChatMessage]) -> list[dict[str, Any]]:
        chat = get_clean_message_list(
            messages, role_conversions=TOOL_ROLE_CONVERSIONS, flatten_messages_as_text=not self.is_vlm
        )
        if self.is_vlm:  # processors take images as base64 data URLs
            for message in chat:
                for part in message["content"]:
                    if part.get("type") == "image":
                        part["url"] = f"data:image/png;base64,{part.pop('image')}"
        return chat

    def render_prompt(self, messages: list[ChatMessage], tools_to_call_from: list[Any] | None = None) -> str:
        """The prompt text the model sees: handy to check a chat template (and how it shows tools)."""
        prompt: str = (self.processor or self.tokenizer).apply_chat_template(
            self._chat(messages),
            tools=get_tool_json_schemas(tools_to_call_from),
            add_generation_prompt=True,
            tokenize=False,
            **self.apply_chat_template_kwargs,
        )
        return prompt

    def _generation_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        if request.response_format is not None:
            raise TransformersModelError(
                "TransformersModel has no constrained decoding: use a llama.cpp, OpenAI-compatible or LiteLLM "
                "model for response_format (its capabilities say structured_output=False)."
            )
        options = request.options_over(self.kwargs)
        max_new_tokens = (
            options.pop("max_new_tokens", None) or options.pop("max_tokens", None) or self.max_new_tokens
        )
        options.pop("max_tokens", None)
        inputs = (
            (self.processor or self.tokenizer)
            .apply_chat_template(
                self._chat(request.messages),
                tools=get_tool_json_schemas(request.tools_to_call_from),
                add_generation_prompt=True,
                tokenize=True,
                return_dict=True,
                return_tensors="pt",
                **self.apply_chat_template_kwargs,
            )
            .to(self.model.device)
        )
        generation: dict[str, Any] = {**inputs, "max_new_tokens": max_new_tokens, **options}
        if self.tokenizer.pad_token_id is None:
            generation.setdefault("pad_token_id", self.tokenizer.eos_token_id)
        if request.stop_sequences:
            # Transformers' own stop-string criterion: stops as soon as any stop string is written.
            generation["stop_strings"] = [s for s in request.stop_sequences if s]
            generation["tokenizer"] = self.tokenizer
        return generation

    # --- Model API -------------------------------------------------------------------------------

    def request(self, request: ModelRequest) -> ChatMessage:
        generation = self._generation_kwargs(request)
        prompt_length = generation["input_ids"].shape[1]
        output = self.model.generate(**generation)
        new_tokens = output[0, prompt_length:]
        text = self.tokenizer.decode(new_tokens, skip_special_tokens=True)
        text = remove_content_after_stop_sequences(text, request.stop_sequences) or ""
        return ChatMessage(
            role=MessageRole.ASSISTANT,
            content=text,
            tool_calls=tool_calls_in(text) if request.tools_to_call_from else None,
            raw={"out": text, "prompt_tokens": prompt_length},
            token_usage=TokenUsage(prompt_length, count_generated(new_tokens, self.tokenizer)),
        )

    def request_stream(self, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        from transformers import TextIteratorStreamer

        generation = self._generation_kwargs(request)
        prompt_length = generation["input_ids"].shape[1]
        # One streamer per call: a shared one would mix the text of two concurrent calls.
        streamer = TextIteratorStreamer(
            self.tokenizer, skip_prompt=True, skip_special_tokens=True, timeout=600
        )
        result: dict[str, Any] = {}

        def run() -> None:
            try:
                result["output"] = self.model.generate(**generation, streamer=streamer)
            except BaseException as error:
                result["error"] = error
                streamer.end()

        thread = threading.Thread(target=run, name="smol-transformers-generate", daemon=True)
        thread.start()
        cutter = StopSequenceFilter(request.stop_sequences)
        for piece in streamer:
            text = cutter.feed(piece)
            if text:
                yield ChatMessageStreamDelta(content=text)
        thread.join()
        if "error" in result:
            raise result["error"]
        tail = cutter.finish()
        generated = count_generated(result["output"][0, prompt_length:], self.tokenizer)
        yield ChatMessageStreamDelta(content=tail, token_usage=TokenUsage(prompt_length, generated))


def count_generated(tokens: Any, tokenizer: Any) -> int:
    """Tokens the model wrote, without the padding `generate` adds after an early stop."""
    pad = tokenizer.pad_token_id
    if pad is None or pad == tokenizer.eos_token_id:
        return len(tokens)
    return int((tokens != pad).sum())
