"""The plugin registry: finds plugins, isolates their failures, and resolves names to specs.

One registry per process, built on first use (never at import time). Built-in parts of smol-core
are registered first through the same hooks as everyone else's; entry points of the group `smol`
are loaded only when a name is not found among them or a full listing is asked for, as hatch does,
so that the common path imports nothing it does not need.

Environment switches:
    SMOL_DISABLE_PLUGIN_AUTOLOAD=1   load no entry points (built-ins only)
    SMOL_LOAD_PLUGINS=a,b            load only these entry points (names or distribution names)
    SMOL_DISABLE_PLUGINS=a,b         skip these entry points
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType
from typing import Literal, cast

import pluggy

from smol_core.errors import PluginConflictError, PluginNotFoundError
from smol_core.plugins import hookspecs
from smol_core.plugins.specs import (
    KNOWN_PROVIDERS,
    CheckpointStoreSpec,
    CommandSpec,
    ExecutorSpec,
    InstrumentorSpec,
    ModelSpec,
    RunExtensionSpec,
    RunOptionSpec,
    ToolSpec,
    TransportSpec,
)
from smol_core.version import __version__

Kind = Literal[
    "models",
    "executors",
    "tools",
    "commands",
    "transports",
    "instrumentors",
    "checkpoint_stores",
    "run_extensions",
    "run_options",
]
KINDS: tuple[Kind, ...] = (
    "models",
    "executors",
    "tools",
    "commands",
    "transports",
    "instrumentors",
    "checkpoint_stores",
    "run_extensions",
    "run_options",
)
# the kernel's own parts (its base tools), registered as plugins are
BUILTIN_PLUGINS: dict[str, str] = {
    "smol-core": "smol_core.plugins.builtin",
}
# smol-core's features, each registered from its own module through the same hooks as any plugin,
# and imported only when a kind it registers is first asked for: a run that asks for no checkpoint
# store, transport or command imports no module of durable runs, teams or the CLI. Each entry is
# what an entry point of the feature's own distribution says once the features ship apart.
FEATURE_PLUGINS: dict[str, tuple[str, tuple[Kind, ...]]] = {
    "smol-core.executor-local": ("smol_core.executors.local_plugin", ("executors", "tools")),
    "smol-core.durable": ("smol_core.durable.plugin", ("checkpoint_stores", "run_extensions", "run_options")),
    "smol-core.replay": ("smol_core.replay.plugin", ("run_options",)),
    "smol-core.teams": ("smol_core.teams.plugin", ("transports", "run_options")),
    "smol-core.cli": ("smol_core.cli.plugin", ("commands",)),
    "smol-core.testing": ("smol_core.testing.plugin", ("models",)),
}

Spec = (
    ModelSpec
    | ExecutorSpec
    | ToolSpec
    | CommandSpec
    | TransportSpec
    | InstrumentorSpec
    | CheckpointStoreSpec
    | RunExtensionSpec
    | RunOptionSpec
)


@dataclass
class PluginInfo:
    """What `smol plugins` shows for one plugin."""

    name: str
    distribution: str
    version: str
    module: str
    builtin: bool = False
    error: str | None = None
    registers: dict[str, list[str]] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)
    """Names this plugin registers that another plugin registers too: unusable until one goes."""


def _split_env(value: str | None) -> set[str]:
    return {part.strip() for part in (value or "").split(",") if part.strip()}


def _selection(env: Mapping[str, str], load_entry_points: bool = True) -> tuple[bool, set[str], set[str]]:
    """Which plugins the environment asks for: (load entry points, only these, not these)."""
    autoload = load_entry_points and env.get("SMOL_DISABLE_PLUGIN_AUTOLOAD", "") not in ("1", "true")
    return autoload, _split_env(env.get("SMOL_LOAD_PLUGINS")), _split_env(env.get("SMOL_DISABLE_PLUGINS"))


class PluginRegistry:
    """Loads plugins and answers "which factory provides this name?" for each kind."""

    def __init__(self, environ: Mapping[str, str] | None = None, load_entry_points: bool = True) -> None:
        self._autoload, self._only, self._disabled = _selection(
            os.environ if environ is None else environ, load_entry_points
        )
        self._pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        self._pm.add_hookspecs(hookspecs)
        self._plugins: dict[str, PluginInfo] = {}
        self._external_loaded = False
        self._lock = threading.RLock()
        self._specs: dict[Kind, dict[str, tuple[Spec, str]]] | None = None
        self._conflicts: dict[Kind, dict[str, str]] = {kind: {} for kind in KINDS}
        self._features_left = dict(FEATURE_PLUGINS)
        for name, module in BUILTIN_PLUGINS.items():
            self._register_builtin(name, module)

    def _register_builtin(self, name: str, module: str) -> None:
        # the version from the package itself: asking importlib.metadata scans every folder on
        # sys.path for distributions, 5-30 ms that each agent of a team paid as it started
        self._register_module(importlib.import_module(module), name, "smol-core", __version__, builtin=True)

    def register_features(self, *kinds: Kind) -> None:
        """Register smol-core's features that register one of `kinds` (every feature without any),
        each the first time it is needed."""
        with self._lock:
            for name, (module, registers) in list(self._features_left.items()):
                if not kinds or set(kinds) & set(registers):
                    del self._features_left[name]
                    self._register_builtin(name, module)

    # --- loading ---------------------------------------------------------------------------------

    def _register_module(
        self,
        module: ModuleType | object,
        name: str,
        distribution: str,
        version: str,
        builtin: bool = False,
    ) -> None:
        info = PluginInfo(name, distribution, version, getattr(module, "__name__", repr(module)), builtin)
        self._plugins[name] = info
        try:
            self._pm.register(module, name=name)
        except Exception as error:
            info.error = f"{type(error).__name__}: {error}"
        self._specs = None

    def register(
        self, plugin: object, name: str | None = None, distribution: str = "(registered at run time)"
    ) -> None:
        """Register a plugin object or module programmatically (notebooks, tests)."""
        with self._lock:
            plugin_name = name or getattr(plugin, "__name__", None) or repr(plugin)
            self._register_module(plugin, plugin_name, distribution, version="-")

    def unregister(self, name: str) -> None:
        with self._lock:
            self.register_features()  # a feature unregistered stays so, not registered again later
            self._pm.unregister(name=name)
            self._plugins.pop(name, None)
            self._specs = None

    def load_entry_points(self) -> None:
        """Load every entry point of the group `smol` that the switches allow; errors are recorded."""
        with self._lock:
            self.register_features()
            if self._external_loaded:
                return
            self._external_loaded = True
            if not self._autoload:
                return
            for ep in sorted(entry_points(group=hookspecs.ENTRY_POINT_GROUP), key=lambda e: e.name):
                if ep.value in BUILTIN_PLUGINS.values() or ep.name in self._plugins:
                    continue
                dist = ep.dist.name if ep.dist is not None else "?"
                if self._only and ep.name not in self._only and dist not in self._only:
                    continue
                if ep.name in self._disabled or dist in self._disabled:
                    continue
                self._load_entry_point(ep, dist)

    def _load_entry_point(self, ep: EntryPoint, dist: str) -> None:
        version = ep.dist.version if ep.dist is not None else "?"
        try:
            module = ep.load()
        except Exception as error:
            self._plugins[ep.name] = PluginInfo(
                ep.name, dist, version, ep.value, error=f"could not load: {type(error).__name__}: {error}"
            )
            return
        self._register_module(module, ep.name, dist, version)

    # --- resolution ------------------------------------------------------------------------------

    def _collect(self) -> dict[Kind, dict[str, tuple[Spec, str]]]:
        """Every name of every kind, resolved to its spec and owner.

        A name that two plugins claim is withheld, and only it: looking it up raises the conflict,
        `smol plugins` shows it on both plugins, and every other name (and the CLI) keeps working.
        """
        if self._specs is not None:
            return self._specs
        specs: dict[Kind, dict[str, tuple[Spec, str]]] = {kind: {} for kind in KINDS}
        conflicts: dict[Kind, dict[str, str]] = {kind: {} for kind in KINDS}
        for info in self._plugins.values():
            info.registers = {}
            info.conflicts = []
        for kind in KINDS:
            caller = getattr(self._pm.hook, f"smol_{kind}")
            for impl in caller.get_hookimpls():
                owner_info = self._plugins.get(impl.plugin_name)
                if owner_info is None:
                    continue
                try:
                    records = list(impl.function() or [])
                except Exception as error:
                    owner_info.error = f"smol_{kind}() raised {type(error).__name__}: {error}"
                    continue
                for record in records:
                    for key in (record.name, *getattr(record, "aliases", ())):
                        owner = specs[kind][key][1] if key in specs[kind] else None
                        if owner == impl.plugin_name:
                            continue
                        if owner is not None:
                            conflicts[kind][key] = self._conflict_message(kind, key, owner, impl.plugin_name)
                            for name in (owner, impl.plugin_name):
                                self._plugins[name].conflicts.append(f"{kind[:-1]} {key!r}")
                            continue
                        specs[kind][key] = (record, impl.plugin_name)
                    if not getattr(record, "test_double", False):
                        owner_info.registers.setdefault(kind, []).append(record.name)
            for key in conflicts[kind]:
                specs[kind].pop(key, None)
        self._specs, self._conflicts = specs, conflicts
        return specs

    def _conflict_message(self, kind: Kind, key: str, first: str, second: str) -> str:
        return (
            f"Two plugins register the {kind[:-1]} name {key!r}: {self._describe(first)} and "
            f"{self._describe(second)}. Uninstall one, or disable one with SMOL_DISABLE_PLUGINS={second}."
        )

    def _offered(self, kind: Kind) -> dict[str, Spec]:
        """The specs a user can choose by name: test doubles are not models anyone should pick."""
        found = {spec.name: spec for spec, _ in self._collect()[kind].values()}
        return {name: spec for name, spec in found.items() if not getattr(spec, "test_double", False)}

    def _describe(self, plugin_name: str) -> str:
        info = self._plugins.get(plugin_name)
        return f"{plugin_name!r} (distribution {info.distribution})" if info else repr(plugin_name)

    def names(self, kind: Kind) -> list[str]:
        """The names a user can choose (no test doubles, no name two plugins claim)."""
        with self._lock:
            self.load_entry_points()
            return sorted(self._offered(kind))

    def specs(self, kind: Kind, include_test_doubles: bool = False) -> list[Spec]:
        with self._lock:
            self.load_entry_points()
            if include_test_doubles:
                unique = {spec.name: spec for spec, _ in self._collect()[kind].values()}
            else:
                unique = self._offered(kind)
            return [unique[name] for name in sorted(unique)]

    def get(self, kind: Kind, name: str) -> Spec:
        """The spec registered under `name`; loads third-party plugins only if the built-ins lack it.

        A name two plugins claim raises `PluginConflictError` (for that name only); a test double
        asked for by name raises `PluginNotFoundError` saying how to use it instead.
        """
        with self._lock:
            self.register_features(kind)
            found = self._collect()[kind].get(name)
            if found is None and not self._external_loaded:
                self.load_entry_points()
                found = self._collect()[kind].get(name)
            if found is None and name in self._conflicts[kind]:
                raise PluginConflictError(self._conflicts[kind][name])
            if found is None:
                raise PluginNotFoundError(self._not_found_message(kind, name))
            spec = found[0]
            if getattr(spec, "test_double", False):
                target = getattr(getattr(spec, "factory", None), "target", "smol_core.testing")
                module, _, attribute = target.partition(":")
                raise PluginNotFoundError(
                    f"{name!r} is a test double, not a model: build it in Python "
                    f"(from {module} import {attribute}). {self._installed(kind)}"
                )
            return spec

    def _not_found_message(self, kind: Kind, name: str) -> str:
        message = f"No {kind[:-1]} named {name!r} is installed. {self._installed(kind)}"
        provider = KNOWN_PROVIDERS.get(kind, {}).get(name)
        if provider:
            from smol_core.install_advice import install_hint

            message += f" {name!r} is provided by the package {provider!r}: {install_hint(provider)}"
        broken = [p for p in self._plugins.values() if p.error]
        if broken:
            message += " Some plugins failed to load (run `smol plugins` to see why): " + ", ".join(
                p.name for p in broken
            )
        return message

    def _installed(self, kind: Kind) -> str:
        return f"Installed {kind}: {', '.join(self.names(kind)) or 'none'}."

    def model(self, name: str) -> ModelSpec:
        return cast(ModelSpec, self.get("models", name))

    def executor(self, name: str) -> ExecutorSpec:
        return cast(ExecutorSpec, self.get("executors", name))

    def tool(self, name: str) -> ToolSpec:
        return cast(ToolSpec, self.get("tools", name))

    def command(self, name: str) -> CommandSpec:
        return cast(CommandSpec, self.get("commands", name))

    def transport(self, name: str) -> TransportSpec:
        return cast(TransportSpec, self.get("transports", name))

    def checkpoint_store(self, name: str) -> CheckpointStoreSpec:
        return cast(CheckpointStoreSpec, self.get("checkpoint_stores", name))

    def run_extension(self, name: str) -> RunExtensionSpec:
        return cast(RunExtensionSpec, self.get("run_extensions", name))

    def plugins(self) -> list[PluginInfo]:
        """Every plugin, loaded or failed, with what it registers (for `smol plugins`)."""
        with self._lock:
            self.load_entry_points()
            self._collect()
            return sorted(self._plugins.values(), key=lambda p: (not p.builtin, p.name))


_registry: PluginRegistry | None = None
_registry_lock = threading.Lock()
_prebuilt: PluginRegistry | None = None


def prebuild_registry() -> None:
    """Build a registry of the built-in plugins now, for the processes this one will fork (a team's
    fork server): each takes it as its own on first use, where its environment selects the same
    plugins, instead of registering them again (pluggy's registration of the built-in plugins took
    every agent of a team about 3 ms). Entry points are still loaded in each process, when asked."""
    global _prebuilt
    _prebuilt = PluginRegistry()
    _prebuilt.register_features()


def get_registry() -> PluginRegistry:
    """The process's registry, built on first use (or taken from `prebuild_registry`)."""
    global _registry, _prebuilt
    if _registry is None:
        with _registry_lock:
            if _registry is None:
                prebuilt, _prebuilt = _prebuilt, None
                if prebuilt is not None and _selection(os.environ) == (
                    prebuilt._autoload,
                    prebuilt._only,
                    prebuilt._disabled,
                ):
                    _registry = prebuilt
                else:
                    _registry = PluginRegistry()
    return _registry


def reset_registry(registry: PluginRegistry | None = None) -> PluginRegistry | None:
    """Replace (or drop) the process's registry; returns the previous one. For tests and embedding."""
    global _registry
    with _registry_lock:
        previous, _registry = _registry, registry
    return previous
