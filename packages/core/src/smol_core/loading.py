"""Build models, executors, tools and transports by the names their plugins register."""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
import re
from typing import Any

from smol_core.errors import PluginArgumentError, PluginNotFoundError
from smol_core.plugins.registry import get_registry

FIREWORKS_API_BASE = "https://api.fireworks.ai/inference/v1"


def _smolagents_defaults(model_type: str, given: dict[str, Any]) -> dict[str, Any]:
    """What smolagents' `load_model` sets for its class names when the caller does not: its
    `OpenAIModel` talks to Fireworks (key in FIREWORKS_API_KEY), its `InferenceClientModel` takes
    the token from HF_API_KEY (else HF_TOKEN, as the model itself reads it), its
    `TransformersModel` places the model with `device_map="auto"`. Scripts moved from smolagents
    reach the same endpoints. (Unlike smolagents, the Fireworks key goes only to Fireworks: with
    another `api_base`, no key is filled in.)"""
    if model_type == "OpenAIModel" and "api_base" not in given:
        return {"api_base": FIREWORKS_API_BASE, "api_key": os.getenv("FIREWORKS_API_KEY")}
    if model_type == "InferenceClientModel" and os.getenv("HF_API_KEY"):
        return {"api_key": os.getenv("HF_API_KEY")}
    if model_type == "TransformersModel":
        return {"device_map": "auto"}
    return {}


def load_model(model_type: str, model_id: str | None = None, **kwargs: Any) -> Any:
    """`load_model("openai", "gpt-4o", api_key=...)`: a model from whichever plugin registers `model_type`.

    `model_type` is a plugin's name (`openai`, `litellm`, `inference`...) or smolagents' class name
    (`OpenAIModel`, `LiteLLMModel`, `InferenceClientModel`...), with smolagents' defaults for the
    latter. `api_base`, `api_key` and `provider` given as None count as not given (the CLI passes
    them so). An unknown `model_type` is a `ValueError` (`PluginNotFoundError`) that lists what is
    installed.
    """
    for option in ("api_base", "api_key", "provider"):
        if option in kwargs and kwargs[option] is None:
            del kwargs[option]
    kwargs = {**_smolagents_defaults(model_type, kwargs), **kwargs}
    try:
        spec = get_registry().model(model_type)
    except PluginNotFoundError as error:
        raise PluginNotFoundError(f"Unsupported model type: {model_type}. {error}") from None
    if model_id is None:
        model_id = spec.default_model_id
    if model_id is not None:
        kwargs["model_id"] = model_id
    model = spec.factory(**kwargs)
    if not getattr(model, "model_id", None):
        # A model that names no id (a plugin's canned model) goes by the name it was chosen by, so the
        # run's banner and traces say `CannedModel - canned`, not `CannedModel - `.
        with contextlib.suppress(AttributeError, TypeError):
            model.model_id = spec.name
    return model


def model_parameters(model_type: str) -> list[str]:
    """The keyword parameters the model registered as `model_type` declares (not its `**kwargs`,
    which become request options); empty when they cannot be read."""
    return _keywords(get_registry().model(model_type).factory)


def load_executor(
    executor_type: str, additional_authorized_imports: list[str] | None = None, **kwargs: Any
) -> Any:
    """`load_executor("docker", ["numpy"], mem_limit="1g")`: an executor from whichever plugin
    registers `executor_type`. A keyword the executor does not take is an error naming the ones it
    does, rather than a setting silently dropped (a sandbox limit with a typo is no limit)."""
    spec = get_registry().executor(executor_type)
    try:
        return spec.factory(list(additional_authorized_imports or []), **kwargs)
    except TypeError as error:
        unknown = _unexpected_keyword(error, kwargs)
        if unknown is None:
            raise
        raise PluginArgumentError(
            f"The {executor_type!r} executor takes no argument {unknown!r} (check executor_kwargs); "
            f"it takes: {', '.join(_keywords(spec.factory)) or 'no keyword arguments'}."
        ) from None


def _unexpected_keyword(error: TypeError, given: dict[str, Any]) -> str | None:
    """The keyword of `given` that `error` complains about, if it is CPython's unexpected-keyword error."""
    match = re.search(r"got an unexpected keyword argument '(\w+)'", str(error))
    return match.group(1) if match and match.group(1) in given else None


def _keywords(factory: Any) -> list[str]:
    """The keyword parameters of what `factory` builds (through `lazy`, the class it names)."""
    target = getattr(factory, "target", None)
    if isinstance(target, str):
        module, _, attribute = target.partition(":")
        factory = getattr(importlib.import_module(module), attribute)
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    names = [p.name for p in parameters if p.kind in kinds]
    return [name for name in names if name != "additional_authorized_imports"]


def load_transport(name: str, **kwargs: Any) -> Any:
    """`load_transport("redis", url="redis://127.0.0.1:6379/0")`: the message transport a plugin
    registers under `name`, built with the transport's own settings."""
    return get_registry().transport(name).factory(**kwargs)


def load_checkpoint_store(name: str, **kwargs: Any) -> Any:
    """`load_checkpoint_store("sqlite", path="runs.sqlite3")`: the store of durable runs a plugin
    registers under `name`, built with the store's own settings."""
    return get_registry().checkpoint_store(name).factory(**kwargs)


def load_tools(name: str, *args: Any, **kwargs: Any) -> list[Any]:
    """The tool (or tools) a plugin registers under `name`, always as a list."""
    from smol_core.tools.tool import Tool

    spec = get_registry().tool(name)
    made = spec.factory(*args, **kwargs)
    if isinstance(made, Tool):
        return [made]
    tools = getattr(made, "tools", made)
    return list(tools)


def load_tool(
    repo_id: str,
    model_repo_id: str | None = None,
    token: str | None = None,
    trust_remote_code: bool = False,
    **kwargs: Any,
) -> Any:
    """A tool saved on the Hub (smolagents' `load_tool`); needs smol-tool-hub and `trust_remote_code=True`,
    since loading a tool runs its code on this machine."""
    from smol_core.tools.tool import Tool

    if model_repo_id is not None:
        kwargs["model_repo_id"] = model_repo_id
    return Tool.from_hub(repo_id, token=token, trust_remote_code=trust_remote_code, **kwargs)
