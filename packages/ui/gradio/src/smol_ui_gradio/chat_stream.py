"""Fold the events of one agent's run into the chat messages shown so far.

`agent.run(task, stream=True)` yields, per step, the model's text as it streams
(`ChatMessageStreamDelta`, with `stream_outputs=True`), the action about to run (`ToolCall`), its
result (`ActionOutput` / `ToolOutput`), then the finished `ActionStep`; a run ends with a
`FinalAnswerStep`. `ChatStream` keeps the finished steps' messages and one live message for the step
in progress (the streaming text, or the pending action), replaced when its step completes. It holds
no Gradio object, so one `ChatStream` per agent is all a team view needs.

With `progress=True` (the page), the step in progress also gets a line saying what it is doing
("Step 2 — waiting for the model…", "… the model is writing…", "… running code…"): a model can take
a minute before its first word, and without `stream_outputs` nothing at all arrives until the step
is over, so the chat looked dead. The stream has no event for "a step began", but every step but
the first begins as soon as the one before it lands, so the line follows from the events alone.
The line goes when the step lands (or the run ends): the finished rendering is the same either way.
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

WAITING = "waiting for the model"
WRITING = "the model is writing"


def action_phase(call: ToolCall) -> str:
    """What a step does once its model has chosen `call`: run code, or call a tool."""
    return "running code" if call.name == "python_interpreter" else f"calling {call.name}"


class ChatStream:
    """The chat messages of one run, updated event by event.

    skip_model_outputs: the model's text was shown live (`stream_outputs=True`), so finished steps
    do not repeat it. progress: add the line saying what the step in progress is doing (for a page;
    off for callers that keep the messages as the run's record).
    """

    def __init__(self, skip_model_outputs: bool = False, progress: bool = False) -> None:
        self.skip_model_outputs = skip_model_outputs
        self.progress = progress
        self.step_number = 1  # the step in progress (a run starts at 1; then the last one landed + 1)
        self.phase: str | None = WAITING  # what it is doing; None when no step is under way
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
        line = self.progress_line()
        return [*self.done, *self._live, *([line] if line is not None else [])]

    def progress_line(self) -> UIMessage | None:
        """What the step in progress is doing, as a pending message (None without `progress`)."""
        if not self.progress or self.finished or self.phase is None:
            return None
        return message(f"_Step {self.step_number} — {self.phase}…_", status="pending")

    def feed(self, event: Any) -> bool:
        """Take one event; True when the messages changed (the page should be updated)."""
        if isinstance(event, ActionStep | PlanningStep | FinalAnswerStep):
            self._live, self._deltas = [], []
            rendered = step_messages(event, self.skip_model_outputs, shown_images=self._shown_images)
            if isinstance(event, ActionStep) and self._media:
                rendered[-2:-2] = self._media  # before the step's footnote
            self._media, self._shown_images = [], set()
            self.done.extend(rendered)
            if isinstance(event, ActionStep):  # the next step (if any) starts with a model call
                self.step_number = event.step_number + 1
                self.phase = None if event.is_final_answer else WAITING
            elif isinstance(event, PlanningStep):  # the plan is made: the step's action is next
                self.phase = WAITING
            if isinstance(event, FinalAnswerStep):
                self.final_output, self.finished = event.output, True
            return True
        if isinstance(event, ChatMessageStreamDelta):
            self._deltas.append(event)
            text = agglomerate_stream_deltas(self._deltas).render_as_markdown()
            self._live = [message(text, status="pending")] if text else []
            if text:
                self.phase = WRITING
            return bool(text)
        if isinstance(event, ToolCall):
            streamed = [m for m in self._live if "title" not in m.get("metadata", {})]
            self._live = [*streamed, pending_tool_call(event)]
            self.phase = action_phase(event)
            return True
        if isinstance(event, ActionOutput | ToolOutput) and not event.is_final_answer:
            self._media.extend(media_messages(event.output))
            shown = image_identity(event.output)
            if shown is not None:
                self._shown_images.add(shown)
        return False  # the step follows with everything else in it

    def pause(self, text: str) -> None:
        """The run paused before a call that needs a person's decision: say which, as the last message."""
        self._live, self._deltas = [], []
        self.done.append(message(f"⏸️ **Waiting for your approval.** {text}"))  # open, not a folded box
        self.finished = True

    def fail(self, error: BaseException) -> None:
        """The run raised: drop the step in progress and say why it ended."""
        self._live, self._deltas = [], []
        self.done.append(error_message(error))
        self.finished = True
