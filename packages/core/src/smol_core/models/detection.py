"""Learning what an OpenAI-compatible server serves, so that a model gets the same agent whatever the route.

The embedded SmolLM2 GGUF loaded in process is known to be small (its file size says so) and to decode
under a GBNF grammar. Served by llama.cpp's server, the same GGUF used to look like any remote model:
generic prompt, JSON actions, and about 1 task in 30 solved. The server knows better, and most say so:

- llama.cpp: `GET /props` (model path, n_ctx, chat template; its `grammar` request field is what
  constrained decoding needs) and `GET /v1/models` (`meta.n_params`, `meta.size`);
- Ollama: `GET /api/version`, then `POST /api/show` (`details.parameter_size`, `model_info["general.parameter_count"]`);
- vLLM and others: `GET /v1/models` (`root`, `max_model_len`); the parameter count then comes from a
  name such as `SmolLM2-135M-Instruct` or `qwen2.5:0.5b`.

Probes are optional, quiet and fast: a short time-out each, the first refused connection ends them, and
by default only servers on this machine or a private network are asked (a cloud API is never probed,
and nothing here reaches the internet on its own). `CapabilityDetector` runs them once, on the first
read of a model's capabilities (an agent's construction or the first request), and keeps the result.
A user's override (`capabilities=`, `small=`, the CLI's `--small` / `--no-small`) always wins.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from smol_core.models.capabilities import ModelCapabilities

__all__ = [
    "SMALL_MODEL_BYTES",
    "SMALL_MODEL_PARAMS",
    "CapabilityDetector",
    "ServerInfo",
    "capabilities_for",
    "is_local_address",
    "parameters_from_name",
    "probe_server",
]

logger = logging.getLogger(__name__)

SMALL_MODEL_PARAMS = 1_000_000_000
"""Models under a billion parameters copy patterns rather than follow instructions: they get the
small-model prompt (`ModelCapabilities.small`)."""
SMALL_MODEL_BYTES = 600 * 1024 * 1024
"""The in-process rule (a GGUF file under 600 MB), for servers that report a size but no count."""
PROBE_TIMEOUT = 1.5
"""Seconds per probe: a server on this machine answers these in milliseconds."""


@dataclass(frozen=True)
class ServerInfo:
    """What a server said about the model it serves (None: it did not say)."""

    kind: str
    """"llama.cpp", "ollama" or "openai-compatible" (answered only `/v1/models`)."""
    model: str | None = None
    """The model's name or file, as the server reports it."""
    n_params: int | None = None
    size_bytes: int | None = None
    n_ctx: int | None = None
    chat_template: bool = False
    template_supports_tools: bool | None = None
    grammar: bool = False
    """Takes a GBNF `grammar` field in chat requests (llama.cpp's server)."""
    source: str = ""
    """Which endpoints answered, for the verbose explanation."""


