"""`MODEL_REGISTRY`: smolagents' model classes by name, for code that picks a class from a string.

Why: smolagents code does `MODEL_REGISTRY[name](model_id=...)` (its saved agents name their model
class). In smol those classes live in plugin packages, so the mapping resolves a name when it is
read: the plugin's class when it is installed, otherwise a class that says what to install when it
is made. Reading the mapping never imports an SDK; only the plugin's own module.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

__all__ = ["MODEL_CLASS_NAMES", "MODEL_REGISTRY", "ModelClassRegistry"]

MODEL_CLASS_NAMES: tuple[str, ...] = (
    "VLLMModel",
    "MLXModel",
    "TransformersModel",
    "LiteLLMModel",
    "LiteLLMRouterModel",
    "InferenceClientModel",
    "OpenAIModel",
    "AzureOpenAIModel",
    "AmazonBedrockModel",
)
"""smolagents' registry keys, in its order."""


class ModelClassRegistry(Mapping[str, type]):
    """A read-only mapping of smolagents' model class names to smol's classes, resolved on read."""

    def __getitem__(self, name: str) -> type:
        if name not in MODEL_CLASS_NAMES:
            raise KeyError(name)
        from smol_core.seed_names import resolve

        cls: type = resolve(name)
        return cls

    def __iter__(self) -> Iterator[str]:
        return iter(MODEL_CLASS_NAMES)

    def __len__(self) -> int:
        return len(MODEL_CLASS_NAMES)

    def __repr__(self) -> str:
        return f"MODEL_REGISTRY({', '.join(MODEL_CLASS_NAMES)})"


MODEL_REGISTRY: Mapping[str, type] = ModelClassRegistry()
