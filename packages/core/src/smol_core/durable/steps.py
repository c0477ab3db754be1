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

from smol_core import errors as error_module
from smol_core.durable.errors import CheckpointFormatError
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
    them (`prompting/draft_certainty.py`) whether the step needs another draft, so a replayed or
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
        if not isinstance(entry[1], int | float) or isinstance(entry[1], bool):
            return None
        content.append({"token": entry[0], "logprob": float(entry[1])})
    return {"choices": [{"logprobs": {"content": content}}]}


MAX_SAVED_TOKENS = 100_000
"""Log-probabilities read back from a checkpoint or a cassette (a file someone may hand you): at most this many."""


def message_from_data(data: Any, decode: Decode) -> ChatMessage | None:
    if data is None:
        return None
    calls = data.get("tool_calls")
    return ChatMessage(
        role=MessageRole(data["role"]),
        content=decode(data.get("content")),
        tool_calls=[
            ChatMessageToolCall.coerce(
                {
                    **call,
                    "function": {**call["function"], "arguments": decode(call["function"].get("arguments"))},
                }
            )
            for call in calls
        ]
        if calls
        else None,
        token_usage=_usage_from_data(data.get("token_usage")),
        raw=_logprobs_from_data(data.get("token_logprobs")),
    )


def _usage_to_data(usage: TokenUsage | None) -> list[int] | None:
    return None if usage is None else [usage.input_tokens, usage.output_tokens]


def _usage_from_data(data: Any) -> TokenUsage | None:
    return None if data is None else TokenUsage(int(data[0]), int(data[1]))


def _error_to_data(error: AgentError | None) -> dict[str, str] | None:
    return None if error is None else {"type": type(error).__name__, "message": str(error)}


def _error_from_data(data: Any) -> AgentError | None:
    if data is None:
        return None
    cls = getattr(error_module, str(data.get("type")), None)
    message = str(data.get("message", ""))
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
    """The step `step_to_data` wrote; CheckpointFormatError for anything else."""
    try:
        kind = data["type"]
        if kind == "action":
            step = ActionStep(
                step_number=int(data["step_number"]),
                timing=Timing(*data["timing"]),
                tool_calls=[ToolCall(str(n), decode(a), str(i)) for n, a, i in data["tool_calls"]]
                if data["tool_calls"] is not None
                else None,
                error=_error_from_data(data["error"]),
                model_output_message=message_from_data(data["model_output_message"], decode),
                model_output=data["model_output"],
                code_action=data["code_action"],
                observations=data["observations"],
                observations_images=decode(data["observations_images"]),
                action_output=decode(data["action_output"]),
                token_usage=_usage_from_data(data["token_usage"]),
                is_final_answer=bool(data["is_final_answer"]),
                repeat_tool_calls_in_messages=bool(data["repeat_tool_calls_in_messages"]),
            )
            return step
        if kind == "planning":
            message = message_from_data(data["model_output_message"], decode)
            assert message is not None
            return PlanningStep(
                model_input_messages=[],
                model_output_message=message,
                plan=str(data["plan"]),
                timing=Timing(*data["timing"]),
                token_usage=_usage_from_data(data["token_usage"]),
            )
        if kind == "task":
            return TaskStep(task=str(data["task"]), task_images=decode(data["task_images"]))
    except CheckpointFormatError:
        raise
    except Exception as error:
        raise CheckpointFormatError(
            f"a memory step in the checkpoint is malformed ({type(error).__name__}: {error})"
        ) from None
    raise CheckpointFormatError(f"the checkpoint holds a memory step of unknown type {str(kind)[:40]!r}")
