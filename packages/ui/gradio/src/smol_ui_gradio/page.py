"""The chat page's layout and its handlers, each working on the browser session it was called from.

Why a module of its own, importing Gradio at the top: Gradio hands a handler the request (and so
the session id) only when the handler's type hints name `gr.Request` and can be resolved, and
`smol_ui_gradio.ui` must stay importable without Gradio (plugin discovery, smolagents' helpers).

Uploads pass three checks before a file is kept: Gradio refuses a file over the size limit while
receiving it (`GradioUI.launch` gives it `max_file_size`) and one of another type before the
handler runs (`file_types`), then `uploads.save_upload` checks both again. The kept copy goes into
the session's own folder; Gradio's copy in its cache is deleted at once, and whatever Gradio
received but nobody used (a refused file, a request made without the page) is deleted by Gradio's
own cache clean-up (`delete_cache`).
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import gradio as gr

from smol_ui_gradio.sessions import Session, TooManySessions
from smol_ui_gradio.ui import Chat, GradioUI
from smol_ui_gradio.uploads import discard

CACHE_CLEANUP = (600, 3600)
"""Every 10 minutes, Gradio deletes the files it received or wrote for this page over an hour ago
(a chat is shown by then; a refused upload has no business staying at all)."""


class PageHandlers:
    """What the page's events do, for the session of the browser that sent them."""

    def __init__(self, ui: GradioUI) -> None:
        self.ui = ui

    def session(self, request: gr.Request) -> Session:
        """The browser's session (made on its first use); `TooManySessions` when the page is full."""
        return self.ui.sessions.get(str(request.session_hash))

    def on_submit(
        self, task: str, history: Chat | None, files: list[str], request: gr.Request
    ) -> Generator[tuple[Chat, str, list[str], str, Any]]:
        history = list(history or [])
        hidden = gr.update(visible=False)
        if not task or not task.strip():
            yield history, "", files, "Give the agent a task first.", gr.update()
            return
        try:
            session = self.session(request)
        except TooManySessions as full:
            yield history, task, files, str(full), gr.update()
            return
        attached = "".join(f"\n📎 {Path(f).name}" for f in files)
        turn: Chat = [*history, {"role": "user", "content": task + attached}]
        yield turn, "", [], "", hidden
        for messages in self.ui.stream_run(task, files, session):
            yield [*turn, *messages], "", [], "", hidden
        yield gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.update(visible=session.pending is not None)

    def on_decision(
        self, approved: bool, note: str, history: Chat | None, request: gr.Request
    ) -> Generator[tuple[Chat, str, Any]]:
        """Approve or deny the call the session's run waits on, and show the resumed run."""
        history = list(history or [])
        key = str(request.session_hash)
        if key not in self.ui.sessions:
            yield history, note, gr.update(visible=False)
            return
        session = self.ui.sessions[key]
        said = f"{'Approved' if approved else 'Denied'}" + (f": {note}" if note.strip() else "")
        turn: Chat = [*history, {"role": "user", "content": said}]
        for messages in self.ui.stream_decision(approved, note.strip() or None, session):
            yield [*turn, *messages], "", gr.update(visible=False)
        yield gr.skip(), gr.skip(), gr.update(visible=session.pending is not None)

    def on_approve(
        self, note: str, history: Chat | None, request: gr.Request
    ) -> Generator[tuple[Chat, str, Any]]:
        yield from self.on_decision(True, note, history, request)

    def on_deny(
        self, note: str, history: Chat | None, request: gr.Request
    ) -> Generator[tuple[Chat, str, Any]]:
        yield from self.on_decision(False, note, history, request)

    def on_upload(
        self, file_path: str | None, uploaded: list[str], request: gr.Request
    ) -> tuple[str, list[str], None]:
        # the drop zone is emptied again, ready for the next file
        try:
            folder = self.session(request).folder
            _, files, status = self.ui.accept_upload(file_path, uploaded, folder)
        except TooManySessions as full:
            files, status = uploaded, str(full)
        finally:
            if file_path:
                discard(file_path)  # Gradio's copy: the session keeps its own, or nothing
        return status, files, None

    def on_stop(self, request: gr.Request) -> None:
        key = str(request.session_hash)
        if key in self.ui.sessions:
            self.ui.sessions[key].agent.interrupt()

    def on_reset(self, request: gr.Request) -> tuple[Chat, list[str], str, str, Any]:
        """Start afresh: a new agent (memory and sandbox) and an empty upload folder. A run paused
        for approval stays in the store (`smol runs` lists it) but leaves the page."""
        self.ui.sessions.close(str(request.session_hash))
        return [], [], "", "", gr.update(visible=False)

    def on_unload(self, request: gr.Request) -> None:
        """The tab was closed or reloaded: release the session's agent and delete its uploads."""
        self.ui.sessions.close(str(request.session_hash))


