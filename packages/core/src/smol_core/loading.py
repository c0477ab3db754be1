"""Build models, executors, tools and transports by the names their plugins register."""

from __future__ import annotations

from typing import Any

from smol_core.plugins.registry import get_registry


def load_model(model_type: str, model_id: str | None = None, **kwargs: Any) -> Any:
    """`load_model("openai", "gpt-4o", api_key=...)`: a model from whichever plugin registers `model_type`."""
    spec = get_registry().model(model_type)
    if model_id is None:
        model_id = spec.default_model_id
    if model_id is not None:
        kwargs["model_id"] = model_id
    return spec.factory(**kwargs)


def load_executor(
    executor_type: str, additional_authorized_imports: list[str] | None = None, **kwargs: Any
) -> Any:
    spec = get_registry().executor(executor_type)
    return spec.factory(additional_authorized_imports or [], **kwargs)


def load_transport(name: str, **kwargs: Any) -> Any:
    """`load_transport("redis", url="redis://127.0.0.1:6379/0")`: the message transport a plugin
    registers under `name`, built with the transport's own settings."""
    return get_registry().transport(name).factory(**kwargs)


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
    """A tool saved on the Hub (the seed's `load_tool`); needs smol-tool-hub and `trust_remote_code=True`,
    since loading a tool runs its code on this machine."""
    from smol_core.tools.tool import Tool

    if model_repo_id is not None:
        kwargs["model_repo_id"] = model_repo_id
    return Tool.from_hub(repo_id, token=token, trust_remote_code=trust_remote_code, **kwargs)
