"""smolagents' model API in smol: request options, `stop` support, tool calls read from text, the
message list, the registry of class names, and models written the smolagents way."""

from __future__ import annotations

import copy
import pickle
import uuid

import pytest

from smol_core import MODEL_REGISTRY, REMOVE_PARAMETER, CodeAgent, Model
from smol_core.json_limits import JSONLimitError
from smol_core.messages import ChatMessage, MessageRole
from smol_core.models.message_list import get_clean_message_list
from smol_core.models.options import supports_stop_parameter
from smol_core.models.request import ModelRequest
from smol_core.models.retry import RetryPolicy, is_retryable_error
from smol_core.models.tool_calls import get_tool_call_from_text
from smol_core.tools.decorator import tool

HELLO = [ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "Hello"}])]


@tool
def lookup(query: str, limit: int | None = None) -> str:
    """Looks something up.

    Args:
        query: What to look up.
        limit: How many results.
    """
    return query


def test_model_options_override_the_call_and_remove_parameter_drops_one():
    model = Model(max_tokens=100, temperature=0.5)
    kwargs = model._prepare_completion_kwargs(messages=HELLO, max_tokens=50, top_p=0.9)
    assert (kwargs["max_tokens"], kwargs["temperature"], kwargs["top_p"]) == (100, 0.5, 0.9)

    dropping = Model(max_tokens=REMOVE_PARAMETER)
    assert "max_tokens" not in dropping._prepare_completion_kwargs(messages=HELLO, max_tokens=200)
    assert "max_tokens" not in dropping.to_dict()  # the sentinel is not a setting to save


def test_remove_parameter_drops_what_the_library_adds_in_smol_requests():
    model = Model(tool_choice=REMOVE_PARAMETER, temperature=0.1)
    request = ModelRequest.from_call(HELLO, tools_to_call_from=[lookup], tool_choice="auto", seed=3)
    assert model.with_options({"tool_choice": "required", "stop": ["x"]}, request) == {
        "stop": ["x"],
        "temperature": 0.1,
        "seed": 3,
    }
    assert request.options_over({"max_tokens": REMOVE_PARAMETER, "top_p": 1}) == {"top_p": 1, "seed": 3}


def test_remove_parameter_is_one_object_even_after_a_copy():
    assert copy.deepcopy(REMOVE_PARAMETER) is REMOVE_PARAMETER
    assert pickle.loads(pickle.dumps(REMOVE_PARAMETER)) is REMOVE_PARAMETER
    assert repr(REMOVE_PARAMETER) == "REMOVE_PARAMETER"


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        ("o3", False),
        ("openai/o4-mini-2025-04-16", False),
        ("gpt-5.2-mini", False),
        ("oci/xai.grok-4", False),
        ("o1", False),
        ("o3-mini", True),
        ("o3_mini", True),
        ("prefix-o3", True),
        ("anthropic/claude-opus-4-5", True),
        ("", True),
    ],
)
def test_supports_stop_parameter_guesses_from_the_last_path_segment(model_id, expected):
    assert supports_stop_parameter(model_id) is expected


def test_stop_and_tool_choice_in_prepared_kwargs():
    model = Model()
    model.model_id = "openai/o3"
    assert "stop" not in model._prepare_completion_kwargs(messages=HELLO, stop_sequences=["x"])
    model.model_id = "gpt-4o"
    prepared = model._prepare_completion_kwargs(
        messages=HELLO, stop_sequences=["x"], tools_to_call_from=[lookup]
    )
    assert prepared["stop"] == ["x"] and prepared["tool_choice"] == "required"
    assert prepared["tools"][0]["function"]["parameters"]["required"] == ["query"]
    unforced = model._prepare_completion_kwargs(messages=HELLO, tools_to_call_from=[lookup], tool_choice=None)
    assert "tool_choice" not in unforced


