"""Saved agents are data: which of their settings a file may set, and what happens to the others.

An agent folder, an agent dict or a Hub repo is written by whoever wrote it, not by the person who
loads it. So a loader takes only *benign* settings from it (prompts, names, step budget...) and
never a *security setting*: what sandbox runs the code and how it is configured, what it may
import, how much output it may send back, and where the model's requests (with their credentials)
go. A file may ask for one; the loader then keeps the safe default, warns (a
`SavedSettingIgnoredWarning` and a log line), records it in `agent.ignored_settings`, and says how
to grant it: pass the setting to the loader from code, e.g.
`CodeAgent.from_folder(path, additional_authorized_imports=["os"])`.

One loader trusts the file: `from_hub(..., trust_remote_code=True)`, the explicit trust smolagents
asks for before it loads a Space. There the agent's security settings (authorized imports, executor
and its options, output limit) are applied as saved, each shown first (a `SavedSettingAppliedWarning`
and a log line) and listed in `agent.applied_settings`. The model's endpoint and credentials never
are: a saved endpoint would receive the key the model reads from the environment.
"""

from __future__ import annotations

import logging
import re
import sys
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger("smol_core.loading")

# Agent settings that decide what the sandbox allows: file key -> the loader's keyword that grants it.
AGENT_SECURITY_SETTINGS: dict[str, str] = {
    "authorized_imports": "additional_authorized_imports",
    "additional_authorized_imports": "additional_authorized_imports",
    "executor_type": "executor_type",
    "executor_kwargs": "executor_kwargs",
    "max_print_outputs_length": "max_print_outputs_length",
}
# What an agent gets when its file asks for a security setting that code did not grant.
SAFE_DEFAULTS: dict[str, Any] = {
    "additional_authorized_imports": None,
    "executor_type": "local",
    "executor_kwargs": None,
    "max_print_outputs_length": None,
}
# Other keys that would change the sandbox or run code on the host if a loader ever read them
# (some are smolagents' names): always ignored when they come from a file.
OTHER_SECURITY_KEYS = frozenset(
    {
        "executor",
        "use_e2b_executor",
        "sandbox",
        "mounts",
        "volumes",
        "network",
        "allow_network",
        "timeout",
        "timeout_seconds",
        "memory_limit",
        "memory_limit_mb",
        "trust_remote_code",
        "step_callbacks",
        "final_answer_checks",
        "logger",
    }
)

# Model settings named like these carry a credential, choose where requests go, or load code.
_MODEL_KEY_PARTS = frozenset(
    {
        "key",
        "token",
        "secret",
        "password",
        "credential",
        "credentials",
        "url",
        "endpoint",
        "base",
        "host",
        "proxy",
        "proxies",
        "header",
        "headers",
        "client",
    }
)
_MODEL_KEYS = frozenset(
    {"trust_remote_code", "client_kwargs", "model_kwargs", "load_kwargs", "model_list", "bill_to"}
)
_SECRET_PARTS = frozenset({"key", "token", "secret", "password", "credential", "credentials"})
_URL = re.compile(r"://|^//")


class SavedSettingIgnoredWarning(UserWarning):
    """A saved agent asked for a security setting; it was ignored (grant it from code)."""


class SavedSettingAppliedWarning(UserWarning):
    """A trusted saved agent (`trust_remote_code=True`) set a security setting: shown before it applies."""


@dataclass(frozen=True)
class IgnoredSetting:
    """One setting a saved agent asked for and did not get."""

    source: str  # which file or dict: "agent.json", "managed agent 'helper'", ...
    key: str  # as written there: "authorized_imports", "model.api_base"
    value: str  # a short repr of what it asked for
    grant: str  # how code grants it

    def __str__(self) -> str:
        return f"{self.source} asks for {self.key}={self.value}; it was ignored. {self.grant}"


