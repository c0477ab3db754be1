"""`Tool.from_space`: a Gradio app (a Hugging Face Space, or any Gradio server by URL) as a tool.

The tool's inputs and output type come from the app's own API description (`Client.view_api`), so the
model sees the argument names, types and labels the app declares, and calls are checked against them
before a request leaves. The app runs remotely: no downloaded code runs here, so no `trust_remote_code`.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

from smol_core.plugin_api import AddressPolicy, AgentToolExecutionError, AllowSetting, SmolError, Tool

# Gradio components whose values are files: the model passes a URL or PIL image and gets one back.
_FILE_COMPONENTS = {"Image": "image", "Audio": "audio", "Video": "any", "File": "any", "Model3D": "any"}
_JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object"}
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp")
MAX_UPLOAD_BYTES = 50 * 1024 * 1024  # a file input fetched from a URL larger than this is refused


class SpaceError(SmolError):
    """A Space cannot be used as a tool: unreachable, or without the endpoint asked for."""


def _input_type(parameter: dict[str, Any]) -> str:
    component = parameter.get("component", "")
    if component in _FILE_COMPONENTS:
        return _FILE_COMPONENTS[component]
    kind = (parameter.get("type") or {}).get("type")
    if kind == "object":
        return "any"  # a FileData-like or free-form payload: let the app judge it
    return kind if kind in _JSON_TYPES else "any"


def _describe(entry: dict[str, Any]) -> str:
    """The most helpful text the app gives about a parameter: its label, then any type note."""
    parts = [str(entry.get("label") or entry.get("parameter_name") or "").strip()]
    for note in (
        (entry.get("type") or {}).get("description"),
        (entry.get("python_type") or {}).get("description"),
    ):
        if note and note not in parts:
            parts.append(str(note).strip())
    text = ". ".join(p for p in parts if p)
    return text or f"A {entry.get('component', 'value')} value."


def _output_type(returns: list[dict[str, Any]]) -> str:
    if len(returns) != 1:
        return "array" if returns else "null"
    entry = returns[0]
    component = entry.get("component", "")
    if component in _FILE_COMPONENTS:
        return _FILE_COMPONENTS[component]
    kind = (entry.get("type") or {}).get("type")
    return kind if kind in _JSON_TYPES and kind != "object" else "any"


class SpaceTool(Tool):
    """Calls one endpoint of a Gradio app. Built by `tool_from_space` / `Tool.from_space`."""

    skip_forward_signature_validation = True

    def __init__(
        self,
        space_id: str,
        name: str,
        description: str,
        api_name: str | None = None,
        token: str | None = None,
        client: Any = None,
        allow_private_addresses: AllowSetting = None,
    ) -> None:
        super().__init__()
        self.space_id = space_id
        self.policy = AddressPolicy.parse(allow_private_addresses)
        self.client = client if client is not None else _connect(space_id, token)
        api = self.client.view_api(return_format="dict", print_info=False)
        endpoints: dict[str, Any] = dict(api.get("named_endpoints") or {})
        if not endpoints:
            raise SpaceError(f"The Space {space_id!r} exposes no named API endpoint to call.")
        if api_name is None:
            api_name = next(iter(endpoints))
            warnings.warn(
                f"No api_name given: the tool calls the Space's first endpoint, {api_name!r} "
                f"(it has: {', '.join(endpoints)}).",
                stacklevel=3,
            )
        elif not api_name.startswith("/") and f"/{api_name}" in endpoints:
            api_name = f"/{api_name}"
        if api_name not in endpoints:
            raise SpaceError(
                f"The Space {space_id!r} has no endpoint {api_name!r}; it has: {', '.join(endpoints)}."
            )
        endpoint = endpoints[api_name]
        self.api_name = api_name
        self.name = name
        self.description = (
            description or endpoint.get("description") or f"Calls {api_name} of the Space {space_id}."
        )
        self.inputs = {
            p["parameter_name"]: {
                "type": _input_type(p),
                "description": _describe(p),
                **({"nullable": True} if p.get("parameter_has_default") else {}),
            }
            for p in endpoint.get("parameters", [])
        }
        self._file_inputs = {p["parameter_name"] for p in endpoint.get("parameters", []) if _is_file(p)}
        self._returns = list(endpoint.get("returns", []))
        self.output_type = _output_type(self._returns)
        self.validate_arguments()
        self.is_initialized = True

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        names = list(self.inputs)
        bound = {**dict(zip(names, args)), **kwargs}
        call = {key: self._prepare(key, value) for key, value in bound.items()}
        try:
            output = self.client.predict(api_name=self.api_name, **call)
        except Exception as error:  # gradio_client raises AppError, httpx errors, ValueError...
            raise AgentToolExecutionError(
                f"The Space {self.space_id!r} ({self.api_name}) failed: {type(error).__name__}: {error}"
            ) from error
        return self._convert(output)

    def _prepare(self, key: str, value: Any) -> Any:
        """Files go up as gradio `FileData`: a PIL image is written to a temporary PNG first, a URL is
        fetched here under the address policy.

        The model chooses these values, so a string is never handed to gradio as it is: gradio
        would upload a host path (any file this user can read, to a stranger's app) or download a
        URL from the host itself (an internal service, the cloud metadata address). Only http(s)
        URLs the address policy allows are fetched (bounded, every redirect re-checked), and a path
        on this machine is refused.
        """
        if key not in self._file_inputs or value is None:
            return value
        from gradio_client import handle_file

        if hasattr(value, "save") and hasattr(value, "size"):  # a PIL image, without importing PIL
            handle, path = tempfile.mkstemp(suffix=".png")
            os.close(handle)
            value.save(path)
            return handle_file(path)
        text = str(value).strip()
        if isinstance(value, str | Path) and text.lower().startswith(("http://", "https://")):
            return handle_file(self._download(key, text))
        raise AgentToolExecutionError(
            f"The input {key!r} of {self.name!r} takes an image or an http(s) URL of a file; "
            f"{text[:200]!r} is neither (files on this machine are never sent to a Space)."
        )

    def _download(self, key: str, url: str) -> str:
        from urllib.parse import urlsplit

        from smol_core.plugin_api import AddressRefusedError, guarded_request

        try:
            response = guarded_request(
                "GET", url, policy=self.policy, timeout=60.0, max_bytes=MAX_UPLOAD_BYTES
            )
        except AddressRefusedError as error:
            raise AgentToolExecutionError(f"The input {key!r}: {error}") from None
        except Exception as error:  # httpx errors, a download over the limit
            raise AgentToolExecutionError(
                f"The input {key!r}: could not fetch {url}: {type(error).__name__}: {error}"
            ) from None
        if response.status_code >= 400:
            raise AgentToolExecutionError(f"The input {key!r}: {url} answered HTTP {response.status_code}.")
        suffix = Path(urlsplit(url).path).suffix[:12]
        handle, path = tempfile.mkstemp(suffix=suffix if suffix.isascii() else "")
        with os.fdopen(handle, "wb") as out:
            out.write(response.content)
        return path

    def _convert(self, output: Any) -> Any:
        if isinstance(output, tuple):
            output = list(output)
        if (
            self.output_type == "image"
            and isinstance(output, str)
            and output.lower().endswith(_IMAGE_SUFFIXES)
        ):
            try:
                from PIL import Image
            except ImportError:
                return output  # the local path gradio_client downloaded to
            with Image.open(output) as image:
                image.load()
                return image.copy()
        return output


def _is_file(parameter: dict[str, Any]) -> bool:
    return parameter.get("component") in _FILE_COMPONENTS


def _connect(space_id: str, token: str | None) -> Any:
    from gradio_client import Client

    try:
        # analytics follow GRADIO_ANALYTICS_ENABLED (None), not the client's own default of on
        return Client(space_id, token=token, verbose=False, analytics_enabled=None)
    except Exception as error:
        raise SpaceError(f"Cannot reach the Space {space_id!r}: {type(error).__name__}: {error}") from error


def tool_from_space(
    space_id: str,
    name: str,
    description: str = "",
    api_name: str | None = None,
    token: str | None = None,
    allow_private_addresses: AllowSetting = None,
) -> SpaceTool:
    """A tool that calls `api_name` (default: the app's first named endpoint) of a Space or Gradio URL.

    `allow_private_addresses` widens what a file input given as a URL may be fetched from (see
    `smol_core.plugin_api.AddressPolicy`); by default only public addresses."""
    return SpaceTool(
        space_id,
        name=name,
        description=description,
        api_name=api_name,
        token=token,
        allow_private_addresses=allow_private_addresses,
    )
