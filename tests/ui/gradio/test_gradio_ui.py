"""`GradioUI`'s behaviour behind the buttons, `stream_to_gradio`, uploads, tool forms and the plugin."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from smol_core import CodeAgent, Tool
from smol_core.testing import ScriptedModel

gr = pytest.importorskip("gradio")

from smol_ui_gradio import GradioUI, pull_messages_from_step, stream_to_gradio  # noqa: E402
from smol_ui_gradio.tool_demo import create_tool_demo, tool_runner  # noqa: E402
from smol_ui_gradio.uploads import UploadPolicy, UploadRejected, safe_name, save_upload  # noqa: E402


def answer(text: str) -> str:
    return f"```python\nfinal_answer({text!r})\n```"


def run_turn(ui: GradioUI, task: str, files: list[str] | None = None) -> list[dict]:
    messages: list[dict] = []
    for messages in ui.stream_run(task, files):  # noqa: B007 (the last value is the turn)
        pass
    return messages


def test_memory_is_kept_between_tasks_unless_reset() -> None:
    model = ScriptedModel([answer("one"), answer("two"), answer("three")])
    with CodeAgent(tools=[], model=model, verbosity_level=-1) as agent:
        ui = GradioUI(agent)
        run_turn(ui, "first task")
        run_turn(ui, "second task")
        assert "first task" in " ".join(m.text for m in model.calls[1]["messages"])
        ui.reset()
        assert agent.memory.steps == []
        run_turn(ui, "third task")
        assert "first task" not in " ".join(m.text for m in model.calls[2]["messages"])


def test_reset_agent_memory_forgets_each_task() -> None:
    model = ScriptedModel([answer("one"), answer("two")])
    with CodeAgent(tools=[], model=model, verbosity_level=-1) as agent:
        ui = GradioUI(agent, reset_agent_memory=True)
        run_turn(ui, "first task")
        run_turn(ui, "second task")
        assert "first task" not in " ".join(m.text for m in model.calls[1]["messages"])


def test_a_run_that_raises_ends_with_the_reason_and_the_page_goes_on() -> None:
    model = ScriptedModel([RuntimeError("the model server is down"), answer("back")])
    with CodeAgent(tools=[], model=model, verbosity_level=-1) as agent:
        ui = GradioUI(agent)
        failed = run_turn(ui, "task")
        assert "the model server is down" in failed[-1]["content"]
        assert run_turn(ui, "again")[-1]["content"] == "**Final answer:**\nback\n"


def test_uploaded_images_reach_the_agent_as_images_and_paths(tmp_path: Path) -> None:
    from PIL import Image

    picture = tmp_path / "cat.png"
    Image.new("RGB", (5, 7)).save(picture)
    model = ScriptedModel([answer("seen")])
    with CodeAgent(tools=[], model=model, verbosity_level=-1) as agent:
        ui = GradioUI(agent, file_upload_folder=tmp_path / "uploads", allowed_file_types=[".png"])
        status, files = ui.upload_file(str(picture), [])
        assert (
            status.value.startswith("File uploaded:") and Path(files[0]) == tmp_path / "uploads" / "cat.png"
        )
        run_turn(ui, "What is this?", files)
    first = model.calls[0]["messages"]
    assert any(files[0] in m.text for m in first)
    assert any(
        part.get("type") == "image" for m in first if isinstance(m.content, list) for part in m.content
    )


def test_uploads_are_checked_by_type_and_size_and_named_safely(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(UploadRejected, match=r"big.txt: 0.0 MB is over the 0.0 MB limit"):
        save_upload(big, tmp_path / "up", UploadPolicy(max_bytes=1024))
    with pytest.raises(UploadRejected, match=r"files of type .sh are not accepted \(allowed: .txt\)"):
        UploadPolicy(allowed_types=("txt",)).check("run.sh", 1)
    assert safe_name("../../etc/passwd") == "passwd"
    assert safe_name(".bashrc") == "bashrc"
    assert safe_name("my report (1).pdf") == "my_report__1_.pdf"
    first = save_upload(big, tmp_path / "up", UploadPolicy())
    second = save_upload(big, tmp_path / "up", UploadPolicy())
    assert first.name == "big.txt" and second.name.startswith("big-")  # never replaces an earlier one
    assert first.parent == second.parent == tmp_path / "up"
    ui = GradioUI(
        CodeAgent(tools=[], model=ScriptedModel([]), verbosity_level=-1), file_upload_folder=tmp_path / "u2"
    )
    status, files = ui.upload_file(str(tmp_path / "up" / first.name), ["earlier.txt"])
    assert files[0] == "earlier.txt" and len(files) == 2
    status, files = ui.upload_file(str(tmp_path / "up" / first.name), [], allowed_file_types=[".csv"])
    assert status.value == "File type disallowed" and files == []
    status, files = GradioUI(ui.agent).upload_file(str(big), [])
    assert status.value == "Uploads are turned off" and files == []


def test_stream_to_gradio_yields_gradio_messages_as_smolagents_does() -> None:
    with CodeAgent(tools=[], model=ScriptedModel([answer("done")]), verbosity_level=-1) as agent:
        messages = list(stream_to_gradio(agent, "task"))
    assert all(isinstance(m, gr.ChatMessage) for m in messages)
    assert messages[-1].content == "**Final answer:**\ndone\n"
    assert any(m.metadata.get("title") == "🛠️ Used tool python_interpreter" for m in messages)
    step = agent.memory.steps[-1]
    assert [m.content for m in pull_messages_from_step(step)][0] == "**Step 1**"


def test_the_page_builds_with_and_without_uploads(tmp_path: Path) -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([]), name="helper_bot", verbosity_level=-1)
    with_uploads = GradioUI(agent, file_upload_folder=tmp_path).create_app()
    without = GradioUI(agent).create_app()
    ids = lambda demo: {block.elem_id for block in demo.blocks.values()}  # noqa: E731
    assert {"smol-chat", "smol-task", "smol-run", "smol-stop", "smol-reset", "smol-upload"} <= ids(
        with_uploads
    )
    assert "smol-upload" not in ids(without)
    assert with_uploads.title == "Helper bot"


class Scaler(Tool):
    name = "scaler"
    description = "Scales a list of numbers."
    inputs = {
        "values": {"type": "array", "description": "The numbers."},
        "factor": {"type": "integer", "description": "By how much."},
        "note": {"type": "string", "description": "A note.", "nullable": True},
    }
    output_type = "array"

    def forward(self, values: list[int], factor: int, note: str | None = None) -> list[int]:
        return [v * factor for v in values]


def test_a_tool_form_has_a_widget_per_input_and_runs_the_tool() -> None:
    demo = create_tool_demo(Scaler())
    kinds = [type(block).__name__ for block in demo.input_components]
    assert kinds == ["Textbox", "Number", "Textbox"]
    assert tool_runner(Scaler())("[1, 2]", 3, None) == "[3, 6]"


def test_the_plugin_registers_smol_ui_without_importing_gradio() -> None:
    code = (
        "import sys; from smol_core.plugins.registry import get_registry; "
        "names = get_registry().names('commands'); "
        "print('ui' in names, 'gradio' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False"]


def test_a_task_sent_while_another_runs_is_refused_with_a_message() -> None:
    with CodeAgent(tools=[], model=ScriptedModel([answer("one")]), verbosity_level=-1) as agent:
        ui = GradioUI(agent)
        ui._run_lock.acquire()
        try:
            refused = run_turn(ui, "second")
        finally:
            ui._run_lock.release()
        assert "busy with another task" in refused[-1]["content"]
        assert run_turn(ui, "now")[-1]["content"] == "**Final answer:**\none\n"
