"""The chat page serves several people: each browser session has its own agent, sandbox and uploads.

Served by the real Gradio server on 127.0.0.1 and driven by headless Chromium, with two tabs as two
people. Before sessions, every tab shared one agent: with `reset_agent_memory=True` the next tab's
code still read the variables the previous tab's code had left in the sandbox; uploads of any size
were written and kept for good.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import free_port, wait_for

from smol_core import CodeAgent
from smol_core.testing import FunctionModel

pytest.importorskip("gradio")
pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from smol_ui_gradio import GradioUI  # noqa: E402

pytestmark = pytest.mark.slow


def code(text: str) -> str:
    return f"Thought: next.\n```python\n{text}\n```"


STORE = "secret = 'alice-password'\nfinal_answer('stored')"
READ = "try:\n    seen = secret\nexcept NameError:\n    seen = 'no secret here'\nfinal_answer(seen)"


def store_or_read(messages: list[Any], **_: Any) -> str:
    task = next(m.text for m in reversed(messages) if "New task" in m.text)
    return code(STORE if "Store" in task else READ)


@pytest.fixture
def launch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Callable[[GradioUI], str]]:
    """`ui.launch()` on a free port of 127.0.0.1, Gradio's cache in tmp_path/'gradio-cache'."""
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio-cache"))
    launched: list[GradioUI] = []

    def start(ui: GradioUI) -> str:
        port = free_port()
        ui.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
        launched.append(ui)
        return f"http://127.0.0.1:{port}/"

    yield start
    for ui in launched:
        ui.demo.close()
        ui.sessions.close_all()


def open_page(browser: Any, url: str) -> None:
    browser.get(url)
    wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#smol-task textarea"), what="the task box")


def ask(browser: Any, task: str, answer: str) -> None:
    box = browser.find_element(By.CSS_SELECTOR, "#smol-task textarea")
    box.clear()
    box.send_keys(task)
    browser.find_element(By.ID, "smol-run").click()
    final = re.compile(r"Final answer:\s*" + re.escape(answer))
    wait_for(
        lambda: final.search(browser.find_element(By.ID, "smol-chat").text), what=f"the answer {answer!r}"
    )


def test_two_tabs_never_see_each_others_memory_or_sandbox(
    browser: Any, launch: Callable[[GradioUI], str]
) -> None:
    model = FunctionModel(store_or_read)
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    ui = GradioUI(agent, reset_agent_memory=True)
    url = launch(ui)
    first = browser.current_window_handle
    open_page(browser, url)
    ask(browser, "Store the secret", "stored")
    browser.switch_to.new_window("tab")
    second = browser.current_window_handle
    try:
        open_page(browser, url)
        ask(browser, "Read the secret", "no secret here")
        assert "alice-password" not in browser.find_element(By.ID, "smol-chat").text
        assert len(ui.sessions) == 2
        last_task = " ".join(m.text for m in model.calls[-1]["messages"])
        assert "Store the secret" not in last_task  # the second tab's agent never saw the first's task
        assert agent.memory.steps == []  # sessions ran copies: the configured agent holds nothing
    finally:
        browser.close()
        browser.switch_to.window(first)
    wait_for(lambda: len(ui.sessions) == 1, what="the closed tab's session to end")
    assert second not in browser.window_handles


def test_uploads_live_in_the_sessions_folder_and_go_with_it(
    browser: Any, launch: Callable[[GradioUI], str], tmp_path: Path
) -> None:
    agent = CodeAgent(tools=[], model=FunctionModel(store_or_read), verbosity_level=-1)
    uploads = tmp_path / "uploads"
    ui = GradioUI(agent, file_upload_folder=uploads)
    url = launch(ui)
    notes = tmp_path / "notes.txt"
    notes.write_text("the meeting is at noon", encoding="utf-8")
    first = browser.current_window_handle
    browser.switch_to.new_window("tab")
    open_page(browser, url)
    browser.find_element(By.CSS_SELECTOR, "#smol-upload input[type=file]").send_keys(str(notes))
    wait_for(
        lambda: "Uploaded notes.txt" in browser.find_element(By.ID, "smol-status").text, what="the upload"
    )
    kept = list(uploads.glob("session-*/notes.txt"))
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == "the meeting is at noon"
    cache = tmp_path / "gradio-cache"
    assert not [p for p in cache.rglob("notes.txt")]  # Gradio's own copy is not kept beside it
    browser.close()
    browser.switch_to.window(first)
    wait_for(lambda: not kept[0].parent.exists(), what="the session's uploads to be deleted")
    assert len(ui.sessions) == 0


def test_an_upload_over_the_limit_is_refused_while_it_is_received(
    launch: Callable[[GradioUI], str], tmp_path: Path
) -> None:
    agent = CodeAgent(tools=[], model=FunctionModel(store_or_read), verbosity_level=-1)
    ui = GradioUI(agent, file_upload_folder=tmp_path / "uploads", max_upload_bytes=4096)
    url = launch(ui)
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\n'
            "Content-Type: text/plain\r\n\r\n"
        ).encode()
        + b"x" * 200_000
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        url + "gradio_api/upload",
        data=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)  # noqa: S310 (127.0.0.1 only)
    assert refused.value.code == 413
    assert re.search("maximum allowed size", refused.value.read().decode())
    stored = [p for p in (tmp_path / "gradio-cache").rglob("*") if p.is_file() and p.stat().st_size > 4096]
    assert stored == []
