"""Memory steps to checkpoint data and back into real step objects.

Why not `step.dict()`: it is a JSON view for people and logs (values become reprs, errors plain
dicts), and nothing reads it back. A resumed run needs the steps themselves: `ActionStep` with its
`ChatMessage`, `ToolCall`s, `AgentError` of the right class and `TokenUsage`, so the model reads the
same memory and `RunResult` sums the same tokens. Values (an action's output, images, tool-call
arguments) go through the worker protocol's typed codec (`executors/worker/protocol.py`: host-side, never
pickle) and come back through the budgeted decoder (`executors/host/untrusted.py`), as a checkpoint file
is outside data.

Left out on purpose: each step's `model_input_messages` (the whole memory as the model read it at
that step: keeping them makes a checkpoint grow with the square of the steps; the memory itself
rebuilds them) and a message's provider-specific `raw`, but for the token log-probabilities in it,
which a small model's drafting decides on (kept as a list, and given back in OpenAI's shape).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import smol_core.durable.file_format as ff
from smol_core import errors as error_module
from smol_core.durable.errors import CheckpointFormatError
from smol_core.durable.file_format import FieldError
from smol_core.errors import AgentError
from smol_core.executors.worker.protocol import encode
from smol_core.memory import ActionStep, MemoryStep, PlanningStep, TaskStep, ToolCall
from smol_core.messages import ChatMessage, ChatMessageToolCall, MessageRole, Timing, TokenUsage
from smol_core.prompting.draft_certainty import token_logprobs

Decode = Callable[[Any], Any]


def message_to_data(message: ChatMessage | None) -> dict[str, Any] | None:
    if message is None:
        return None
    role = message.role.value if isinstance(message.role, MessageRole) else str(message.role)
    return {
        "role": role,
        "content": encode(message.content),
        "tool_calls": [
            {
                "id": call.id,
                "type": call.type,
                "function": {"name": call.function.name, "arguments": encode(call.function.arguments)},
            }
            for call in message.tool_calls or []
        ]
        or None,
        "token_usage": _usage_to_data(message.token_usage),
        **_logprobs_to_data(message),
    }


def _logprobs_to_data(message: ChatMessage) -> dict[str, Any]:
    """The reply's token log-probabilities, where it has them: a small model's drafting decides on
    them (`smol_core.prompting.draft_certainty`) whether the step needs another draft, so a replayed or
    resumed step without them asked the model again where the recorded run had not."""
    tokens = token_logprobs(message)
    return {} if tokens is None else {"token_logprobs": [[token, logprob] for token, logprob in tokens]}


def _logprobs_from_data(data: Any) -> Any:
    """`raw` in OpenAI's chat completions shape, holding only the saved log-probabilities (what
    `token_logprobs` reads back); None where none were saved or they are not well formed."""
    if not isinstance(data, list) or len(data) > MAX_SAVED_TOKENS:
        return None
    content = []
    for entry in data:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
            return None
        if not isinstance(entry[1], int | float) or isinstance(entry[1], bool) or not entry[1] <= 0:
            return None  # a log-probability is at most 0 (NaN is not): -inf is a token never chosen
        content.append({"token": entry[0], "logprob": float(entry[1])})
    return {"choices": [{"logprobs": {"content": content}}]}


MAX_SAVED_TOKENS = 100_000
"""Log-probabilities read back from a checkpoint or a cassette (a file someone may hand you): at most this many."""


def message_from_data(data: Any, decode: Decode) -> ChatMessage | None:
    """The message `message_to_data` wrote (each field checked: it comes from a file); FieldError else."""
    if data is None:
        return None
    data = ff.mapping(data, "message")
    calls = data.get("tool_calls")
    return ChatMessage(
        role=MessageRole(ff.choice(data.get("role"), "message role", _ROLES)),
        content=decode(data.get("content")),
        tool_calls=[_tool_call_from_data(call, decode) for call in ff.listed(calls, "tool calls")]
        if calls
        else None,
        token_usage=_usage_from_data(data.get("token_usage")),
        raw=_logprobs_from_data(data.get("token_logprobs")),
    )


_ROLES = frozenset(role.value for role in MessageRole)


def _tool_call_from_data(data: Any, decode: Decode) -> ChatMessageToolCall:
    data = ff.mapping(data, "tool call")
    function = ff.mapping(data.get("function"), "tool call's function")
    return ChatMessageToolCall.coerce(
        {
            "id": ff.optional_text(data.get("id"), "tool call id", 1000),
            "type": ff.optional_text(data.get("type"), "tool call type", 100),
            "function": {
                "name": ff.text(function.get("name"), "tool name", 1000),
                "arguments": decode(function.get("arguments")),
            },
        }
    )


def _usage_to_data(usage: TokenUsage | None) -> list[int] | None:
    return None if usage is None else [usage.input_tokens, usage.output_tokens]


def _usage_from_data(data: Any) -> TokenUsage | None:
    if data is None:
        return None
    if type(data) is not list or len(data) != 2:
        raise FieldError(f"a token usage is {str(data)[:40]!r}, not [input, output]")
    return TokenUsage(ff.whole(data[0], "input tokens"), ff.whole(data[1], "output tokens"))


def _timing_from_data(data: Any) -> Timing:
    if type(data) is not list or len(data) != 2:
        raise FieldError(f"a step's timing is {str(data)[:40]!r}, not [start, end]")
    end = None if data[1] is None else ff.real(data[1], "step end time")
    return Timing(ff.real(data[0], "step start time"), end)


def _error_to_data(error: AgentError | None) -> dict[str, str] | None:
    return None if error is None else {"type": type(error).__name__, "message": str(error)}


def _error_from_data(data: Any) -> AgentError | None:
    if data is None:
        return None
    data = ff.mapping(data, "step error")
    cls = getattr(error_module, ff.text(data.get("type"), "step error type", 200), None)
    message = ff.text(data.get("message", ""), "step error message")
    if isinstance(cls, type) and issubclass(cls, AgentError):
        try:
            return cls(message)
        except TypeError:  # a subclass with a constructor of its own (ModelAPIError)
            pass
    return AgentError(message)


def step_to_data(step: MemoryStep) -> dict[str, Any]:
    """One step as JSON-ready data (see the module docstring for what is left out)."""
    if isinstance(step, ActionStep):
        return {
            "type": "action",
            "step_number": step.step_number,
            "timing": [step.timing.start_time, step.timing.end_time],
            "tool_calls": [[call.name, encode(call.arguments), call.id] for call in step.tool_calls or []]
            if step.tool_calls is not None
            else None,
            "error": _error_to_data(step.error),
            "model_output_message": message_to_data(step.model_output_message),
            "model_output": step.model_output,
            "code_action": step.code_action,
            "observations": step.observations,
            "observations_images": encode(step.observations_images),
            "action_output": encode(step.action_output),
            "token_usage": _usage_to_data(step.token_usage),
            "is_final_answer": step.is_final_answer,
            "repeat_tool_calls_in_messages": step.repeat_tool_calls_in_messages,
        }
    if isinstance(step, PlanningStep):
        return {
            "type": "planning",
            "model_output_message": message_to_data(step.model_output_message),
            "plan": step.plan,
            "timing": [step.timing.start_time, step.timing.end_time],
            "token_usage": _usage_to_data(step.token_usage),
        }
    if isinstance(step, TaskStep):
        return {"type": "task", "task": step.task, "task_images": encode(step.task_images)}
    raise CheckpointFormatError(f"a memory step of type {type(step).__name__} cannot be checkpointed")


def step_from_data(data: Any, decode: Decode) -> MemoryStep:
    """The step `step_to_data` wrote, each field checked; FieldError (or the decoder's ProtocolError)
    for anything else, which the file's reader reports as one line."""
    data = ff.mapping(data, "memory step")
    kind = data.get("type")
    if kind == "action":
        calls = data.get("tool_calls")
        return ActionStep(
            step_number=ff.whole(data.get("step_number"), "step number"),
            timing=_timing_from_data(data.get("timing")),
            tool_calls=None
            if calls is None
            else [_step_call(call, decode) for call in ff.listed(calls, "tool calls")],
            error=_error_from_data(data.get("error")),
            model_output_message=message_from_data(data.get("model_output_message"), decode),
            model_output=ff.optional_text(data.get("model_output"), "model output", 100_000_000),
            code_action=ff.optional_text(data.get("code_action"), "code action"),
            observations=ff.optional_text(data.get("observations"), "observations", 100_000_000),
            observations_images=decode(data.get("observations_images")),
            action_output=decode(data.get("action_output")),
            token_usage=_usage_from_data(data.get("token_usage")),
            is_final_answer=ff.flag(data.get("is_final_answer"), "is_final_answer"),
            repeat_tool_calls_in_messages=ff.flag(
                data.get("repeat_tool_calls_in_messages"), "repeat_tool_calls_in_messages"
            ),
        )
    if kind == "planning":
        message = message_from_data(data.get("model_output_message"), decode)
        if message is None:
            raise FieldError("a planning step has no model reply")
        return PlanningStep(
            model_input_messages=[],
            model_output_message=message,
            plan=ff.text(data.get("plan"), "plan", 100_000_000),
            timing=_timing_from_data(data.get("timing")),
            token_usage=_usage_from_data(data.get("token_usage")),
        )
    if kind == "task":
        return TaskStep(task=ff.text(data.get("task"), "task"), task_images=decode(data.get("task_images")))
    raise FieldError(f"it holds a memory step of unknown type {str(kind)[:40]!r}")


def _step_call(data: Any, decode: Decode) -> ToolCall:
    if type(data) is not list or len(data) != 3:
        raise FieldError(f"a step's tool call is {str(data)[:40]!r}, not [name, arguments, id]")
    return ToolCall(
        ff.text(data[0], "tool name", 1000), decode(data[1]), ff.text(data[2], "tool call id", 1000)
    )
