"""Share tools and agents through the Hugging Face Hub, in the core's own folder formats.

A tool is pushed as a Gradio Space holding what `Tool.save` writes (tool.py,
requirements.txt, app.py) and an agent as one holding what `agent.save` writes (agent.json, prompts,
tools/, managed_agents/, requirements.txt, app.py), so what is on the Hub loads exactly like what is
on disk. Loading runs the downloaded Python, so every loader refuses to download anything until the
caller passes `trust_remote_code=True`.

`endpoint=` (or `HF_ENDPOINT`) points every call at another Hub, such as a private mirror.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from smol_core.plugin_api import SmolError, Tool, ToolCollection, tool_from_code

# Keyword arguments that go to the download, not to the tool's or agent's constructor (as in smolagents).
_DOWNLOAD_KWARGS = ("cache_dir", "force_download", "revision", "local_files_only", "proxies", "subfolder")


class RemoteCodeNotTrustedError(SmolError, ValueError):
    """Loading from the Hub would run code the caller has not said they trust."""


class HubError(SmolError):
    """The Hub could not be reached or refused the request."""


def _require_trust(trust_remote_code: bool, what: str, repo_id: str) -> None:
    if not trust_remote_code:
        raise RemoteCodeNotTrustedError(
            f"Loading {what} {repo_id!r} from the Hub downloads its Python code and runs it on this machine. "
            "Read the code first; then pass trust_remote_code=True to load it."
        )


@contextmanager
def _hub_errors(action: str) -> Iterator[None]:
    """Turn huggingface_hub's exceptions into one clear `HubError` that says what was being done."""
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    try:
        yield
    except OfflineModeIsEnabled as error:
        raise HubError(
            f"Cannot {action}: HF_HUB_OFFLINE=1 is set, which blocks every Hub request. Unset it to use the Hub."
        ) from error
    except HfHubHTTPError as error:
        raise HubError(f"Cannot {action}: the Hub answered {error}") from error
    except OSError as error:  # connection refused, DNS, timeouts (httpx errors are not OSError: see below)
        raise HubError(f"Cannot {action}: {type(error).__name__}: {error}") from error
    except Exception as error:
        if type(error).__module__.startswith("httpx"):
            raise HubError(
                f"Cannot {action}: the Hub is unreachable ({type(error).__name__}: {error})"
            ) from error
        raise


def _api(token: str | bool | None, endpoint: str | None) -> Any:
    from huggingface_hub import HfApi

    return HfApi(endpoint=endpoint, token=token)


def _readme(kind: str, title: str) -> str:
    """A Space card: the Hub needs `sdk` to run app.py, and the tags make the repo findable as a smol one."""
    return (
        "---\n"
        f"title: {title}\n"
        "sdk: gradio\n"
        "app_file: app.py\n"
        "tags:\n  - smolagents\n  - smol\n"
        f"  - {kind}\n"
        "---\n"
    )


def _push_folder(
    save: Callable[[Path], None],
    kind: str,
    repo_id: str,
    commit_message: str,
    private: bool | None,
    token: str | bool | None,
    create_pr: bool,
    endpoint: str | None,
) -> str:
    api = _api(token, endpoint)
    with _hub_errors(f"push the {kind} to {repo_id!r}"):
        url = api.create_repo(repo_id, private=private, exist_ok=True, repo_type="space", space_sdk="gradio")
        with tempfile.TemporaryDirectory(prefix="smol-push-") as folder:
            save(Path(folder))
            readme = Path(folder) / "README.md"
            if not readme.exists():
                readme.write_text(_readme(kind, url.repo_id.split("/")[-1]), encoding="utf-8")
            info = api.upload_folder(
                repo_id=url.repo_id,
                folder_path=folder,
                repo_type="space",
                commit_message=commit_message,
                create_pr=create_pr,
            )
    return str(info)


# --- tools ------------------------------------------------------------------------------------------


def push_tool_to_hub(
    tool: Tool,
    repo_id: str,
    commit_message: str = "Upload tool",
    private: bool | None = None,
    token: str | bool | None = None,
    create_pr: bool = False,
    endpoint: str | None = None,
) -> str:
    """Push `tool` as a Gradio Space (`tool.py`, `requirements.txt`, `app.py`); returns the commit URL."""
    return _push_folder(
        lambda folder: tool.save(str(folder)),
        "tool",
        repo_id,
        commit_message,
        private,
        token,
        create_pr,
        endpoint,
    )


