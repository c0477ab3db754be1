"""Memory steps and run events as chat messages: pure functions, no Gradio.

Each function takes what an agent produced (a step, a final answer, a tool call) and returns plain
message dicts in the shape Gradio's `Chatbot` takes (`role`, `content`, `metadata`). Keeping this
apart from the page's layout lets the same rendering serve the single-agent chat, `stream_to_gradio`
and, later, a team view that shows each agent's steps in a column of its own.

What the model or the sandbox wrote is shown as text or as media re-encoded here (images decoded
under the format and size rules of `smol_core.agent_types`, re-saved as PNG): a path that a tool
returns is never served as it is, so a model cannot make the page hand out an arbitrary file.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any, TypedDict

from smol_core.plugin_api import (
    ActionStep,
    AgentAudio,
    AgentImage,
    AgentText,
    FinalAnswerStep,
    PlanningStep,
    ToolCall,
    handle_agent_output_types,
)


class Metadata(TypedDict, total=False):
    title: str
    status: str
    id: str
    parent_id: str
    log: str
    duration: float


class UIMessage(TypedDict, total=False):
    role: str
    content: Any  # str, or {"path": ..., "mime_type": ...} for media
    metadata: Metadata


def message(content: Any, title: str | None = None, status: str = "done", **extra: Any) -> UIMessage:
    """One assistant message; with a `title` Gradio shows it as a collapsible box."""
    metadata: Metadata = {"status": status}
    if title is not None:
        metadata["title"] = title
    metadata.update(extra)  # type: ignore[typeddict-item]
    return {"role": "assistant", "content": content, "metadata": metadata}


def step_footnote(step: ActionStep | PlanningStep, step_name: str) -> str:
    """The step's name, its token counts and its duration, in small grey type."""
    parts = [f"**{step_name}**"]
    if step.token_usage is not None:
        parts.append(f"Input tokens: {step.token_usage.input_tokens:,}")
        parts.append(f"Output tokens: {step.token_usage.output_tokens:,}")
    duration = step.timing.duration
    if duration is not None:
        parts.append(f"Duration: {duration:.2f}s")
    return f'<span style="color: #8a8a96; font-size: 12px;">{" | ".join(parts)}</span>'


def clean_model_output(text: str) -> str:
    """The model's reply without the tags that close a code block (`<end_code>`, `</code>`)."""
    text = re.sub(r"```\s*<end_code>", "```", text.strip())
    text = re.sub(r"<end_code>\s*```", "```", text)
    return re.sub(r"\s*<end_code>\s*$", "", text).strip()


def format_code(code: str) -> str:
    """Code as a fenced Python block (longer fences when the code itself holds backticks)."""
    fence = "```"
    while fence in code:
        fence += "`"
    return f"{fence}python\n{code.strip()}\n{fence}"


def _tool_call_content(call: ToolCall) -> str:
    if call.name == "python_interpreter":
        return format_code(str(call.arguments))
    arguments = call.arguments
    if isinstance(arguments, dict) and set(arguments) == {"answer"}:
        return str(arguments["answer"])
    return str(arguments).strip()


def image_file(value: Any) -> UIMessage:
    """An image as a chat file (decoded under the size and format rules, re-saved as PNG)."""
    return {
        "role": "assistant",
        "content": {"path": AgentImage(AgentImage(value).to_raw()).to_string(), "mime_type": "image/png"},
    }


def audio_file(value: Any) -> UIMessage:
    """Audio as a chat file (read as samples, re-written as WAV)."""
    audio = AgentAudio(value)
    fresh = AgentAudio(audio.to_raw(), samplerate=audio.samplerate)
    return {"role": "assistant", "content": {"path": fresh.to_string(), "mime_type": "audio/wav"}}


def image_identity(value: Any) -> int | None:
    """The id of the image object `value` is or wraps (what `observations_images` holds), else None."""
    shown = value if isinstance(value, AgentText | str) else handle_agent_output_types(value)
    return id(shown.to_raw()) if isinstance(shown, AgentImage) else None