def short_repr(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _first_caller_outside_smol() -> int:
    """The `stacklevel` that points a warning at the code that called the loader, however deep
    the loader's own frames go (nested managed agents, the Hub loader)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith(("smol_core", "smol_tool_")):
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return level


class LoadRecord:
    """Collects, warns about and logs the settings one load ignored."""

    def __init__(self, source: str, loader: str) -> None:
        self.source = source
        self.loader = loader
        self.ignored: list[IgnoredSetting] = []
        self.applied: list[IgnoredSetting] = []

    def ignore(self, key: str, value: Any, grant: str) -> None:
        setting = IgnoredSetting(self.source, key, short_repr(value), grant)
        self.ignored.append(setting)
        message = f"Saved files cannot change security settings: {setting}"
        warnings.warn(message, SavedSettingIgnoredWarning, stacklevel=_first_caller_outside_smol())
        logger.warning(message)

    def apply(self, key: str, value: Any) -> None:
        """Show a security setting a trusted file sets, before it applies."""
        setting = IgnoredSetting(self.source, key, short_repr(value), "Applied: the load was trusted.")
        self.applied.append(setting)
        message = f"A trusted saved agent sets a security setting: {self.source} sets {key}={setting.value}."
        warnings.warn(message, SavedSettingAppliedWarning, stacklevel=_first_caller_outside_smol())
        logger.warning(message)

    def adopt(self, nested: Iterable[IgnoredSetting]) -> None:
        """Take in what loading a managed agent ignored (already warned about once)."""
        self.ignored.extend(nested)


_SETTING_TYPES: dict[str, type | tuple[type, ...]] = {
    "additional_authorized_imports": list,
    "executor_type": str,
    "executor_kwargs": dict,
    "max_print_outputs_length": int,
}


def agent_security_settings(
    agent_dict: dict[str, Any], granted: dict[str, Any], record: LoadRecord, trusted: bool = False
) -> dict[str, Any]:
    """The security keyword arguments for the agent's constructor: the ones code granted, else (a
    `trusted` load) the file's, shown first, else the safe defaults. Every security setting the file
    asks for and gets neither way is recorded."""
    settings: dict[str, Any] = {}
    for file_key, keyword in AGENT_SECURITY_SETTINGS.items():
        if keyword in granted:
            settings[keyword] = granted[keyword]
            continue
        asked = agent_dict.get(file_key)
        if trusted and asked != SAFE_DEFAULTS[keyword] and _well_typed(keyword, asked):
            record.apply(file_key, asked)
            settings[keyword] = asked
            continue
        settings.setdefault(keyword, SAFE_DEFAULTS[keyword])
        if asked not in (None, [], {}, SAFE_DEFAULTS[keyword]):
            record.ignore(
                file_key,
                asked,
                f"Pass {keyword}={short_repr(asked)} to {record.loader} to allow it.",
            )
    for key in sorted(OTHER_SECURITY_KEYS & set(agent_dict)):
        if agent_dict[key] not in (None, False, [], {}):
            record.ignore(
                key, agent_dict[key], f"Set it from code (a keyword of {record.loader} or the agent)."
            )
    return settings


def _well_typed(keyword: str, value: Any) -> bool:
    """Whether a saved value can be the setting at all (else it is treated as not trusted)."""
    if value in (None, [], {}) or isinstance(value, bool):
        return False
    if keyword == "additional_authorized_imports":
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return isinstance(value, _SETTING_TYPES[keyword])


def is_model_security_key(key: str) -> bool:
    return key in _MODEL_KEYS or bool(_MODEL_KEY_PARTS & set(key.lower().split("_")))


def holds_url(value: Any, budget: int = 10_000) -> bool:
    """Whether a (possibly nested) value holds a URL (`scheme://...` or `//host`)."""
    stack = [value]
    while stack and budget > 0:
        budget -= 1
        item = stack.pop()
        if isinstance(item, str):
            if _URL.search(item.strip()):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return budget <= 0  # too big to check: treat as unsafe


def benign_model_settings(
    data: dict[str, Any], record: LoadRecord, granted: Iterable[str] = ()
) -> dict[str, Any]:
    """The model settings a file may set. A saved model never picks where its requests go nor
    carries a credential: a base URL from a file would receive the key the model reads from the
    environment (`OPENAI_API_KEY`, `HF_TOKEN`...), so such settings are dropped, and granted only
    by code (`model_kwargs={"api_base": ...}` or `model=...` to the loader)."""
    kept: dict[str, Any] = {}
    replaced = set(granted)
    for key, value in data.items():
        if key in replaced:
            continue  # code gave its own value
        if not isinstance(key, str) or is_model_security_key(key) or holds_url(value):
            secret = bool(_SECRET_PARTS & set(str(key).lower().split("_")))
            record.ignore(
                f"model.{key}",
                "<hidden>" if secret else value,
                f"Pass model_kwargs={{{str(key)!r}: ...}} (or model=...) to {record.loader} to allow it.",
            )
            continue
        kept[key] = value
    return kept
