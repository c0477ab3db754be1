"""`LlamaCppModel`: a GGUF model run in process by llama.cpp (through the prebuilt `xllamacpp` wheel).

With no `model_id` it runs the embedded default, SmolLM2-135M-Instruct, which needs no network and no
key. Replies can be constrained three ways, all enforced while sampling (so they always hold):
- `response_format` (OpenAI style, a JSON schema): what `use_structured_outputs_internally` sends;
- `grammar=` a raw GBNF grammar (`smol_core.prompting.grammar.code_action_grammar` gives the code-agent format);
- tools: a reply is constrained to `{"name": <one of the tools>, "arguments": <its schema>}`, which
  gives tool calling to every model whatever its chat template knows.
"""

from __future__ import annotations

import contextlib
import dataclasses
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from smol_core.plugin_api import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    MessageRole,
    Model,
    ModelAPIError,
    ModelCapabilities,
    ModelRequest,
    TokenUsage,
    get_clean_message_list,
    get_tool_json_schema,
    remove_content_after_stop_sequences,
    tool_call_deltas,
    tool_call_from_json,
    tool_call_schema,
    tools_prompt,
    with_system_note,
)
from smol_model_llamacpp.completions import assemble_completion
from smol_model_llamacpp.embedded import resolve_model_path
from smol_model_llamacpp.engine import Engine, EngineSettings, acquire_engine, release_engine
from smol_model_llamacpp.structured import (
    complete_truncated_json,
    json_completion_suffix,
    normalize_response_format,
    schema_of_response_format,
)

_END = object()
_WITH_USAGE = {"stream_options": {"include_usage": True}}
PROVIDER = "llama.cpp"


