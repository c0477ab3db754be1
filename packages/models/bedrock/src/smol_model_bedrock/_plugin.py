"""Registers `bedrock` with smol. Imports nothing heavy: boto3 loads only when a model is built."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ModelSpec, hookimpl, lazy


@hookimpl
def smol_models() -> Iterable[ModelSpec]:
    return [
        ModelSpec(
            "bedrock",
            lazy("smol_model_bedrock.model:AmazonBedrockServerModel"),
            "Amazon Bedrock through boto3's Converse API (Claude, Nova, Llama, Mistral... on AWS).",
            aliases=("amazon-bedrock", "AmazonBedrockModel", "AmazonBedrockServerModel"),
        )
    ]
