"""Tools, collections and agents through `save`/`from_folder` and through the real `huggingface_hub`
client talking to a stand-in Hub on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hub_sample_tools import HypotenuseTool, shout
from hub_standin import StandInHub
from smol_tool_hub import (
    HubError,
    RemoteCodeNotTrustedError,
    agent_from_hub,
    push_tool_to_hub,
    tool_collection_from_hub,
    tool_from_folder,
    tool_from_hub,
)

from smol_core import CodeAgent, MultiStepAgent, Tool, ToolCollection
from smol_core.testing import ScriptedModel

TOKEN = "hf_standin_token"


# --- save / from_folder ------------------------------------------------------------------------


def test_tool_save_and_load_from_folder(tmp_path: Path) -> None:
    HypotenuseTool().save(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "app.py",
        "requirements.txt",
        "tool.py",
    ]
    assert "HypotenuseTool" in (tmp_path / "app.py").read_text()
    loaded = tool_from_folder(tmp_path, scale=2.0)
    assert (loaded.name, loaded.inputs, loaded.output_type) == ("hypotenuse", HypotenuseTool.inputs, "number")
    assert loaded(3, 4) == 10.0


def test_function_tool_round_trip(tmp_path: Path) -> None:
    shout.save(str(tmp_path))
    loaded = tool_from_folder(tmp_path)
    assert loaded.name == "shout" and loaded("hey") == "HEY!"


def test_folder_without_tool_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="Tool.save"):
        tool_from_folder(tmp_path)


# --- tools on the Hub --------------------------------------------------------------------------


def test_push_tool_then_load_it_back(hub: StandInHub) -> None:
    url = HypotenuseTool().push_to_hub("alice/hypotenuse", token=TOKEN, endpoint=hub.endpoint)
    assert "/spaces/alice/hypotenuse/commit/" in url
    repo = hub.repos[("space", "alice/hypotenuse")]
    assert repo.sdk == "gradio" and repo.commits[-1]["message"] == "Upload tool"
    assert {"tool.py", "requirements.txt", "app.py", "README.md"} <= set(repo.files)
    assert b"sdk: gradio" in repo.files["README.md"] and b"smolagents" in repo.files["README.md"]
    writes = [r for r in hub.requests if r.method == "POST"]
    assert writes and all(r.headers.get("authorization") == f"Bearer {TOKEN}" for r in writes)

    loaded = Tool.from_hub("alice/hypotenuse", trust_remote_code=True, endpoint=hub.endpoint, scale=10)
    assert loaded.name == "hypotenuse" and loaded(3, 4) == 50.0


def test_pushing_again_updates_the_same_space(hub: StandInHub) -> None:
    push_tool_to_hub(shout, "alice/shout", endpoint=hub.endpoint, token=TOKEN)
    push_tool_to_hub(shout, "alice/shout", endpoint=hub.endpoint, token=TOKEN, commit_message="v2")
    repo = hub.repos[("space", "alice/shout")]
    assert [c["message"] for c in repo.commits] == ["Upload tool", "v2"]
    assert tool_from_hub("alice/shout", trust_remote_code=True, endpoint=hub.endpoint)("a") == "A!"


def test_loading_without_trust_downloads_nothing(hub: StandInHub) -> None:
    hub.add_files("alice/evil", {"tool.py": "raise SystemExit('ran untrusted code')"})
    with pytest.raises(RemoteCodeNotTrustedError, match="trust_remote_code=True"):
        Tool.from_hub("alice/evil", endpoint=hub.endpoint)
    with pytest.raises(ValueError, match="trust_remote_code=True"):  # smolagents raised ValueError
        tool_from_hub("alice/evil", endpoint=hub.endpoint)
    assert hub.requests == []


def test_missing_repo_is_a_hub_error(hub: StandInHub) -> None:
    with pytest.raises(HubError, match="alice/nothing"):
        tool_from_hub("alice/nothing", trust_remote_code=True, endpoint=hub.endpoint)


def test_offline_mode_is_named_in_the_error(hub: StandInHub, monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(HubError, match="HF_HUB_OFFLINE"):
        push_tool_to_hub(shout, "alice/shout", endpoint=hub.endpoint)


def test_unreachable_hub_is_a_hub_error(hub: StandInHub) -> None:
    dead = hub.endpoint
    hub.stop()
    with pytest.raises(HubError, match="alice/shout"):
        push_tool_to_hub(shout, "alice/shout", endpoint=dead)


# --- collections -------------------------------------------------------------------------------


def test_tool_collection_from_hub_loads_the_spaces_only(hub_as_default: StandInHub) -> None:
    hub = hub_as_default
    HypotenuseTool().push_to_hub("alice/hypotenuse")
    shout.push_to_hub("bob/shout")
    hub.add_collection(
        "alice/tools-0123",
        "Tools",
        [("space", "alice/hypotenuse"), ("model", "alice/some-model"), ("space", "bob/shout")],
    )
    collection = ToolCollection.from_hub("alice/tools-0123", trust_remote_code=True)
    assert [t.name for t in collection.tools] == ["hypotenuse", "shout"]
    agent = CodeAgent(tools=[*collection.tools], model=ScriptedModel(["x"]))
    assert {"hypotenuse", "shout"} <= set(agent.tools)


def test_collection_made_with_the_real_client(hub: StandInHub) -> None:
    from huggingface_hub import HfApi

    push_tool_to_hub(shout, "bob/shout", endpoint=hub.endpoint)
    api = HfApi(endpoint=hub.endpoint, token=TOKEN)
    made = api.create_collection("My tools", namespace="bob")
    api.add_collection_item(made.slug, item_id="bob/shout", item_type="space")
    tools = tool_collection_from_hub(made.slug, trust_remote_code=True, endpoint=hub.endpoint)
    assert [t("x") for t in tools] == ["X!"]


def test_collection_needs_trust(hub_as_default: StandInHub) -> None:
    hub = hub_as_default
    with pytest.raises(RemoteCodeNotTrustedError):
        ToolCollection.from_hub("alice/tools-0123")
    assert hub.requests == []


# --- agents ------------------------------------------------------------------------------------

FINAL = 'Thought: done\n```python\nfinal_answer(shout("ok"))\n```'


def _agent() -> CodeAgent:
    return CodeAgent(
        tools=[shout, HypotenuseTool()],
        model=ScriptedModel([FINAL]),
        name="helper",
        description="Shouts.",
        max_steps=3,
        additional_authorized_imports=["math"],
    )


def test_agent_round_trip_through_the_hub(hub: StandInHub) -> None:
    agent = _agent()
    url = agent.push_to_hub("alice/shouter", token=TOKEN, endpoint=hub.endpoint)
    assert "/spaces/alice/shouter/commit/" in url
    files = set(hub.repos[("space", "alice/shouter")].files)
    assert {"agent.json", "prompts.yaml", "tools/shout.py", "tools/hypotenuse.py", "app.py"} <= files
    saved = json.loads(hub.repos[("space", "alice/shouter")].files["agent.json"])
    assert saved["authorized_imports"] == ["math"] and TOKEN not in json.dumps(saved)

    loaded = MultiStepAgent.from_hub(
        "alice/shouter",
        trust_remote_code=True,
        endpoint=hub.endpoint,
        model=ScriptedModel([FINAL]),
        additional_authorized_imports=["math"],  # a security setting: the code grants it, not the file
    )
    assert isinstance(loaded, CodeAgent)
    assert (loaded.name, loaded.max_steps, loaded.additional_authorized_imports) == ("helper", 3, ["math"])
    assert loaded.run("Shout ok") == "OK!"
    loaded.cleanup()
    agent.cleanup()


def test_agent_from_hub_needs_trust(hub: StandInHub) -> None:
    with pytest.raises(RemoteCodeNotTrustedError, match="agent"):
        agent_from_hub("alice/shouter", endpoint=hub.endpoint)
    assert hub.requests == []
