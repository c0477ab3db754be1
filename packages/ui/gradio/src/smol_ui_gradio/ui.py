"""`GradioUI`: a chat page for one agent, served by Gradio.

The page streams the agent's steps as they happen, takes file uploads (checked, then handed to the
agent as paths, images also as images), keeps the agent's memory between tasks unless told not to,
and has Stop (interrupt before the next step) and Reset (forget the conversation) buttons.

The layout lives here; what a step looks like is `rendering`, and how a run's events become the
messages shown so far is `ChatStream`. A team view adds a column per agent, each fed by its own
`ChatStream`, without touching either.

One agent serves every browser tab, as in the seed system, so runs are queued one at a time
(a task sent while another runs is refused with a message, never interleaved in one memory).
"""

from __future__ import annotations

import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any

from smol_ui_gradio.chat_stream import ChatStream
from smol_ui_gradio.rendering import UIMessage
from smol_ui_gradio.uploads import DEFAULT_MAX_BYTES, IMAGE_TYPES, UploadPolicy, UploadRejected, save_upload

Chat = list[Any]  # what the Chatbot holds: message dicts, as Gradio normalised them


class GradioUI:
    """A web chat with `agent`.

    Args:
        agent: The agent to talk to.
        file_upload_folder: Where uploaded files are kept; None turns uploads off.
        reset_agent_memory: Forget earlier tasks at the start of each one (default: remember them,
            so a follow-up question works; the Reset button forgets on demand).
        allowed_file_types: Extensions accepted for upload (default: documents, data and images).
        max_upload_bytes: The largest file accepted.
    """

    def __init__(
        self,
        agent: Any,
        file_upload_folder: str | Path | None = None,
        reset_agent_memory: bool = False,
        allowed_file_types: list[str] | tuple[str, ...] | None = None,
        max_upload_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.agent = agent
        self.file_upload_folder = Path(file_upload_folder) if file_upload_folder is not None else None
        if self.file_upload_folder is not None:
            self.file_upload_folder.mkdir(parents=True, exist_ok=True)
        self.reset_agent_memory = reset_agent_memory
        policy = UploadPolicy(max_bytes=max_upload_bytes)
        self.upload_policy = (
            UploadPolicy(tuple(allowed_file_types), max_upload_bytes) if allowed_file_types else policy
        )
        self.name = getattr(agent, "name", None) or "Agent interface"
        self.description = getattr(agent, "description", None)
        self._run_lock = threading.Lock()

    # --- what the buttons do (plain methods: tests call them without a browser) -----------------

    def upload_file(self, file_path: Any, uploaded: list[str]) -> tuple[str, list[str]]:
        """Check and keep one uploaded file (a path, or a file object with `.name` as the seed
        system's callers pass); returns the status line and the new list of files."""
        if file_path is not None and not isinstance(file_path, str | Path):
            file_path = getattr(file_path, "name", None)
        if not file_path:
            return "No file uploaded.", uploaded
        if self.file_upload_folder is None:
            return "Uploads are turned off for this agent.", uploaded
        try:
            saved = save_upload(file_path, self.file_upload_folder, self.upload_policy)
        except UploadRejected as error:
            return f"Rejected: {error}", uploaded
        files = [*uploaded, str(saved)]
        names = ", ".join(Path(f).name for f in files)
        return f"Uploaded {Path(file_path).name}. Files for the next task: {names}", files

    def task_with_files(self, task: str, files: list[str]) -> tuple[str, list[Any] | None]:
        """The task text naming the uploaded files, and the uploaded images for a vision model."""
        if not files:
            return task, None
        from smol_core.plugin_api import decode_image

        text = f"{task}\nYou have been provided with these files: {files}"
        images = []
        for path in files:
            if Path(path).suffix.lower() in IMAGE_TYPES:
                try:
                    images.append(decode_image(path))
                except ValueError:
                    text += f"\n(The file {Path(path).name} could not be read as an image.)"
        return text, images or None

    def stream_run(self, task: str, files: list[str] | None = None) -> Generator[list[UIMessage]]:
        """Run the agent on `task` and yield this turn's messages as they grow."""
        stream = ChatStream(skip_model_outputs=bool(getattr(self.agent, "stream_outputs", False)))
        text, images = self.task_with_files(task, files or [])
        if not self._run_lock.acquire(blocking=False):
            stream.fail(RuntimeError("The agent is busy with another task: wait for it, or press Stop."))
            yield stream.messages
            return
        try:  # a generator closed early (a tab closed mid-run) releases the lock here too
            for event in self.agent.run(text, stream=True, reset=self.reset_agent_memory, images=images):
                if stream.feed(event):
                    yield stream.messages
        except Exception as error:  # the page stays usable and says what went wrong
            stream.fail(error)
            yield stream.messages
        finally:
            self._run_lock.release()

    def interrupt(self) -> None:
        """Stop the running agent before its next step."""
        self.agent.interrupt()

    def reset(self) -> None:
        """Forget the conversation: the agent's memory and its token counts."""
        self.agent.memory.reset()
        monitor = getattr(self.agent, "monitor", None)
        if monitor is not None:
            monitor.reset()

    # --- Gradio handlers ---------------------------------------------------------------------------

    def _on_submit(
        self, task: str, history: Chat | None, files: list[str]
    ) -> Generator[tuple[Chat, str, list[str], str]]:
        history = list(history or [])
        if not task or not task.strip():
            yield history, "", files, "Give the agent a task first."
            return
        attached = "".join(f"\n📎 {Path(f).name}" for f in files)
        turn: Chat = [*history, {"role": "user", "content": task + attached}]
        yield turn, "", [], ""
        for messages in self.stream_run(task, files):
            yield [*turn, *messages], "", [], ""

    def _on_upload(self, file_path: str | None, uploaded: list[str]) -> tuple[str, list[str], None]:
        # the drop zone is emptied again, ready for the next file
        return (*self.upload_file(file_path, uploaded), None)

    def _on_reset(self) -> tuple[Chat, list[str], str, str]:
        self.reset()
        return [], [], "", ""

    # --- the page ---------------------------------------------------------------------------------

    def create_app(self) -> Any:
        """The Gradio `Blocks` of the page (launch it, or mount it in a FastAPI app)."""
        import gradio as gr

        title = self.name.replace("_", " ").capitalize()
        with gr.Blocks(title=title, fill_height=True) as demo:
            gr.Markdown(f"# {title}" + (f"\n{self.description}" if self.description else ""))
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
            status = gr.Markdown("", elem_id="smol-status")
            if self.file_upload_folder is not None:
                upload = gr.File(label="Upload a file for the next task", elem_id="smol-upload")
                upload.upload(self._on_upload, [upload, uploaded], [status, uploaded, upload])

            run_inputs = [task_box, chatbot, uploaded]
            run_outputs = [chatbot, task_box, uploaded, status]
            task_box.submit(self._on_submit, run_inputs, run_outputs, concurrency_limit=1)
            run_button.click(self._on_submit, run_inputs, run_outputs, concurrency_limit=1)
            stop_button.click(self.interrupt, None, None, queue=False)
            reset_button.click(self._on_reset, None, [chatbot, uploaded, status, task_box], queue=False)
        return demo

    def launch(self, share: bool = False, **kwargs: Any) -> Any:
        """Serve the page (on 127.0.0.1 unless `server_name=` says otherwise). Unlike the seed
        system, `share` is off by default: a public link exposes the agent and its tools."""
        return self.create_app().launch(share=share, **kwargs)