def tool_from_folder(folder: str | Path, **init_kwargs: Any) -> Tool:
    """Load what `Tool.save(folder)` wrote. Runs the folder's tool.py: only for folders you trust."""
    path = Path(folder) / "tool.py"
    if not path.is_file():
        raise FileNotFoundError(f"No tool.py in {folder}: is this a folder written by Tool.save()?")
    return tool_from_code(path.read_text(encoding="utf-8"), **init_kwargs)


def tool_from_hub(
    repo_id: str,
    token: str | None = None,
    trust_remote_code: bool = False,
    endpoint: str | None = None,
    **kwargs: Any,
) -> Tool:
    """Download a tool's `tool.py` from a Space and build the tool; other kwargs go to its constructor."""
    _require_trust(trust_remote_code, "the tool", repo_id)
    from huggingface_hub import hf_hub_download

    download = {key: kwargs.pop(key) for key in _DOWNLOAD_KWARGS if key in kwargs}
    with _hub_errors(f"download the tool {repo_id!r}"):
        path = hf_hub_download(
            repo_id, "tool.py", repo_type="space", token=token, endpoint=endpoint, **download
        )
    return tool_from_code(Path(path).read_text(encoding="utf-8"), **kwargs)


def tool_collection_from_hub(
    collection_slug: str,
    token: str | None = None,
    trust_remote_code: bool = False,
    endpoint: str | None = None,
) -> ToolCollection:
    """The tools of every Space in a Hub collection (models, datasets and papers in it are left out)."""
    _require_trust(trust_remote_code, "the tools of the collection", collection_slug)
    with _hub_errors(f"read the collection {collection_slug!r}"):
        collection = _api(token, endpoint).get_collection(collection_slug)
    space_ids = list(dict.fromkeys(i.item_id for i in collection.items if i.item_type == "space"))
    return ToolCollection(
        [tool_from_hub(s, token=token, trust_remote_code=True, endpoint=endpoint) for s in space_ids]
    )


# --- agents -----------------------------------------------------------------------------------------


def push_agent_to_hub(
    agent: Any,
    repo_id: str,
    commit_message: str = "Upload agent",
    private: bool | None = None,
    token: str | bool | None = None,
    create_pr: bool = False,
    endpoint: str | None = None,
) -> str:
    """Push what `agent.save` writes as a Gradio Space; returns the commit URL. Secrets are never written."""
    return _push_folder(
        lambda folder: agent.save(str(folder)),
        "agent",
        repo_id,
        commit_message,
        private,
        token,
        create_pr,
        endpoint,
    )


def agent_from_hub(
    repo_id: str,
    token: str | None = None,
    trust_remote_code: bool = False,
    endpoint: str | None = None,
    **kwargs: Any,
) -> Any:
    """Download an agent's Space and load it with `from_folder`; other kwargs override the saved settings.

    `trust_remote_code=True` (required, as in smolagents) lets the repo's tool code run and applies
    the agent's saved security settings (authorized imports, executor and its options, output limit),
    each shown with a `SavedSettingAppliedWarning` first and listed in `agent.applied_settings`;
    `kwargs` still win. The model's saved endpoint and credentials never apply (a saved endpoint
    would receive the key the model reads from the environment): pass `model_kwargs=` or `model=`.
    """
    _require_trust(trust_remote_code, "the agent", repo_id)
    from huggingface_hub import snapshot_download

    from smol_core.plugin_api import agent_from_folder

    download = {key: kwargs.pop(key) for key in _DOWNLOAD_KWARGS if key in kwargs and key != "subfolder"}
    with _hub_errors(f"download the agent {repo_id!r}"):
        folder = snapshot_download(repo_id, repo_type="space", token=token, endpoint=endpoint, **download)
    # Trusted explicitly (checked above): the repo's security settings apply, shown first.
    return agent_from_folder(folder, _loader="from_hub()", trusted=True, **kwargs)
