"""smolagents' streaming helpers: an agent's run as Gradio chat messages.

`stream_to_gradio` yields a `gradio.ChatMessage` per rendered message, and the text streamed so far
(a `str`) while a model with `stream_outputs=True` is writing, as smolagents does, so code that
fed its own `gr.Chatbot` from it keeps working. The page (`GradioUI`) uses `ChatStream` directly.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from smol_core.plugin_api import (
    ActionStep,
    ChatMessageStreamDelta,
    FinalAnswerStep,
    PlanningStep,
    agglomerate_stream_deltas,
)
from smol_ui_gradio.rendering import UIMessage, step_messages


def to_gradio(item: UIMessage) -> Any:
    """A rendered message as a `gradio.ChatMessage`."""
    import gradio as gr

    return gr.ChatMessage(
        role=item["role"],  # type: ignore[arg-type,unused-ignore]
        content=item["content"],
        metadata=dict(item.get("metadata", {})),  # type: ignore[arg-type,unused-ignore]
    )


def pull_messages_from_step(
    step_log: ActionStep | PlanningStep | FinalAnswerStep, skip_model_outputs: bool = False
) -> Generator[Any]:
    """A memory step as `gradio.ChatMessage`s (see `rendering.step_messages`)."""
    for item in step_messages(step_log, skip_model_outputs=skip_model_outputs):
        yield to_gradio(item)


def stream_to_gradio(
    agent: Any,
    task: str,
    task_images: list[Any] | None = None,
    reset_agent_memory: bool = False,
    additional_args: dict[str, Any] | None = None,
) -> Generator[Any]:
    """Run `agent` on `task` and yield its steps as `gradio.ChatMessage`s as they happen."""
    deltas: list[ChatMessageStreamDelta] = []
    skip = bool(getattr(agent, "stream_outputs", False))
    for event in agent.run(
        task, images=task_images, stream=True, reset=reset_agent_memory, additional_args=additional_args
    ):
        if isinstance(event, ActionStep | PlanningStep | FinalAnswerStep):
            yield from pull_messages_from_step(event, skip_model_outputs=skip)
            deltas = []
        elif isinstance(event, ChatMessageStreamDelta):
            deltas.append(event)
            yield agglomerate_stream_deltas(deltas).render_as_markdown()