def build_page(ui: GradioUI) -> Any:
    """The Gradio `Blocks` of `ui`'s page."""
    handlers = PageHandlers(ui)
    title = ui.name.replace("_", " ").capitalize()
    with gr.Blocks(title=title, fill_height=True, delete_cache=CACHE_CLEANUP) as demo:
        gr.Markdown(f"# {title}" + (f"\n{ui.description}" if isinstance(ui.description, str) else ""))
        uploaded = gr.State([])
        chatbot = gr.Chatbot(
            label="Agent",
            elem_id="smol-chat",
            height=560,
            buttons=["copy", "copy_all"],
            feedback_options=None,
            latex_delimiters=[
                {"left": r"$$", "right": r"$$", "display": True},
                {"left": r"\(", "right": r"\)", "display": False},
            ],
        )
        with gr.Row():
            task_box = gr.Textbox(
                placeholder="Give the agent a task, then press Enter",
                show_label=False,
                elem_id="smol-task",
                scale=6,
            )
            run_button = gr.Button("Run", variant="primary", elem_id="smol-run", scale=1)
            stop_button = gr.Button("Stop", variant="stop", elem_id="smol-stop", scale=1)
            reset_button = gr.Button("Reset", elem_id="smol-reset", scale=1)
        with gr.Row(visible=False, elem_id="smol-approval") as approval:
            note_box = gr.Textbox(
                placeholder="A note for the model (optional): why, or what to do instead",
                show_label=False,
                elem_id="smol-approval-note",
                scale=6,
            )
            approve_button = gr.Button("Approve", variant="primary", elem_id="smol-approve", scale=1)
            deny_button = gr.Button("Deny", variant="stop", elem_id="smol-deny", scale=1)
        status = gr.Markdown("", elem_id="smol-status")
        if ui.file_upload_folder is not None:
            upload = gr.File(
                label="Upload a file for the next task",
                elem_id="smol-upload",
                file_types=ui.upload_policy.types,
            )
            upload.upload(handlers.on_upload, [upload, uploaded], [status, uploaded, upload])

        run_inputs = [task_box, chatbot, uploaded]
        run_outputs = [chatbot, task_box, uploaded, status, approval]
        limit = ui.sessions.limit  # one run at a time per session (its lock), so at most this many
        task_box.submit(handlers.on_submit, run_inputs, run_outputs, concurrency_limit=limit)
        run_button.click(handlers.on_submit, run_inputs, run_outputs, concurrency_limit=limit)
        decision_outputs = [chatbot, note_box, approval]
        approve_button.click(
            handlers.on_approve, [note_box, chatbot], decision_outputs, concurrency_limit=limit
        )
        deny_button.click(handlers.on_deny, [note_box, chatbot], decision_outputs, concurrency_limit=limit)
        stop_button.click(handlers.on_stop, None, None, queue=False)
        reset_button.click(
            handlers.on_reset, None, [chatbot, uploaded, status, task_box, approval], queue=False
        )
        demo.unload(handlers.on_unload)
    return demo
