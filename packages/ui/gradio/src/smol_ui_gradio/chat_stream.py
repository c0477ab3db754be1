"""Fold the events of one agent's run into the chat messages shown so far.

`agent.run(task, stream=True)` yields, per step, the model's text as it streams
(`ChatMessageStreamDelta`, with `stream_outputs=True`), the action about to run (`ToolCall`), its
result (`ActionOutput` / `ToolOutput`), then the finished `ActionStep`; a run ends with a
`FinalAnswerStep`. `ChatStream` keeps the finished steps' messages and one live message for the step
in progress (the streaming text, or the pending action), replaced when its step completes. It holds
no Gradio object, so one `ChatStream` per agent is all a team view needs.
"""

from __future__ import annotations

from typing import Any

from smol_core.plugin_api import (
    ActionOutput,
    ActionStep,
    ChatMessageStreamDelta,
    FinalAnswerStep,
    PlanningStep,
    ToolCall,
    ToolOutput,
    agglomerate_stream_deltas,
)
from smol_ui_gradio.rendering import (
    UIMessage,
    error_message,
    image_identity,
    media_messages,
    message,
    pending_tool_call,
    step_messages,
)


class ChatStream:
    """The chat messages of one run, updated event by event."""

    def __init__(self, skip_model_outputs: bool = False) -> None:
        # With stream_outputs=True the model's text was shown live: steps then skip repeating it.
        self.skip_model_outputs = skip_model_outputs
        self.done: list[UIMessage] = []
        self._deltas: list[ChatMessageStreamDelta] = []
        self._live: list[UIMessage] = []
        self._media: list[UIMessage] = []  # images and sounds the step's action or tools returned
        self._shown_images: set[int] = set()  # ids of those images, not to be shown again with the step
        self.final_output: Any = None
        self.finished = False

    @property
    def messages(self) -> list[UIMessage]:
        """Everything to show now: finished steps, then the step in progress."""
        return [*self.done, *self._live]

    def feed(self, event: Any) -> bool:
        """Take one event; True when the messages changed (the page should be updated)."""
        if isinstance(event, ActionStep | PlanningStep | FinalAnswerStep):
            self._live, self._deltas = [], []
            rendered = step_messages(event, self.skip_model_outputs, shown_images=self._shown_images)
            if isinstance(event, ActionStep) and self._media:
                rendered[-2:-2] = self._media  # before the step's footnote
            self._media, self._shown_images = [], set()
            self.done.extend(rendered)
            if isinstance(event, FinalAnswerStep):
                self.final_output, self.finished = event.output, True
            return True
        if isinstance(event, ChatMessageStreamDelta):
            self._deltas.append(event)
            text = agglomerate_stream_deltas(self._deltas).render_as_markdown()
            self._live = [message(text, status="pending")] if text else []
            return bool(text)
        if isinstance(event, ToolCall):
            streamed = [m for m in self._live if "title" not in m.get("metadata", {})]
            self._live = [*streamed, pending_tool_call(event)]
            return True
        if isinstance(event, ActionOutput | ToolOutput) and not event.is_final_answer:
            self._media.extend(media_messages(event.output))
            shown = image_identity(event.output)
            if shown is not None:
                self._shown_images.add(shown)
        return False  # the step follows with everything else in it

    def fail(self, error: BaseException) -> None:
        """The run raised: drop the step in progress and say why it ended."""
        self._live, self._deltas = [], []
        self.done.append(error_message(error))
        self.finished = True