class LlamaCppModel(Model):
    """A local GGUF model, run in process by llama.cpp.

    Args:
        model_id: None (the embedded SmolLM2-135M-Instruct), a path to a `.gguf` file, or a Hugging Face
            model id whose GGUF is already in the local cache (`org/repo` or `org/repo:file.gguf`).
        n_ctx: context window in tokens.
        n_threads: CPU threads (default: the cores this process may use).
        max_tokens: cap on the tokens of one reply.
        temperature: 0 (the default) decodes greedily, so runs are reproducible.
        grammar: a GBNF grammar applied to every reply (a call's own `grammar=` wins).
        tool_calling: "grammar" (default: constrain replies to a JSON tool call, works for every model)
            or "native" (the chat template's own tool format, for models trained for it).
        small: whether agents should treat it as a small model (`ModelCapabilities.small`: compact
            prompt, worked examples, short code blocks). Default: GGUF files under 600 MB, such as the
            embedded SmolLM2-135M.
        n_gpu_layers, n_batch, n_parallel, chat_template, gguf_file: passed to llama.cpp.
        **kwargs: other per-request options for llama.cpp (top_p, top_k, min_p, repeat_penalty, seed...).
    """

    capabilities = ModelCapabilities(
        stop_sequences=True,
        tool_calling=True,
        structured_output=True,
        vision=False,
        streaming=True,
        grammar=True,  # agents may keep the plain-text action format under a GBNF grammar
        token_logprobs=True,  # `logprobs=True` gives them, OpenAI-shaped, in the reply's `raw`
    )

    def __init__(
        self,
        model_id: str | Path | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        grammar: str | None = None,
        tool_calling: str = "grammar",
        n_gpu_layers: int | None = None,
        n_batch: int = 512,
        n_parallel: int = 1,
        chat_template: str | None = None,
        gguf_file: str | None = None,
        flatten_messages_as_text: bool = True,
        small: bool | None = None,
        **kwargs: Any,
    ) -> None:
        if tool_calling not in ("grammar", "native"):
            raise ValueError(f"tool_calling must be 'grammar' or 'native', got {tool_calling!r}")
        self.model_path = resolve_model_path(model_id, gguf_file)
        # what to save: the name as given (None for the embedded default), which resolves again;
        # `model_id` is the file's stem for the embedded one, a name no lookup knows
        self.model_spec = str(model_id) if model_id is not None else None
        self.gguf_file = gguf_file
        super().__init__(
            model_id=str(model_id) if model_id is not None else self.model_path.stem,
            flatten_messages_as_text=flatten_messages_as_text,
            **kwargs,
        )
        self.n_ctx = n_ctx
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.grammar = grammar
        self.tool_calling = tool_calling
        self.capabilities = dataclasses.replace(
            type(self).capabilities, small=is_small_model(self.model_path) if small is None else small
        )
        self.capabilities_reason = _capabilities_reason(self.model_path, small, self.capabilities.small)
        self.settings = EngineSettings(
            model_path=str(self.model_path),
            n_ctx=n_ctx,
            n_threads=n_threads,
            n_batch=n_batch,
            n_parallel=n_parallel,
            n_gpu_layers=n_gpu_layers,
            chat_template=chat_template,
        )
        self._engine: Engine | None = None
        self._lock = threading.Lock()

    # --- engine -----------------------------------------------------------------------------------

    @property
    def engine(self) -> Engine:
        """The loaded llama.cpp engine (loaded on first use, shared with same-settings models)."""
        with self._lock:
            if self._engine is None:
                self._engine = acquire_engine(self.settings)
            return self._engine

    def load(self) -> LlamaCppModel:
        """Load the model now rather than at the first call (e.g. to time it)."""
        _ = self.engine
        return self

    def close(self) -> None:
        """Release the engine; the weights are freed once no model uses them."""
        with self._lock:
            if self._engine is not None:
                release_engine(self._engine)
                self._engine = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    # --- requests -----------------------------------------------------------------------------------

    def _prepare(self, call: ModelRequest) -> tuple[dict[str, Any], dict[str, Any] | None, bool]:
        """The llama.cpp request, the schema its reply must follow (if any), and whether it is a tool call."""
        kwargs = dict(call.options)
        grammar = call.grammar or self.grammar
        json_schema = kwargs.pop("json_schema", None)
        tool_choice = call.tool_choice
        max_tokens = kwargs.pop("max_tokens", None) or kwargs.pop("max_new_tokens", None) or self.max_tokens
        request: dict[str, Any] = {**self.kwargs, **kwargs}
        clean = get_clean_message_list(call.messages, flatten_messages_as_text=self.flatten_messages_as_text)
        schema: dict[str, Any] | None = None
        tool_mode = False
        response_format = call.response_format
        if call.tools_to_call_from and tool_choice != "none":
            tool_schemas = [get_tool_json_schema(tool) for tool in call.tools_to_call_from]
            if self.tool_calling == "native":
                request["tools"] = tool_schemas
                request["tool_choice"] = tool_choice or "required"
            else:
                schema = tool_call_schema(tool_schemas)
                request["json_schema"] = schema
                tool_mode = True
                clean = with_system_note(clean, tools_prompt(tool_schemas))
        elif response_format is not None and schema_of_response_format(response_format) is not None:
            normalized = normalize_response_format(response_format)
            request["response_format"] = normalized
            schema = schema_of_response_format(normalized) or {}
        elif json_schema is not None:
            request["json_schema"] = json_schema
            schema = json_schema
        if grammar is not None and not tool_mode and schema is None:
            request["grammar"] = grammar
        request.update(
            messages=clean,
            max_tokens=max_tokens,
            temperature=request.get("temperature", self.temperature),
        )
        if call.stop_sequences:
            request["stop"] = list(call.stop_sequences)
        return request, schema, tool_mode

    def _call(self, request: dict[str, Any], callback: Any) -> None:
        server = self.engine.server
        if server is None:
            raise ModelAPIError("The llama.cpp engine was closed.", model_id=self.model_id, provider=PROVIDER)
        result = server.handle_chat_completions(request, callback)
        if isinstance(result, dict) and "error" in result:
            raise _error(result["error"], self.model_path, self.n_ctx)

    def request(self, call: ModelRequest) -> ChatMessage:
        request, schema, tool_mode = self._prepare(call)
        result = self._complete(request)
        choice = result["choices"][0]
        raw_message = choice.get("message") or {}
        content = raw_message.get("content") or ""
        usage = _usage(result.get("usage"))
        if schema is not None:
            content = complete_truncated_json(content, schema)
        else:
            content = remove_content_after_stop_sequences(content, call.stop_sequences) or ""
        if tool_mode:
            return ChatMessage(
                role=MessageRole.ASSISTANT,
                content=None,
                tool_calls=[tool_call_from_json(content)],
                raw=result,
                token_usage=usage,
            )
        tool_calls = [ChatMessageToolCall.coerce(tc) for tc in raw_message.get("tool_calls") or []] or None
        return ChatMessage(
            role=MessageRole.ASSISTANT, content=content, tool_calls=tool_calls, raw=result, token_usage=usage
        )

    def request_stream(self, call: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        """Stream the reply as llama.cpp decodes it. Closing the iterator early stops decoding."""
        request, schema, tool_mode = self._prepare(call)
        if tool_mode:
            yield from tool_call_deltas(self.request(call))
            return
        text: list[str] = []
        usage: TokenUsage | None = None
        for chunk in self._chunks({**request, "stream": True, **_WITH_USAGE}):
            if chunk.get("usage"):
                usage = _usage(chunk["usage"])
            for choice in chunk.get("choices") or []:
                piece = (choice.get("delta") or {}).get("content")
                if piece:
                    text.append(piece)
                    yield ChatMessageStreamDelta(content=piece)
        if schema is not None:
            suffix = json_completion_suffix("".join(text), schema)
            if suffix:
                yield ChatMessageStreamDelta(content=suffix)
        yield ChatMessageStreamDelta(token_usage=usage or TokenUsage(0, 0))

    def _complete(self, request: dict[str, Any]) -> dict[str, Any]:
        """The whole reply to `request`, in the shape of a plain (non-streamed) chat completion."""
        return assemble_completion(self._chunks({**request, "stream": True, **_WITH_USAGE}))

    def _chunks(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The streamed chunks of `request`, decoded on a worker thread (`completions.py` says why).
        Closing the iterator early, or an exception (a signal's) while waiting for the next chunk,
        stops decoding at the next token."""
        chunks: queue.Queue[Any] = queue.Queue()
        cancelled = threading.Event()

        def on_chunk(chunk: Any) -> bool:
            chunks.put(chunk)
            return cancelled.is_set()

        def worker() -> None:
            try:
                self._call(request, on_chunk)
            except BaseException as error:
                chunks.put(error)
            finally:
                chunks.put(_END)

        thread = threading.Thread(target=worker, name="smol-llamacpp-stream", daemon=True)
        thread.start()
        try:
            while True:
                chunk = chunks.get()
                if chunk is _END:
                    return
                if isinstance(chunk, BaseException):
                    raise chunk
                if isinstance(chunk, dict) and "error" in chunk:
                    raise _error(chunk["error"], self.model_path, self.n_ctx)
                yield chunk
        finally:
            cancelled.set()
            thread.join(timeout=30)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data.update(
            model_id=self.model_spec,
            gguf_file=self.gguf_file,
            n_ctx=self.n_ctx,
            grammar=self.grammar,
            tool_calling=self.tool_calling,
            small=self.capabilities.small,
        )
        return data


# --- helpers ----------------------------------------------------------------------------------------


SMALL_MODEL_FILE_BYTES = 600 * 1024 * 1024


def is_small_model(path: Path) -> bool:
    """GGUF files under 600 MB hold models of at most about half a billion parameters: they get the
    agents' small-model prompts (`ModelCapabilities.small`). Pass `small=` to decide yourself."""
    try:
        return path.stat().st_size < SMALL_MODEL_FILE_BYTES
    except OSError:
        return False


def _capabilities_reason(path: Path, forced: bool | None, small: bool) -> str:
    """Why this model is (not) prompted as a small one, for the agent's verbose output."""
    if forced is not None:
        return f"small={forced} given by the user; llama.cpp in process takes GBNF grammars"
    try:
        size = f"a {path.stat().st_size / 1e6:.0f} MB GGUF file"
    except OSError:
        size = "a GGUF file of unknown size"
    verdict = "under 600 MB: small-model prompt" if small else "600 MB or more: generic prompt"
    return f"{size} ({path.name}), {verdict}; llama.cpp in process takes GBNF grammars"


def _usage(raw: dict[str, Any] | None) -> TokenUsage:
    raw = raw or {}
    return TokenUsage(int(raw.get("prompt_tokens") or 0), int(raw.get("completion_tokens") or 0))


def _error(error: Any, model_path: Path, n_ctx: int | None = None) -> Exception:
    if isinstance(error, dict):
        message = str(error.get("message") or error)
        code = error.get("code")
    else:
        message, code = str(error), None
    text = f"llama.cpp refused the request for {model_path.name}: {message}"
    if code == 400 and "grammar" in message.lower():
        return ValueError(text + " (check the grammar= you passed: it must be valid GBNF)")
    if "context" in message.lower() and ("exceed" in message.lower() or "size" in message.lower()):
        window = f"{n_ctx:,} tokens" if n_ctx else "its n_ctx"
        bigger = (n_ctx or 8192) * 2
        text += (
            f" (the conversation is longer than the model's context window, {window}: shorten the task, or "
            f"give a larger window: LlamaCppModel(..., n_ctx={bigger}) in Python, "
            f"smolagent --model-kwargs '{{\"n_ctx\": {bigger}}}' on the command line)"
        )
    return ModelAPIError(
        text, status=code if isinstance(code, int) else None, model_id=model_path.name, provider=PROVIDER
    )
