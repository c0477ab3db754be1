"""Checkpoint stores are plugins: `checkpoint_store="name"` resolves through the registry, as models,
executors and transports do; `sqlite` is built in, and a third-party store plugs in by its hook."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent, hookimpl
from smol_core.errors import PluginNotFoundError
from smol_core.loading import load_checkpoint_store
from smol_core.plugin_api import CheckpointStoreSpec, SQLiteStore
from smol_core.plugins.registry import get_registry
from smol_core.testing import ScriptedModel

STEPS = ["<code>\nx = 20\n</code>", RuntimeError("503 from the model server")]


def test_the_built_in_store_is_named_sqlite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    store = load_checkpoint_store("sqlite")
    assert isinstance(store, SQLiteStore) and store.path == tmp_path / "smol" / "runs.sqlite3"
    assert load_checkpoint_store("sqlite", path=tmp_path / "other.sqlite3").path == tmp_path / "other.sqlite3"
    assert "sqlite" in get_registry().names("checkpoint_stores")


def test_a_store_plugin_is_chosen_by_name_and_a_run_resumes_through_it(tmp_path: Path) -> None:
    made: list[SQLiteStore] = []

    def team_store(**kwargs: Any) -> SQLiteStore:
        made.append(SQLiteStore(tmp_path / "team.sqlite3", **kwargs))
        return made[-1]

    class StorePlugin:
        @hookimpl
        def smol_checkpoint_stores(self) -> list[CheckpointStoreSpec]:
            return [CheckpointStoreSpec("team-store", team_store, "The team's shared file.")]

    registry = get_registry()
    registry.register(StorePlugin(), name="team-store-plugin")
    try:
        with CodeAgent(
            tools=[], model=ScriptedModel(STEPS), checkpoint_store="team-store", verbosity_level=0
        ) as bot:
            with pytest.raises(Exception, match="503"):
                bot.run("Double it.", run_id="shared")
        later = ScriptedModel(["<code>\nfinal_answer(x * 2)\n</code>"])
        with CodeAgent(tools=[], model=later, checkpoint_store="team-store", verbosity_level=0) as bot:
            assert bot.resume("shared") == 40
        assert len(made) == 2 and made[0].load("shared").status == "finished"  # type: ignore[union-attr]
        listed = {p.name: p.registers for p in registry.plugins()}
        assert listed["team-store-plugin"] == {"checkpoint_stores": ["team-store"]}
    finally:
        registry.unregister("team-store-plugin")


def test_an_unknown_store_name_is_a_one_line_error_that_names_the_installed_ones() -> None:
    with pytest.raises(PluginNotFoundError, match="sqlite") as raised:
        CodeAgent(tools=[], model=ScriptedModel([]), checkpoint_store="postgress")
    assert "\n" not in str(raised.value) and "postgress" in str(raised.value)
