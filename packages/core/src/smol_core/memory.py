"""The agent's memory: the steps of a run, and how they become the messages the model reads.

Step classes and fields follow smolagents so that callbacks and replay code keep working.
One deliberate difference: a `CodeAgent` step is written back as the model's own reply followed by
the observation, without repeating the code in a separate "Calling tools" message, which halves
the tokens each step costs while keeping the same information.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from smol_core.errors import AgentError
from smol_core.messages import ChatMessage, MessageRole, Timing, TokenUsage

if TYPE_CHECKING:
    from smol_core.monitoring import AgentLogger


def jsonable(value: Any) -> Any:
    """Best-effort JSON-ready copy of a value, for step dicts and saved runs."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple | set):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if hasattr(value, "dict") and callable(value.dict):
        try:
            return jsonable(value.dict())
        except Exception:
            pass
    return repr(value)


def _image_bytes(image: Any) -> Any:
    """An observation image in a step's dict: a PIL image's raw bytes (`tobytes()`), as smolagents
    gives them, so code that reads them back from `memory.get_full_steps()` gets the pixels; a value
    that is not an image (a path) as it is."""
    to_bytes = getattr(image, "tobytes", None)
    return to_bytes() if callable(to_bytes) else image


def _message_dict(message: ChatMessage) -> dict[str, Any]:
    """A message in a step's dict: its fields with `raw` kept as JSON can hold it, as smolagents does
    (saved runs show what the provider answered); `ChatMessage.dict()` itself leaves `raw` out."""
    data = dict(message.dict())
    return {
        "role": data.get("role"),
        "content": jsonable(data.get("content")),
        "tool_calls": jsonable(data.get("tool_calls")),
        "raw": jsonable(message.raw),
        "token_usage": jsonable(data.get("token_usage")),
    }


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


@dataclass
class ToolCall:
    """A call the agent made: a tool with arguments, or (for CodeAgent) the python_interpreter with code."""

    name: str
    arguments: Any
    id: str

    def dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": jsonable(self.arguments)},
        }


class MemoryStep:
    def dict(self) -> dict[str, Any]:
        return {name: jsonable(getattr(self, name)) for name in getattr(self, "__dataclass_fields__", {})}

    # Read as a mapping too (`step["step_number"]`, `step.get("error")`): smolagents' logs were
    # dicts, and code written against them reads steps by key. Keys are the step's fields; values
    # are the fields themselves (`dict()` gives the JSON-ready copy).
    def keys(self) -> list[str]:
        return list(getattr(self, "__dataclass_fields__", {}))

    def __getitem__(self, key: str) -> Any:
        if key not in getattr(self, "__dataclass_fields__", {}):
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        raise NotImplementedError


@dataclass
class ActionStep(MemoryStep):
    step_number: int
    timing: Timing = field(default_factory=Timing)
    model_input_messages: list[ChatMessage] | None = None
    tool_calls: list[ToolCall] | None = None
    error: AgentError | None = None
    model_output_message: ChatMessage | None = None
    model_output: str | None = None
    code_action: str | None = None
    observations: str | None = None
    observations_images: list[Any] | None = None
    action_output: Any = None
    token_usage: TokenUsage | None = None
    is_final_answer: bool = False
    repeat_tool_calls_in_messages: bool = True

    def dict(self) -> dict[str, Any]:
        return {
            "step_number": self.step_number,
            "timing": self.timing.dict(),
            "model_input_messages": [_message_dict(m) for m in self.model_input_messages or []] or None,
            "tool_calls": [tc.dict() for tc in self.tool_calls or []],
            "error": self.error.dict() if self.error else None,
            "model_output_message": _message_dict(self.model_output_message)
            if self.model_output_message
            else None,
            "model_output": self.model_output,
            "code_action": self.code_action,
            "observations": self.observations,
            "observations_images": [_image_bytes(image) for image in self.observations_images]
            if self.observations_images
            else None,
            "action_output": jsonable(self.action_output),
            "token_usage": self.token_usage.dict() if self.token_usage else None,
            "is_final_answer": self.is_final_answer,
        }

    def to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        messages: list[ChatMessage] = []
        if self.model_output is not None and not summary_mode:
            messages.append(ChatMessage(MessageRole.ASSISTANT, _text(self.model_output.strip())))
        if self.tool_calls and (self.repeat_tool_calls_in_messages or summary_mode):
            calls = json.dumps([tc.dict() for tc in self.tool_calls], ensure_ascii=False)
            messages.append(ChatMessage(MessageRole.TOOL_CALL, _text(f"Calling tools:\n{calls}")))
        if self.observations_images:
            messages.append(
                ChatMessage(
                    MessageRole.USER,
                    [{"type": "image", "image": image} for image in self.observations_images],
                )
            )
        if self.observations is not None:
            messages.append(
                ChatMessage(MessageRole.TOOL_RESPONSE, _text(f"Observation:\n{self.observations}"))
            )
        if self.error is not None:
            prefix = (
                f"Call id: {self.tool_calls[0].id}\n"
                if self.tool_calls and self.repeat_tool_calls_in_messages
                else ""
            )
            messages.append(
                ChatMessage(
                    MessageRole.TOOL_RESPONSE,
                    _text(
                        f"{prefix}Error:\n{self.error}\n"
                        "Fix this and try again; if it keeps failing, try a different approach."
                    ),
                )
            )
        return messages