def test_tool_call_from_text_as_smolagents_reads_it(monkeypatch):
    monkeypatch.setattr(uuid, "uuid4", lambda: "fixed-id")
    call = get_tool_call_from_text(
        'Action: {"name": "lookup", "arguments": "{\\"query\\": \\"x\\"}"}', "name", "arguments"
    )
    assert (call.id, call.function.name, call.function.arguments) == ("fixed-id", "lookup", {"query": "x"})
    assert get_tool_call_from_text('{"name": "lookup"}', "name", "arguments").function.arguments is None
    with pytest.raises(ValueError, match=r"Tool call needs to have a key 'name'. Got keys: \['tool'\]"):
        get_tool_call_from_text('{"tool": "lookup"}', "name", "arguments")
    with pytest.raises(JSONLimitError):  # untrusted text: nesting stays bounded
        get_tool_call_from_text(
            '{"name": "x", "arguments": ' + "[" * 5000 + "]" * 5000 + "}", "name", "arguments"
        )


def test_clean_message_list_merges_text_and_leaves_its_input_alone():
    messages = [
        ChatMessage(role=MessageRole.TOOL_CALL, content=[{"type": "text", "text": "Calling"}]),
        ChatMessage(role=MessageRole.ASSISTANT, content=[{"type": "text", "text": "more"}]),
        {"role": "tool-response", "content": [{"type": "text", "text": "Observation"}]},
    ]
    before = copy.deepcopy(messages)
    assert get_clean_message_list(messages) == [
        {"role": "assistant", "content": [{"type": "text", "text": "Calling\nmore"}]},
        {"role": "user", "content": [{"type": "text", "text": "Observation"}]},
    ]
    assert messages == before
    with pytest.raises(ValueError, match="Incorrect role"):
        get_clean_message_list([{"role": "robot", "content": "x"}])


def test_model_registry_names_smolagents_classes():
    assert list(MODEL_REGISTRY)[:3] == ["VLLMModel", "MLXModel", "TransformersModel"]
    assert MODEL_REGISTRY["OpenAIModel"].__name__ == "OpenAIServerModel"
    with pytest.raises(KeyError):
        MODEL_REGISTRY["NoSuchModel"]
    with pytest.raises(ImportError, match="VLLMModel: smol talks to vLLM"):  # a saved agent naming it
        MODEL_REGISTRY["VLLMModel"].from_dict({"model_id": "m"})


def test_model_registry_takes_a_users_class():
    class MyModel(Model):
        pass

    MODEL_REGISTRY["MyModel"] = MyModel
    try:
        assert MODEL_REGISTRY["MyModel"] is MyModel and "MyModel" in list(MODEL_REGISTRY)
    finally:
        del MODEL_REGISTRY["MyModel"]
    assert "MyModel" not in MODEL_REGISTRY and len(MODEL_REGISTRY) == 9


class BareModel(Model):
    """Written for smolagents: its __init__ never calls super().__init__()."""

    def __init__(self) -> None:
        self.replies = 0

    def generate(
        self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kwargs
    ):
        self.replies += 1
        return ChatMessage(
            role=MessageRole.ASSISTANT, content="Thought: done.\n<code>\nfinal_answer(7)\n</code>"
        )


def test_a_model_that_skips_the_base_init_runs_an_agent():
    model = BareModel()
    assert model.model_id is None and model.kwargs == {} and model.flatten_messages_as_text is False
    with CodeAgent(tools=[], model=model, verbosity_level=-1) as agent:
        assert agent.run("Give 7.") == 7
    assert model.replies == 1
    assert model.to_dict() == {"model_id": None}


def test_backoff_grows_as_smolagents_and_follows_retry_wait(monkeypatch):
    import smol_core.models.retry as retry

    waits: list[float] = []
    monkeypatch.setattr(retry, "RETRY_WAIT", 0.25)
    policy = RetryPolicy(max_attempts=4, jitter=False, sleep=waits.append, deadline=None)
    attempts = iter([ConnectionError("down"), ConnectionError("down"), ConnectionError("down")])

    def call() -> str:
        error = next(attempts, None)
        if error is not None:
            raise error
        return "ok"

    assert policy.run(call) == "ok"
    assert waits == [0.5, 1.0, 2.0]


def test_a_missing_key_is_not_retried_whatever_its_status():
    class InternalServerError(Exception):
        status_code = 500

    missing = InternalServerError(
        "The api_key client option must be set either by passing api_key to the client"
    )
    assert not is_retryable_error(missing)
    assert is_retryable_error(InternalServerError("upstream overloaded"))
