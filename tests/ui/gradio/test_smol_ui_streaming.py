"""`smol ui` streams the model's text wherever the model streams (the page in Chromium:
`test_smol_ui_command.py`); a model that hands over whole replies keeps answer drafting."""

from __future__ import annotations

import argparse

import pytest

from smol_core import ChatMessage, Model
from smol_core.testing import ScriptedModel

pytest.importorskip("gradio")

from smol_ui_gradio.cli import build_agent, configure, model_streams  # noqa: E402


class WholeReplies(Model):
    """A model written the smolagents way: `generate` only, so a 'stream' is the whole reply at once."""

    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kw):
        return ChatMessage("assistant", "final_answer(1)")


def test_a_model_streams_when_its_class_writes_piece_by_piece() -> None:
    assert model_streams(ScriptedModel(["final_answer(1)"]))
    assert not model_streams(WholeReplies(model_id="whole"))


def _ui_arguments(*flags: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    configure(parser)
    return parser.parse_args(list(flags))


@pytest.mark.parametrize(
    ("flags", "streams"),
    [([], True), (["--stream-outputs"], True), (["--no-stream-outputs"], False)],
    ids=["default", "asked", "refused"],
)
def test_smol_ui_builds_a_streaming_agent_for_a_streaming_model(
    flags: list[str], streams: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("smol_model_openai")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    model = ["--model-type", "OpenAIServerModel", "--model-id", "m", "--api-base", "http://127.0.0.1:9/v1"]
    agent = build_agent(_ui_arguments(*model, *flags))
    try:
        assert agent.stream_outputs is streams
        assert agent.fresh_copy().stream_outputs is streams  # what each browser session gets
    finally:
        agent.cleanup()