@dataclass
class PlanningStep(MemoryStep):
    model_input_messages: list[ChatMessage]
    model_output_message: ChatMessage
    plan: str
    timing: Timing = field(default_factory=Timing)
    token_usage: TokenUsage | None = None

    def dict(self) -> dict[str, Any]:
        return {
            "model_input_messages": [_message_dict(m) for m in self.model_input_messages],
            "model_output_message": _message_dict(self.model_output_message),
            "plan": self.plan,
            "timing": self.timing.dict(),
            "token_usage": self.token_usage.dict() if self.token_usage else None,
        }

    def to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        if summary_mode:
            return []
        return [
            ChatMessage(MessageRole.ASSISTANT, _text(self.plan.strip())),
            ChatMessage(MessageRole.USER, _text("Now proceed and carry out this plan.")),
        ]


@dataclass
class TaskStep(MemoryStep):
    task: str
    task_images: list[Any] | None = None

    def to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        content = _text(f"New task:\n{self.task}")
        content.extend({"type": "image", "image": image} for image in self.task_images or [])
        return [ChatMessage(MessageRole.USER, content)]


@dataclass
class SystemPromptStep(MemoryStep):
    system_prompt: str

    def to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        if summary_mode:
            return []
        return [ChatMessage(MessageRole.SYSTEM, _text(self.system_prompt))]


@dataclass
class FinalAnswerStep(MemoryStep):
    output: Any


class AgentMemory:
    """The system prompt and every step of the current run (and earlier runs, with `reset=False`)."""

    def __init__(self, system_prompt: str) -> None:
        self.system_prompt = SystemPromptStep(system_prompt=system_prompt)
        self.steps: list[TaskStep | ActionStep | PlanningStep] = []

    def reset(self) -> None:
        self.steps = []

    def get_succinct_steps(self) -> list[dict[str, Any]]:
        return [{k: v for k, v in step.dict().items() if k != "model_input_messages"} for step in self.steps]

    def get_full_steps(self) -> list[dict[str, Any]]:
        return [step.dict() for step in self.steps]

    def return_full_code(self) -> str:
        """All code actions of the run, joined: a script that replays what the agent did."""
        return "\n\n".join(
            step.code_action for step in self.steps if isinstance(step, ActionStep) and step.code_action
        )

    def replay(self, logger: AgentLogger, detailed: bool = False) -> None:
        logger.print("Replaying the agent's steps:", level=0)
        logger.log_markdown(title="System prompt", content=self.system_prompt.system_prompt, level=2)
        for step in self.steps:
            if isinstance(step, TaskStep):
                logger.log_task(step.task, "", level=1)
            elif isinstance(step, ActionStep):
                logger.log_rule(f"Step {step.step_number}", level=1)
                if detailed and step.model_input_messages:
                    logger.log_messages(step.model_input_messages, level=1)
                if step.model_output:
                    logger.log_markdown(title="Agent output:", content=step.model_output, level=1)
                if step.observations:
                    logger.log_markdown(title="Observation:", content=step.observations, level=1)
                if step.error:
                    logger.log_error(str(step.error))
            elif isinstance(step, PlanningStep):
                logger.log_rule("Planning step", level=1)
                logger.log_markdown(title="Plan:", content=step.plan, level=1)


StepCallback = Callable[..., Any]


class CallbackRegistry:
    """Step callbacks by step type. A callback takes `(step)` or `(step, agent=agent)`."""

    def __init__(self) -> None:
        self._callbacks: dict[type, list[tuple[StepCallback, bool]]] = {}

    def register(self, step_cls: type[MemoryStep], callback: StepCallback) -> None:
        self._callbacks.setdefault(step_cls, []).append((callback, _accepts_agent(callback)))

    def __bool__(self) -> bool:
        return bool(self._callbacks)

    def rebound(self, old: StepCallback, new: StepCallback) -> CallbackRegistry:
        """A copy with `old` replaced by `new` wherever it is registered (an agent's copy counts its
        tokens in its own monitor: see `MultiStepAgent.fresh_copy`)."""
        registry = CallbackRegistry()
        for step_cls, entries in self._callbacks.items():
            registry._callbacks[step_cls] = [(new if fn == old else fn, takes) for fn, takes in entries]
        return registry

    def callback(self, memory_step: MemoryStep, **kwargs: Any) -> None:
        for cls in type(memory_step).__mro__:
            for callback, takes_agent in self._callbacks.get(cls, []):
                if takes_agent:
                    callback(memory_step, **kwargs)
                else:
                    callback(memory_step)


def _accepts_agent(callback: StepCallback) -> bool:
    import inspect

    try:
        params = inspect.signature(callback).parameters
    except (TypeError, ValueError):
        return False
    return "agent" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
