"""The clients the OpenAI models build with the real SDK: smolagents' constructor arguments, the SDK's
own retries off unless asked for, and a missing key or Azure setting said in one line."""

from __future__ import annotations

import pytest
from smol_model_openai import AzureOpenAIModel, OpenAIModel

from smol_core.errors import SmolError


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION"):
        monkeypatch.delenv(name, raising=False)


def test_openai_client_takes_smolagents_arguments():
    model = OpenAIModel(
        model_id="gpt-4o-mini",
        api_base="http://127.0.0.1:9/v1",
        api_key="sk-test",
        organization="org",
        project="proj",
        client_kwargs={"max_retries": 5},
    )
    client = model.client
    assert str(client.base_url).rstrip("/") == "http://127.0.0.1:9/v1"
    assert (client.api_key, client.organization, client.project, client.max_retries) == (
        "sk-test",
        "org",
        "proj",
        5,
    )
    assert OpenAIModel(model_id="m", api_key="k").client.max_retries == 0  # the retry policy decides


def test_openai_without_a_key_is_one_clear_error():
    with pytest.raises(SmolError, match="pass api_key=... or set OPENAI_API_KEY"):
        OpenAIModel(model_id="gpt-4o-mini")


def test_azure_client_takes_smolagents_arguments():
    model = AzureOpenAIModel(
        model_id="deployment",
        api_key="key",
        api_version="2024-10-21",
        azure_endpoint="https://example-resource.openai.azure.com/",
        organization="org",
        project="proj",
        client_kwargs={"max_retries": 5},
    )
    client = model.client
    assert type(client).__name__ == "AzureOpenAI"
    assert (client.api_key, client.organization, client.project, client.max_retries) == (
        "key",
        "org",
        "proj",
        5,
    )
    assert "example-resource.openai.azure.com/openai" in str(client.base_url)


def test_azure_without_settings_is_one_clear_error():
    with pytest.raises(SmolError, match="Azure OpenAI is not configured"):
        AzureOpenAIModel(model_id="deployment", api_key="key", api_version="2024-10-21")
