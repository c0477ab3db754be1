"""smolagents' `DockerExecutor` options, read as this executor's own.

smolagents runs a Jupyter kernel gateway in its container, builds that image by default
(`build_new_image=True`) and publishes the gateway's port on `host:port`. This executor runs smol's
guarded worker in a hardened container over its attached stream. Each of smolagents' options that
has a safe equivalent here becomes that option; one that would weaken the container or that has
no meaning here is refused with what to use instead, never ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from smol_core.plugin_api import SmolError

__all__ = ["ImageBuild", "UnsupportedOptionError", "container_limits", "image_choice", "refuse_address"]


class UnsupportedOptionError(SmolError, TypeError):
    """A smolagents `DockerExecutor` option this executor has no safe equivalent for."""


@dataclass(frozen=True)
class ImageBuild:
    """The image to build before the container starts: smolagents' `build_new_image` and
    `dockerfile_content`. `always`: build even when the image exists (`build_new_image=True`)."""

    dockerfile: str | None  # None: smol's own Dockerfile (`smol executor docker build`)
    always: bool


def image_choice(
    image: str,
    default_image: str,
    image_name: str | None,
    build_new_image: bool | None,
    dockerfile_content: str | None,
) -> tuple[str, ImageBuild | None]:
    """The image to run (`image_name` is smolagents' name for `image`) and what to build first, if
    anything: smolagents builds when asked to or when its Dockerfile's image is missing."""
    if image_name is not None and image != default_image and image != image_name:
        raise UnsupportedOptionError(
            f"DockerExecutor got image={image!r} and image_name={image_name!r}: pass one of them."
        )
    chosen = image_name if image_name is not None else image
    if build_new_image:
        return chosen, ImageBuild(dockerfile_content, always=True)
    if dockerfile_content is not None:
        return chosen, ImageBuild(dockerfile_content, always=False)
    return chosen, None


# smolagents' `containers.run(**container_run_kwargs)` keys with an option of this executor's own
_LIMITS = {"mem_limit": "mem_limit", "pids_limit": "pids_limit", "nano_cpus": "cpus"}


def container_limits(container_run_kwargs: dict[str, Any] | None) -> dict[str, Any]:
    """smolagents' `container_run_kwargs` as this executor's options: the resource limits it has
    (`mem_limit`, `pids_limit`, `nano_cpus` as `cpus`, no network); any other key is refused, since
    `containers.run` arguments (ports, volumes, privileges, environment) would open the container."""
    given = dict(container_run_kwargs or {})
    options: dict[str, Any] = {}
    for key, option in _LIMITS.items():
        if key in given:
            value = given.pop(key)
            options[option] = value / 1e9 if key == "nano_cpus" else value
    if given.pop("network_disabled", False) or given.get("network_mode") == "none":
        given.pop("network_mode", None)
        options["network"] = False
    if given:
        raise UnsupportedOptionError(
            f"DockerExecutor does not take container_run_kwargs {sorted(given)}: its container is "
            "hardened (no ports, no host files, no extra privileges); use mem_limit=, cpus=, pids_limit=, "
            "network=, or container_options={...} (create_container arguments, which override the hardening)."
        )
    return options


def refuse_address(host: str | None, port: int | None) -> None:
    """smolagents' `host` and `port` publish its kernel gateway; this executor publishes no port."""
    if host is not None or port is not None:
        raise UnsupportedOptionError(
            "DockerExecutor publishes no port (code and results travel over the container's attached "
            "stream), so it takes no host= or port=: leave them out; docker_url= picks the engine."
        )
