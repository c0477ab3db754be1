"""smolagents' model class names wherever a model is named (`load_model`, `smolagent --model-type`), with
smolagents' defaults for them, and its `run_smolagent` function."""

from __future__ import annotations

import pytest

from smol_core import hookimpl, load_model, run_smolagent
from smol_core.cli import smolagent
from smol_core.errors import PluginNotFoundError
from smol_core.plugins.specs import ModelSpec


@pytest.mark.parametrize(
    ("model_type", "class_name"),
    [
        ("OpenAIServerModel", "OpenAIServerModel"),
        ("AzureOpenAIModel", "AzureOpenAIServerModel"),
        ("LiteLLMModel", "LiteLLMModel"),
        ("LiteLLMRouterModel", "LiteLLMRouterModel"),
        ("InferenceClientModel", "InferenceClientModel"),
        ("AmazonBedrockModel", "AmazonBedrockServerModel"),
    ],
)
def test_smolagents_class_names_are_model_names(registry, model_type, class_name):
    assert registry.model(model_type).factory.target.endswith(f":{class_name}")


def test_openai_model_by_its_smolagents_name_talks_to_fireworks_as_there(registry, monkeypatch):
    monkeypatch.setenv("FIREWORKS_API_KEY", "fw-key")
    model = load_model("OpenAIModel", "accounts/fireworks/models/x")
    assert model.api_base == "https://api.fireworks.ai/inference/v1" and model.api_key == "fw-key"
    elsewhere = load_model("OpenAIModel", "m", api_base="http://127.0.0.1:9/v1")
    assert elsewhere.api_key is None  # the Fireworks key goes only to Fireworks
    assert load_model("openai", "m", api_key="k").api_base is None  # smol's own name: OpenAI itself


def test_unknown_model_type_is_a_value_error_naming_it(registry):
    with pytest.raises(ValueError, match="Unsupported model type: NoSuchModel") as caught:
        load_model("NoSuchModel", "m")
    assert isinstance(caught.value, PluginNotFoundError) and "Installed models:" in str(caught.value)


def test_smolagent_inference_client_model_with_api_base(registry):
    args = smolagent.build_parser().parse_args(
        [
            "task",
            "--model-type",
            "InferenceClientModel",
            "--model-id",
            "m",
            "--api-base",
            "http://127.0.0.1:9/v1",
        ]
    )
    model = smolagent.build_model(args)
    assert type(model).__name__ == "InferenceClientModel" and model.base_url == "http://127.0.0.1:9/v1"


class FixedModelPlugin:
    @hookimpl
    def smol_models(self):
        from smol_core.testing import ScriptedModel

        def factory(model_id: str | None = None, **kwargs):
            assert not kwargs, kwargs  # api_base=None, api_key=None, provider=None count as not given
            return ScriptedModel(["Thought: go.\n<code>\nfinal_answer(6 * 7)\n</code>"])

        return [ModelSpec("fixed", factory, "Fixed replies.")]


def test_run_smolagent_runs_a_code_agent(registry):
    registry.register(FixedModelPlugin(), name="fixed-plugin")
    assert run_smolagent("Six times seven?", [], "fixed", "any") == 42
    with pytest.raises(ValueError, match="Unsupported action type"):
        run_smolagent("x", [], "fixed", "any", action_type="dance")


def test_provider_for_a_model_that_takes_none_is_a_one_line_error(registry, capsys):
    with pytest.raises(SystemExit) as exited:
        smolagent.main(["task", "--model-type", "LiteLLMModel", "--model-id", "m", "--provider", "together"])
    assert exited.value.code == 2
    assert "--provider is for models that choose an inference provider" in capsys.readouterr().err
