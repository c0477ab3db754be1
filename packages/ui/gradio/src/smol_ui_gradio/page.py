"""The chat page's layout and its handlers, each working on the browser session it was called from.

Why a module of its own, importing Gradio at the top: Gradio hands a handler the request (and so
the session id) only when the handler's type hints name `gr.Request` and can be resolved, and
`smol_ui_gradio.ui` must stay importable without Gradio (plugin discovery, smolagents' helpers).

Uploads pass these checks before a file is kept: the door in front of Gradio's upload endpoint
(`upload_gate.py`, installed by `GradioUI.launch`) refuses a file over the size limit or of a type
the page refuses, by name and by content, before Gradio stores anything; then `uploads.save_upload`
checks them again, with the session's count and byte limits. The kept copy goes into
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
    ) -> Generator[tuple[Any, ...]]:
        history = list(history or [])
        hidden = gr.update(visible=False)
        if not task or not task.strip():
            yield history, "", files, "Give the agent a task first.", gr.update(), gr.skip(), gr.skip()
            return
        try:
            session = self.session(request)
        except TooManySessions as full:
            yield history, task, files, str(full), gr.update(), gr.skip(), gr.skip()
            return
        attached = "".join(f"\n📎 {Path(f).name}" for f in files)
        turn: Chat = [*history, {"role": "user", "content": task + attached}]
        yield turn, "", [], "", hidden, gr.skip(), gr.skip()
        for messages in self.ui.stream_run(task, files, session):
            yield [*turn, *messages], "", [], "", hidden, gr.skip(), gr.skip()
        yield gr.skip(), gr.skip(), gr.skip(), gr.skip(), *approval_panel(session)

    def on_decision(
        self, approved: bool, note: str, key: str, history: Chat | None, request: gr.Request
    ) -> Generator[tuple[Any, ...]]:
        """Approve or deny the call the session's run waits on, by the key the panel showed (another
        key: the call changed, and the page shows the new one), and show the resumed run."""
        history = list(history or [])
        session_key = str(request.session_hash)
        if session_key not in self.ui.sessions:
            yield history, note, gr.update(visible=False), gr.skip(), gr.skip()
            return
        session = self.ui.sessions[session_key]
        said = f"{'Approved' if approved else 'Denied'}" + (f": {note}" if note.strip() else "")
        turn: Chat = [*history, {"role": "user", "content": said}]
        for messages in self.ui.stream_decision(approved, note.strip() or None, session, key=key or ""):
            yield [*turn, *messages], "", gr.update(visible=False), gr.skip(), gr.skip()
        yield gr.skip(), gr.skip(), *approval_panel(session)

    def on_approve(
        self, note: str, key: str, history: Chat | None, request: gr.Request
    ) -> Generator[tuple[Any, ...]]:
        yield from self.on_decision(True, note, key, history, request)

    def on_deny(
        self, note: str, key: str, history: Chat | None, request: gr.Request
    ) -> Generator[tuple[Any, ...]]:
        yield from self.on_decision(False, note, key, history, request)

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

    def on_reset(self, request: gr.Request) -> tuple[Any, ...]:
        """Start afresh: a new agent (memory and sandbox) and an empty upload folder. The session's
        runs are forgotten, but a run paused for approval, which stays in the store (`smol runs`
        lists it, `smol runs approve` decides it) and leaves the page."""
        self.ui.sessions.close(str(request.session_hash))
        return [], [], "", "", gr.update(visible=False), "", ""

    def on_unload(self, request: gr.Request) -> None:
        """The tab was closed or reloaded: release the session's agent and delete its uploads."""
        self.ui.sessions.close(str(request.session_hash))


def approval_panel(session: Session) -> tuple[Any, Any, Any]:
    """The approval panel's updates: shown with the whole call and its key while a call waits."""
    pending = session.pending
    if pending is None:
        return gr.update(visible=False), "", ""
    return gr.update(visible=True), pending.call, pending.key


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
        with gr.Column(visible=False, elem_id="smol-approval") as approval:
            call_box = gr.Textbox(
                label="The whole call waiting for your decision (scroll for more)",
                elem_id="smol-approval-call",
                interactive=False,
                lines=4,
                max_lines=20,
            )
            key_box = gr.Textbox(label="Its key", elem_id="smol-approval-key", interactive=False, max_lines=1)
            with gr.Row():
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
        run_outputs = [chatbot, task_box, uploaded, status, approval, call_box, key_box]
        limit = ui.sessions.limit  # one run at a time per session (its lock), so at most this many
        task_box.submit(handlers.on_submit, run_inputs, run_outputs, concurrency_limit=limit)
        run_button.click(handlers.on_submit, run_inputs, run_outputs, concurrency_limit=limit)
        decision_outputs = [chatbot, note_box, approval, call_box, key_box]
        decision_inputs = [note_box, key_box, chatbot]  # the key the panel showed: what is decided
        approve_button.click(handlers.on_approve, decision_inputs, decision_outputs, concurrency_limit=limit)
        deny_button.click(handlers.on_deny, decision_inputs, decision_outputs, concurrency_limit=limit)
        stop_button.click(handlers.on_stop, None, None, queue=False)
        reset_button.click(
            handlers.on_reset,
            None,
            [chatbot, uploaded, status, task_box, approval, call_box, key_box],
            queue=False,
        )
        demo.unload(handlers.on_unload)
    return demo