def media_messages(value: Any) -> list[UIMessage]:
    """An image or a sound that an action or a tool returned, as a chat file; nothing for other
    values (their text is already in the step's observation)."""
    if isinstance(value, AgentText | str):
        return []
    shown = handle_agent_output_types(value)
    if isinstance(shown, AgentImage):
        return [image_file(shown)]
    if isinstance(shown, AgentAudio):
        return [audio_file(shown)]
    return []


def pending_tool_call(call: ToolCall) -> UIMessage:
    """The action about to run: shown with a spinner until its step is complete."""
    return message(_tool_call_content(call), title=f"🛠️ Running {call.name}", status="pending")


def action_step_messages(
    step: ActionStep, skip_model_outputs: bool = False, shown_images: Collection[int] = ()
) -> list[UIMessage]:
    """An action step: the model's thought, the action, its logs, images, error and a footnote.

    `shown_images` are the ids of images already shown live from the step's outputs: the agent
    also keeps them in `observations_images` (for the model's next step), and each is shown once.
    """
    name = f"Step {step.step_number}"
    out: list[UIMessage] = []
    if not skip_model_outputs:
        out.append(message(f"**{name}**"))
        if step.model_output:
            out.append(message(clean_model_output(step.model_output)))
    for call in step.tool_calls or []:
        out.append(message(_tool_call_content(call), title=f"🛠️ Used tool {call.name}"))
    if step.observations and step.observations.strip():
        logs = re.sub(r"^Execution logs:\s*", "", step.observations.strip())
        out.append(message(f"```text\n{logs}\n```", title="📝 Execution logs"))
    # a final answer's image is shown once, by the final answer that follows the step
    answer_image = image_identity(step.action_output) if step.is_final_answer else None
    for image in step.observations_images or []:
        if id(image) not in shown_images and id(image) != answer_image:
            out.append(image_file(image))
    if step.error is not None:
        out.append(message(str(step.error), title="💥 Error"))
    out.append(message(step_footnote(step, name)))
    out.append(message("-----"))
    return out


def planning_step_messages(step: PlanningStep, skip_model_outputs: bool = False) -> list[UIMessage]:
    out: list[UIMessage] = []
    if not skip_model_outputs:
        out.append(message("**Planning step**"))
        out.append(message(step.plan))
    out.append(message(step_footnote(step, "Planning step")))
    out.append(message("-----"))
    return out


def final_answer_messages(output: Any) -> list[UIMessage]:
    """The answer: text in bold, an image or a sound as the file the page shows or plays.

    An `AgentText` answer goes on a line of its own under the heading, as smolagents shows it."""
    if isinstance(output, AgentText):
        return [message(f"**Final answer:**\n{output.to_string()}\n")]
    answer = handle_agent_output_types(output)
    if isinstance(answer, AgentImage):  # the file alone, last in the chat, as smolagents shows it
        return [image_file(answer)]
    if isinstance(answer, AgentAudio):
        return [audio_file(answer)]
    text = answer.to_string() if isinstance(answer, AgentText) else str(answer)
    return [message(f"**Final answer:** {text}")]


def step_messages(
    step: ActionStep | PlanningStep | FinalAnswerStep,
    skip_model_outputs: bool = False,
    shown_images: Collection[int] = (),
) -> list[UIMessage]:
    """Any memory step the stream yields, as chat messages."""
    if isinstance(step, ActionStep):
        return action_step_messages(step, skip_model_outputs, shown_images)
    if isinstance(step, PlanningStep):
        return planning_step_messages(step, skip_model_outputs)
    if isinstance(step, FinalAnswerStep):
        return final_answer_messages(step.output)
    raise ValueError(f"Unsupported step type: {type(step).__name__}")


def error_message(error: BaseException) -> UIMessage:
    """A run that ended with an exception: what went wrong, as the last message."""
    text = str(error) or type(error).__name__
    if text.strip() == "Agent interrupted.":
        return message("The run was stopped before its next step.", title="⏹️ Interrupted")
    return message(f"{type(error).__name__}: {text}", title="💥 The run failed")
