"""smol-model-bedrock: `AmazonBedrockServerModel` (alias `AmazonBedrockModel`) via boto3's Converse."""

from __future__ import annotations

from smol_model_bedrock.model import AmazonBedrockModel, AmazonBedrockServerModel, BedrockError

__all__ = ["AmazonBedrockModel", "AmazonBedrockServerModel", "BedrockError"]
