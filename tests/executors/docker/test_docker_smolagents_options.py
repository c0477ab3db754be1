"""DockerExecutor takes smolagents' options: each becomes this executor's own where it has a safe
equivalent, and the others are refused, before any engine is reached, with what to use instead."""

from __future__ import annotations

import pytest
from smol_executor_docker import DockerExecutor
from smol_executor_docker.smolagents_options import (
    ImageBuild,
    UnsupportedOptionError,
    container_limits,
    image_choice,
)

pytestmark = pytest.mark.no_engine_needed

DEFAULT = "smol-executor:1"


def test_image_name_is_the_image() -> None:
    assert image_choice(DEFAULT, DEFAULT, "my-kernel", None, None) == ("my-kernel", None)
    assert image_choice("mine:2", DEFAULT, None, False, None) == ("mine:2", None)  # False: use it as it is
    with pytest.raises(UnsupportedOptionError, match="pass one of them"):
        image_choice("a:1", DEFAULT, "b:1", None, None)


def test_build_new_image_and_dockerfile_content_build_the_image() -> None:
    assert image_choice(DEFAULT, DEFAULT, "k", True, None) == ("k", ImageBuild(None, always=True))
    dockerfile = "FROM python:3.12-slim\n"
    assert image_choice(DEFAULT, DEFAULT, "k", True, dockerfile) == ("k", ImageBuild(dockerfile, always=True))
    # smolagents builds its Dockerfile when the image is missing
    assert image_choice(DEFAULT, DEFAULT, "k", None, dockerfile) == (
        "k",
        ImageBuild(dockerfile, always=False),
    )


def test_container_run_kwargs_give_the_limits_only() -> None:
    assert container_limits(None) == {}
    assert container_limits(
        {"mem_limit": "1g", "pids_limit": 64, "nano_cpus": 500_000_000, "network_mode": "none"}
    ) == {"mem_limit": "1g", "pids_limit": 64, "cpus": 0.5, "network": False}
    with pytest.raises(UnsupportedOptionError, match=r"\['ports', 'privileged'\].*container_options="):
        container_limits({"privileged": True, "ports": {"8888/tcp": 8888}, "mem_limit": "1g"})
    with pytest.raises(UnsupportedOptionError, match="network_mode"):
        container_limits({"network_mode": "host"})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"host": "0.0.0.0"}, "publishes no port"),
        ({"port": 8888}, "publishes no port"),
        (
            {"container_run_kwargs": {"volumes": {"/": {"bind": "/host"}}}},
            "does not take container_run_kwargs",
        ),
    ],
)
def test_the_executor_refuses_what_it_cannot_honour_before_reaching_docker(
    options: dict[str, object], message: str
) -> None:
    with pytest.raises(UnsupportedOptionError, match=message) as caught:
        DockerExecutor([], None, docker_url="unix:///nonexistent/docker.sock", **options)  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, TypeError)  # as for any keyword a function cannot take


def test_smolagents_keywords_are_accepted() -> None:
    # smolagents' call reaches the engine (here: none), not a TypeError for its keywords
    from smol_core.executors.base import ExecutorUnavailableError

    with pytest.raises(ExecutorUnavailableError, match="not reachable"):
        DockerExecutor(
            additional_imports=[],
            logger=None,
            image_name="jupyter-kernel",
            build_new_image=False,
            container_run_kwargs={"mem_limit": "1g"},
            dockerfile_content="FROM python:3.12-slim\n",
            docker_url="unix:///nonexistent/docker.sock",
        )
