"""`MODEL_REGISTRY`: smolagents' model classes by name, for code that picks a class from a string.

Why: smolagents code does `MODEL_REGISTRY[name](model_id=...)` (its saved agents name their model
class). In smol those classes live in plugin packages, so the mapping resolves a name when it is
read: the plugin's class when it is installed, otherwise a class that says what to install when it
is made. Reading the mapping never imports an SDK; only the plugin's own module.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping

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


class ModelClassRegistry(MutableMapping[str, type]):
    """smolagents' model class names mapped to smol's classes (resolved on read), and the classes a
    user adds, as to smolagents' dict (`MODEL_REGISTRY["MyModel"] = MyModel`, so that saved agents
    naming it load)."""

    def __init__(self) -> None:
        self._added: dict[str, type] = {}
        self._removed: set[str] = set()

    def __getitem__(self, name: str) -> type:
        if name in self._added:
            return self._added[name]
        if name not in MODEL_CLASS_NAMES or name in self._removed:
            raise KeyError(name)
        from smol_core.smolagents_names import resolve

        cls: type = resolve(name)
        return cls

    def __setitem__(self, name: str, cls: type) -> None:
        self._added[name] = cls

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._added.pop(name, None)
        if name in MODEL_CLASS_NAMES:
            self._removed.add(name)

    def __iter__(self) -> Iterator[str]:
        names = [n for n in MODEL_CLASS_NAMES if n not in self._removed]
        return iter([*names, *(n for n in self._added if n not in names)])

    def __len__(self) -> int:
        return len(list(iter(self)))

    def __repr__(self) -> str:
        return f"MODEL_REGISTRY({', '.join(self)})"


MODEL_REGISTRY: MutableMapping[str, type] = ModelClassRegistry()
