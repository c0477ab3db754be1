"""`GradioUI`: a chat page for an agent, served by Gradio.

The page streams the agent's steps as they happen, takes file uploads (checked, then handed to the
agent as paths, images also as images), keeps the agent's memory between tasks unless told not to,
and has Stop (interrupt before the next step) and Reset (start the conversation afresh) buttons,
and Approve and Deny buttons for a tool call the run paused for (`approvals.py`).

Each browser session talks to an agent of its own (`sessions.py`): a copy of the configured agent,
or a new one from the function given instead of an agent, with its own memory, sandbox and upload
folder, all released when the session ends. The methods below without a session (`upload_file`,
`stream_run`, `reset`, `interrupt`) act on `self.agent` itself, as smolagents' methods do, for code
that drives the UI without a browser. The page's layout and handlers are `page.py`; what a step
looks like is `rendering`, and how a run's events become the messages shown so far is `ChatStream`.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from smol_core.plugin_api import ApprovalKeyError, ApprovalPendingError, CheckpointError
from smol_ui_gradio.approvals import PendingCall, decide, needs_approvals, new_run_id, pending_call
from smol_ui_gradio.chat_stream import ChatStream
from smol_ui_gradio.rendering import UIMessage
from smol_ui_gradio.run_retention import RunRetention, forget_ended_session_runs, prune_page_runs
from smol_ui_gradio.sessions import DEFAULT_SESSION_LIMIT, Session, Sessions
from smol_ui_gradio.uploads import (
    DEFAULT_ALLOWED_TYPES,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_FILES,
    DEFAULT_MAX_SESSION_BYTES,
    IMAGE_TYPES,
    UploadPolicy,
    UploadRejected,
    save_upload,
)

Chat = list[Any]  # what the Chatbot holds: message dicts, as Gradio normalised them


class GradioUI:
    """A web chat with `agent`.

    Args:
        agent: The agent to talk to; each browser session gets its `fresh_copy()`. Or a function
            that returns a new agent, called once per session (and once for `self.agent`).
        file_upload_folder: Where uploads are kept, in a folder per session deleted when the
            session ends; None turns uploads off.
        reset_agent_memory: Forget earlier tasks at the start of each one (default: remember them,
            so a follow-up question works; the Reset button forgets on demand).
        allowed_file_types: Extensions accepted for upload (default: smolagents' .pdf, .docx, .txt).
        max_upload_bytes: The largest file accepted (`launch()` also gives it to Gradio, which then
            refuses a larger file while it is still being received).
        max_sessions: How many browser sessions (each with an agent and a sandbox) may live at once.
        max_uploads_per_session: How many files one session may keep (Reset deletes them).
        max_session_upload_bytes: How many bytes of files one session may keep.
        run_retention: What the page keeps of the durable runs it starts (a page whose agent can
            pause for approval runs each task durably): by default each session's newest 5, none
            older than a day (`run_retention.py`); `RunRetention(None, None)` keeps them all.
    """

    def __init__(
        self,
        agent: Any,
        file_upload_folder: str | Path | None = None,
        reset_agent_memory: bool = False,
        allowed_file_types: list[str] | tuple[str, ...] | None = None,
        max_upload_bytes: int = DEFAULT_MAX_BYTES,
        max_sessions: int = DEFAULT_SESSION_LIMIT,
        max_uploads_per_session: int = DEFAULT_MAX_FILES,
        max_session_upload_bytes: int = DEFAULT_MAX_SESSION_BYTES,
        run_retention: RunRetention | None = None,
    ) -> None:
        factory: Callable[[], Any] | None = None if hasattr(agent, "run") else agent
        self.agent = factory() if factory is not None else agent
        self._factory = factory
        self.file_upload_folder = Path(file_upload_folder) if file_upload_folder is not None else None
        if self.file_upload_folder is not None:
            self.file_upload_folder.mkdir(parents=True, exist_ok=True)
        self.reset_agent_memory = reset_agent_memory
        self.upload_policy = UploadPolicy(
            tuple(allowed_file_types) if allowed_file_types else DEFAULT_ALLOWED_TYPES,
            max_upload_bytes,
            max_uploads_per_session,
            max_session_upload_bytes,
        )
        self.run_retention = run_retention if run_retention is not None else RunRetention()
        self._runs: list[str] = []  # the runs `self.agent` was given (session-less use), oldest first
        self.name = getattr(agent, "name", None) or getattr(self.agent, "name", None) or "Agent interface"
        if not isinstance(self.name, str):
            self.name = "Agent interface"
        self.description = getattr(self.agent, "description", None)
        self.sessions = Sessions(
            self._new_agent,
            self.file_upload_folder,
            max_sessions,
            on_close=lambda ended: forget_ended_session_runs(ended.agent, ended.runs),
        )
        self._run_lock = threading.Lock()
        self.pending: PendingCall | None = None  # the call `self.agent`'s last run paused for
        self.demo: Any = None

    def _new_agent(self) -> Any:
        """An agent for a new session: the factory's, or a copy of `self.agent` sharing nothing of its state."""
        if self._factory is not None:
            return self._factory()
        fresh_copy = getattr(self.agent, "fresh_copy", None)
        if fresh_copy is None:
            raise TypeError(
                f"{type(self.agent).__name__} has no fresh_copy(), so sessions cannot get agents of "
                "their own: give GradioUI a function that returns a new agent."
            )
        return fresh_copy()

    # --- what the buttons do (plain methods: tests call them without a browser) -----------------

    def upload_file(
        self, file: Any, file_uploads_log: list[str], allowed_file_types: list[str] | None = None
    ) -> tuple[Any, list[str]]:
        """Check and keep one uploaded file (a path, or a file object with `.name` as Gradio and
        smolagents' callers pass) in `file_upload_folder`; returns, as smolagents does, a
        `gr.Textbox` with the status ("File uploaded: <path>", "File type disallowed", ...) and the
        new list of files. `allowed_file_types` overrides the UI's own for this call."""
        import gradio as gr

        policy = self.upload_policy
        if allowed_file_types:
            policy = dataclasses.replace(policy, allowed_types=tuple(allowed_file_types))
        status, files, _ = self.accept_upload(file, file_uploads_log, self.file_upload_folder, policy)
        return gr.Textbox(value=status, visible=True), files

    def accept_upload(
        self, file: Any, uploaded: list[str], folder: Path | None, policy: UploadPolicy | None = None
    ) -> tuple[str, list[str], str]:
        """Check one upload and copy it into `folder`: smolagents' status line, the new list of files,
        and a longer explanation for the page (why a file was refused, which files the task gets)."""
        path = file if file is None or isinstance(file, str | Path) else getattr(file, "name", None)
        if not path:
            return "No file uploaded", uploaded, "No file uploaded."
        if folder is None:
            return "Uploads are turned off", uploaded, "Uploads are turned off for this agent."
        try:
            saved = save_upload(path, folder, policy or self.upload_policy)
        except UploadRejected as error:
            short = "File type disallowed" if "not accepted" in str(error) else "File too large"
            if "Reset" in str(error):
                short = "Too many files"
            return short, uploaded, f"Rejected: {error}"
        files = [*uploaded, str(saved)]
        names = ", ".join(Path(f).name for f in files)
        return f"File uploaded: {saved}", files, f"Uploaded {saved.name}. Files for the next task: {names}"

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

    def stream_run(
        self, task: str, files: list[str] | None = None, session: Session | None = None
    ) -> Generator[list[UIMessage]]:
        """Run the agent (the session's, or `self.agent`) on `task`; yield this turn's messages as they grow.

        While a step runs, the last message says what it is doing (`ChatStream`'s progress line):
        the first one comes before the agent starts, so the chat is never blank while it works."""
        agent = session.agent if session is not None else self.agent
        lock = session.run_lock if session is not None else self._run_lock
        skip = bool(getattr(agent, "stream_outputs", False))
        stream = ChatStream(skip_model_outputs=skip, progress=True)
        text, images = self.task_with_files(task, files or [])
        if not lock.acquire(blocking=False):
            stream.fail(RuntimeError("The agent is busy with another task: wait for it, or press Stop."))
            yield stream.messages
            return
        run_id = new_run_id() if needs_approvals(agent) else None  # only a durable run can pause
        try:  # a generator closed early (a tab closed mid-run) releases the lock here too
            yield stream.messages  # "Step 1 — waiting for the model…"
            events = agent.run(text, stream=True, reset=self.reset_agent_memory, images=images, run_id=run_id)
            yield from self._follow(agent, events, stream, run_id, session)
        finally:
            if run_id is not None:  # the page's runs are kept as `run_retention` says
                runs = session.runs if session is not None else self._runs
                runs.append(run_id)
                prune_page_runs(agent, runs, self.run_retention, shown=self.shown_runs())
            lock.release()
            if session is not None:
                session.last_used = time.monotonic()  # idle from the end of its task, not the start

    def shown_runs(self) -> set[str]:
        """The runs whose waiting call a panel shows now (a live session's, or this UI's own): the
        page's retention keeps them, so a person never decides on a call whose run was pruned."""
        shown = self.sessions.pending_runs()
        if self.pending is not None:
            shown.add(self.pending.run_id)
        return shown

    def stream_decision(
        self,
        approved: bool,
        note: str | None = None,
        session: Session | None = None,
        key: str | None = None,
    ) -> Generator[list[UIMessage]]:
        """Approve or deny the call the last run paused for (see `approvals.py`), then resume the
        run; yield its messages as they grow, as `stream_run` does. `key`: the approval key the
        person was shown (the page sends it); a decision on another key than the waiting call's is
        refused, and the call waiting now is shown instead. None: the call this UI holds."""
        agent = session.agent if session is not None else self.agent
        lock = session.run_lock if session is not None else self._run_lock
        holder = session if session is not None else self
        stream = ChatStream(skip_model_outputs=bool(getattr(agent, "stream_outputs", False)), progress=True)
        pending = holder.pending
        if pending is None or not lock.acquire(blocking=False):
            busy = "The agent is busy with another task." if pending else "No call is waiting for a decision."
            stream.fail(RuntimeError(busy))
            yield stream.messages
            return
        try:
            if key is not None and key.strip() != pending.key:
                raise ApprovalKeyError("the call waiting changed: nothing was decided")
            holder.pending = None
            decide(agent, pending, approved, note)
            yield stream.messages
            events = agent.resume(pending.run_id, stream=True)
            yield from self._follow(agent, events, stream, pending.run_id, session)
        except ApprovalKeyError:  # the person decided on a call that no longer waits: show the one that does
            holder.pending = _waiting_now(agent, pending)
            again = holder.pending.describe() if holder.pending is not None else "No call waits any more."
            stream.pause(f"The call waiting changed, so nothing was decided. {again}")
            yield stream.messages
        except CheckpointError as error:  # the panel shows what the store says waits now
            holder.pending = _waiting_now(agent, pending)
            if holder.pending is None:  # finished, deleted or pruned elsewhere meanwhile
                stream.pause(
                    f"Run {pending.run_id} no longer waits on a call (it finished, or was deleted, "
                    "elsewhere): nothing was decided."
                )
            else:  # a store that is down: said, the run stays paused
                stream.fail(error)
            yield stream.messages
        except Exception as error:  # a store that is down: said on the page, the run stays paused
            holder.pending = pending
            stream.fail(error)
            yield stream.messages
        finally:
            lock.release()

    def _follow(
        self, agent: Any, events: Any, stream: ChatStream, run_id: str | None, session: Session | None
    ) -> Generator[list[UIMessage]]:
        """Feed a run's events to `stream`; a run that pauses for approval is kept as pending."""
        holder = session if session is not None else self
        try:
            for event in events:
                if stream.feed(event):
                    yield stream.messages
        except ApprovalPendingError as paused:
            pending = pending_call(agent, run_id) if run_id is not None else None
            holder.pending = pending
            stream.pause(pending.describe() if pending is not None else str(paused))
            yield stream.messages
        except Exception as error:  # the page stays usable and says what went wrong
            stream.fail(error)
            yield stream.messages

    def interrupt(self) -> None:
        """Stop the running agent before its next step."""
        self.agent.interrupt()

    def reset(self) -> None:
        """Forget the conversation: the agent's memory and its token counts."""
        self.agent.memory.reset()
        monitor = getattr(self.agent, "monitor", None)
        if monitor is not None:
            monitor.reset()

    # --- the page ---------------------------------------------------------------------------------

    def create_app(self) -> Any:
        """The Gradio `Blocks` of the page (launch it, or mount it in a FastAPI app)."""
        from smol_ui_gradio.page import build_page

        if self._factory is None:  # an agent that cannot be copied fails here, not in a session
            self._new_agent().cleanup()
        return build_page(self)

    def app_kwargs(self, given: dict[str, Any] | None = None) -> dict[str, Any]:
        """Gradio's `app_kwargs` with the upload door added (`upload_gate.UploadGate`): pass them to
        `launch()` when serving `create_app()`'s page yourself; `self.launch()` does."""
        from starlette.middleware import Middleware

        from smol_ui_gradio.upload_gate import UploadGate

        merged = dict(given or {})
        merged["middleware"] = [
            *merged.get("middleware", []),
            Middleware(UploadGate, policy=self.upload_policy),
        ]
        return merged

    def launch(self, share: bool = False, **kwargs: Any) -> Any:
        """Serve the page (on 127.0.0.1 unless `server_name=` says otherwise). Unlike
        smolagents, `share` is off by default: a public link exposes the agent and its tools.

        Gradio is given the upload size limit (`max_file_size`, unless passed), and its upload
        endpoint gets a door in front (`app_kwargs()`, `upload_gate.py`): a file of a type the page
        refuses, by name or by content, is refused before Gradio stores it. When a blocking launch
        ends, every session's agent is cleaned up and its uploads deleted."""
        kwargs.setdefault("max_file_size", self.upload_policy.max_bytes)
        kwargs["app_kwargs"] = self.app_kwargs(kwargs.get("app_kwargs"))
        self.demo = self.create_app()  # the page being served (`close()` it to stop a non-blocking launch)
        try:
            return self.demo.launch(share=share, **kwargs)
        finally:
            if not kwargs.get("prevent_thread_lock"):
                self.sessions.close_all()


def _waiting_now(agent: Any, shown: PendingCall) -> PendingCall | None:
    """The call `shown`'s run waits on now, read from the store (None: it waits on none, or is gone);
    `shown` itself when the store cannot be read, so the panel keeps it until the store answers."""
    try:
        return pending_call(agent, shown.run_id)
    except LookupError:
        return None
    except CheckpointError:
        return shown
