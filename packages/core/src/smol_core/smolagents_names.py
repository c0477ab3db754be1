"""Names a smolagents user imports from the top-level package, and where they live in smol.

Why: moving over should be a matter of changing `from smolagents import X` to `from smol_core import X`.
Classes that smol ships in plugin packages (models, executors, web tools, the UI) are resolved from
the plugin when it is installed; otherwise they import as a class that, when made, raises an error
naming the package to install (as smolagents' classes do when their extra is missing). Classes smol
deliberately does not have import the same way and name what to use instead. The tables are static,
so `import smol_core` never imports a plugin.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from smol_core.plugins.lazy import MissingPluginError, plugin_attribute

# smolagents' name -> (module, smol's name) where smol spells the same object differently
ALIASES: dict[str, tuple[str, str]] = {
    "tool_role_conversions": ("smol_core.models.message_list", "TOOL_ROLE_CONVERSIONS"),
}

# name -> (module, distribution)
PLUGIN_EXPORTS: dict[str, tuple[str, str]] = {
    "LiteLLMModel": ("smol_model_litellm", "smol-model-litellm"),
    "LiteLLMRouterModel": ("smol_model_litellm", "smol-model-litellm"),
    "OpenAIServerModel": ("smol_model_openai", "smol-model-openai"),
    "OpenAIModel": ("smol_model_openai", "smol-model-openai"),
    "AzureOpenAIServerModel": ("smol_model_openai", "smol-model-openai"),
    "AzureOpenAIModel": ("smol_model_openai", "smol-model-openai"),
    "InferenceClientModel": ("smol_model_hf", "smol-model-hf"),
    "TransformersModel": ("smol_model_transformers", "smol-model-transformers"),
    "MLXModel": ("smol_model_mlx", "smol-model-mlx"),
    "AmazonBedrockModel": ("smol_model_bedrock", "smol-model-bedrock"),
    "AmazonBedrockServerModel": ("smol_model_bedrock", "smol-model-bedrock"),
    "LlamaCppModel": ("smol_model_llamacpp", "smol-model-llamacpp"),
    "DockerExecutor": ("smol_executor_docker", "smol-executor-docker"),
    "E2BExecutor": ("smol_executor_e2b", "smol-executor-e2b"),
    "WasmExecutor": ("smol_executor_wasm", "smol-executor-wasm"),
    "MCPClient": ("smol_tool_mcp", "smol-tool-mcp"),
    "WebSearchTool": ("smol_tool_web", "smol-tool-web"),
    "ApiWebSearchTool": ("smol_tool_web", "smol-tool-web"),
    "DuckDuckGoSearchTool": ("smol_tool_web", "smol-tool-web"),
    "GoogleSearchTool": ("smol_tool_web", "smol-tool-web"),
    "VisitWebpageTool": ("smol_tool_web", "smol-tool-web"),
    "WikipediaSearchTool": ("smol_tool_web", "smol-tool-web"),
    "GradioUI": ("smol_ui_gradio", "smol-ui-gradio"),
    "stream_to_gradio": ("smol_ui_gradio", "smol-ui-gradio"),
    "launch_gradio_demo": ("smol_ui_gradio", "smol-ui-gradio"),
}

# names of classes smol does not have: importing them works (as in smolagents, where a class whose
# extra is missing imports and fails when made), making one raises an ImportError that says why
ABSENT_CLASSES: dict[str, str] = {
    "ManagedAgent": "ManagedAgent was removed (as in smolagents 1.8): give the agent a name= and a "
    "description= and pass it itself, CodeAgent(..., managed_agents=[agent]).",
    "VLLMModel": "smol talks to vLLM through its OpenAI-compatible server: start `vllm serve MODEL` and use "
    "OpenAIServerModel(model_id=MODEL, api_base='http://127.0.0.1:8000/v1') (from the plugin package smol-model-openai).",
    "BlaxelExecutor": "smol has no Blaxel executor: use executor_type='docker', 'e2b' or 'wasm'.",
    "ModalExecutor": "smol has no Modal executor: use executor_type='docker', 'e2b' or 'wasm'.",
}


@functools.cache
def absent_class(name: str, reason: str) -> type:
    """A class that imports and, when made, raises an ImportError saying why smol has no such thing.

    Why: smolagents' own modules import every class whether or not its extra is installed and fail
    only when one is made, so user code that merely names the class (a type hint, an isinstance
    check, a list of model classes) keeps working.
    """

    def refuse(self: object, *args: Any, **kwargs: Any) -> None:
        raise MissingPluginError(f"{name}: {reason}")

    def refuse_from_dict(cls: type, *args: Any, **kwargs: Any) -> None:
        raise MissingPluginError(f"{name}: {reason}")  # a saved agent naming it: the same reason

    attributes = {"__init__": refuse, "from_dict": classmethod(refuse_from_dict), "__doc__": reason}
    return type(name, (), {**attributes, "__module__": "smol_core"})


def resolve(name: str) -> Any:
    """The object a smolagents name stands for in smol; ImportError saying why when there is none."""
    if name in ALIASES:
        module_name, attribute = ALIASES[name]
        return getattr(importlib.import_module(module_name), attribute)
    if name in PLUGIN_EXPORTS:
        module, distribution = PLUGIN_EXPORTS[name]
        try:
            return plugin_attribute(module, name, distribution)
        except MissingPluginError as missing:
            return absent_class(name, str(missing))
    if name in ABSENT_CLASSES:
        return absent_class(name, ABSENT_CLASSES[name])
    raise AttributeError(f"module 'smol_core' has no attribute {name!r}")