def is_local_address(api_base: str | None) -> bool:
    """Whether `api_base` names this machine or a private network (the servers probed by default)."""
    if not api_base:
        return False
    host = urllib.parse.urlsplit(api_base).hostname or ""
    if host in ("localhost", "host.docker.internal") or host.endswith((".local", ".localhost", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." not in host and bool(host)  # a bare name: a container or a LAN host
    return address.is_loopback or address.is_private or address.is_link_local


_SIZE_IN_NAME = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([mb])(?![a-z0-9])", re.IGNORECASE)


def parameters_from_name(name: str | None) -> int | None:
    """The parameter count a model's name states: `SmolLM2-135M-Instruct` 135e6, `qwen2.5:0.5b` 5e8."""
    if not name:
        return None
    for part in re.split(r"[/\\:_\-]", name):
        match = _SIZE_IN_NAME.fullmatch(part.strip())
        if match:
            scale = 1_000_000 if match.group(2).lower() == "m" else 1_000_000_000
            return int(float(match.group(1)) * scale)
    return None


def probe_server(
    api_base: str, model_id: str | None = None, api_key: str | None = None, timeout: float = PROBE_TIMEOUT
) -> ServerInfo | None:
    """Ask the server at `api_base` what it serves; None if it would not say (or is not there)."""
    root = re.sub(r"/v1/?$", "", api_base.rstrip("/"))
    base = root + "/v1" if api_base.rstrip("/").endswith("/v1") else api_base.rstrip("/")
    client = _Prober(api_key, timeout)
    props = client.get(root + "/props")
    if client.unreachable:
        return None
    listed = client.get(base + "/models")
    entry = _model_entry(listed, model_id)
    meta = _dict(entry.get("meta"))
    sources = [name for name, answer in (("/props", props), ("/v1/models", listed)) if answer]
    if props and ("model_path" in props or "default_generation_settings" in props):
        caps = _dict(props.get("chat_template_caps"))
        n_ctx = meta.get("n_ctx") or _dict(props.get("default_generation_settings")).get("n_ctx")
        return ServerInfo(
            kind="llama.cpp",
            model=_basename(props.get("model_path")) or entry.get("id") or model_id,
            n_params=_int(meta.get("n_params")),
            size_bytes=_int(meta.get("size")),
            n_ctx=_int(n_ctx),
            chat_template=bool(props.get("chat_template")),
            template_supports_tools=caps.get("supports_tools"),
            grammar=True,
            source=" and ".join(sources),
        )
    if model_id and "version" in client.get(root + "/api/version"):  # Ollama: only then POST
        shown = client.post(root + "/api/show", {"model": model_id})
        if shown:
            info = _dict(shown.get("model_info"))
            details = _dict(shown.get("details"))
            count = _int(info.get("general.parameter_count")) or parameters_from_name(
                details.get("parameter_size")
            )
            return ServerInfo(
                kind="ollama",
                model=model_id,
                n_params=count,
                chat_template=bool(shown.get("template")),
                source="/api/show",
            )
    if entry:
        return ServerInfo(
            kind="openai-compatible",
            model=str(entry.get("root") or entry.get("id") or model_id),
            n_params=_int(meta.get("n_params")),
            size_bytes=_int(meta.get("size")),
            n_ctx=_int(entry.get("max_model_len") or meta.get("n_ctx")),
            source="/v1/models",
        )
    return None


def capabilities_for(
    base: ModelCapabilities, info: ServerInfo | None, model_id: str | None
) -> tuple[ModelCapabilities, str]:
    """The capabilities `info` implies on top of `base`, and a sentence saying why."""
    if info is None:
        count = parameters_from_name(model_id)
        if count is None:
            return base, "the server did not say what it serves: generic prompt"
        small = count < SMALL_MODEL_PARAMS
        return replace(base, small=small), f"the name {model_id!r} says {_millions(count)} parameters" + (
            ": small-model prompt" if small else ""
        )
    count = info.n_params or parameters_from_name(info.model) or parameters_from_name(model_id)
    if count is not None:
        small = count < SMALL_MODEL_PARAMS
        size_reason = f"{_millions(count)} parameters"
    elif info.size_bytes is not None:
        small = info.size_bytes < SMALL_MODEL_BYTES
        size_reason = f"a {info.size_bytes / 1e6:.0f} MB model file"
    else:
        small, size_reason = base.small, "no parameter count"
    caps = replace(base, small=small, grammar=base.grammar or info.grammar)
    parts = [f"{info.kind} server ({info.source}) serves {info.model or model_id}: {size_reason}"]
    parts.append("small-model prompt" if small else "generic prompt")
    if info.grammar:
        parts.append("it takes GBNF grammars")
    return caps, ", ".join(parts)


class CapabilityDetector:
    """A model's capabilities, learned from its server once, on first use; overrides win.

    Args:
        base: what the client and API can do anyway (stop sequences, tools, streaming...).
        api_base: the server's URL; None (a cloud API by default) is never probed.
        model_id: the served model's name (also read for a size: `...-135M-...`).
        api_key: sent as a bearer token with the probes.
        override: a `ModelCapabilities` (used as is, nothing probed) or fields to force on top of what
            is detected (`{"small": True}`).
        detect: True probes any `api_base`; None (default) only one on this machine or a private
            network; False never.
    """

    def __init__(
        self,
        base: ModelCapabilities,
        api_base: str | None,
        model_id: str | None,
        api_key: str | None = None,
        override: ModelCapabilities | Mapping[str, bool] | None = None,
        detect: bool | None = None,
    ) -> None:
        if isinstance(override, Mapping):
            known = {f.name for f in fields(ModelCapabilities)}
            unknown = set(override) - known
            if unknown:
                raise ValueError(f"Unknown capabilities {sorted(unknown)}; known: {sorted(known)}")
        self.base = base
        self.api_base = api_base
        self.model_id = model_id
        self.api_key = api_key
        self.override = override
        self.detect = detect
        self.info: ServerInfo | None = None
        self.reason = ""
        self._resolved: ModelCapabilities | None = None
        self._lock = threading.Lock()

    @property
    def should_probe(self) -> bool:
        if self.detect is False or not self.api_base or isinstance(self.override, ModelCapabilities):
            return False
        return self.detect is True or is_local_address(self.api_base)

    def get(self) -> ModelCapabilities:
        """The capabilities, probing the server the first time."""
        if self._resolved is None:
            with self._lock:
                if self._resolved is None:
                    self._resolved = self._resolve()
        return self._resolved

    def set(self, capabilities: ModelCapabilities) -> None:
        """Replace them (a server that refused `stop` is remembered this way)."""
        self._resolved = capabilities

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (a model may travel to another process of a team): the lock stays behind."""
        return {key: value for key, value in self.__dict__.items() if key != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _resolve(self) -> ModelCapabilities:
        if isinstance(self.override, ModelCapabilities):
            self.reason = "capabilities given by the user"
            return self.override
        if self.should_probe:
            assert self.api_base is not None
            self.info = probe_server(self.api_base, self.model_id, self.api_key)
            caps, self.reason = capabilities_for(self.base, self.info, self.model_id)
        elif self.api_base and self.detect is None:
            caps, self.reason = (
                self.base,
                f"{self.api_base} is not on this machine or a private network: not probed",
            )
        elif not self.api_base:
            caps, self.reason = self.base, "no server URL to ask (a cloud API): not probed"
        else:
            caps, self.reason = self.base, "detection switched off"
        if self.override:
            caps = replace(caps, **dict(self.override))
            forced = ", ".join(f"{key}={value}" for key, value in self.override.items())
            self.reason += f"; overridden by the user: {forced}"
        logger.debug("capabilities of %s: %s (%s)", self.model_id, caps, self.reason)
        return caps


class DetectedCapabilities:
    """A model whose `capabilities` a `CapabilityDetector` learns on first use.

    Put it before the model base class (`class MyModel(DetectedCapabilities, ChatCompletionsModel)`)
    and set `self.detector` in `__init__`; `capabilities_reason` says why, for verbose output."""

    detector: CapabilityDetector

    @property
    def capabilities(self) -> ModelCapabilities:
        return self.detector.get()

    @capabilities.setter
    def capabilities(self, value: ModelCapabilities) -> None:
        self.detector.set(value)

    @property
    def capabilities_reason(self) -> str:
        self.detector.get()
        return self.detector.reason


class _Prober:
    """JSON over HTTP with a short time-out; remembers whether the server could be reached at all."""

    def __init__(self, api_key: str | None, timeout: float) -> None:
        self.headers = {"Accept": "application/json"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.timeout = timeout
        self.unreachable = False

    def get(self, url: str) -> dict[str, Any]:
        return self._call(urllib.request.Request(url, headers=self.headers))

    def post(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body).encode()
        headers = {**self.headers, "Content-Type": "application/json"}
        return self._call(urllib.request.Request(url, data=data, headers=headers, method="POST"))

    def _call(self, request: urllib.request.Request) -> dict[str, Any]:
        if self.unreachable:
            return {}
        try:
            with _NO_PROXY.open(request, timeout=self.timeout) as response:
                answer = json.loads(response.read(1_000_000))
        except urllib.error.HTTPError:
            return {}  # the route is not there: another kind of server
        except (OSError, ValueError) as error:
            if not isinstance(error, ValueError):
                self.unreachable = True  # refused or silent: ask nothing more
            logger.debug("probe %s failed: %s", request.full_url, error)
            return {}
        return answer if isinstance(answer, dict) else {}


# Probes go straight to the server the user named, never through an HTTP proxy from the environment.
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _model_entry(listed: dict[str, Any], model_id: str | None) -> dict[str, Any]:
    data = listed.get("data")
    if not isinstance(data, list):
        return {}
    entries = [entry for entry in data if isinstance(entry, dict)]
    for entry in entries:
        if model_id and (entry.get("id") == model_id or model_id in (entry.get("aliases") or [])):
            return entry
    return entries[0] if len(entries) == 1 else {}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and value > 0:
        return int(value)
    return None


def _basename(path: Any) -> str | None:
    return re.split(r"[/\\]", path)[-1] if isinstance(path, str) and path else None


def _millions(count: int) -> str:
    return f"{count / 1e9:.1f}B" if count >= 1_000_000_000 else f"{count / 1e6:.0f}M"
