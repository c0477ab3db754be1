"""DockerExecutor takes smolagents' arguments: `(additional_imports, logger, ...)`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Logger:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def log(self, text: Any, **_: Any) -> None:
        self.lines.append(str(text))


def test_the_logger_is_the_second_argument_and_additional_imports_authorize(
    make_docker: Callable[..., Any],
) -> None:
    logger = Logger()
    ex = make_docker([], logger, additional_imports=["json"])
    assert ex.logger is logger and logger.lines == ["Initializing executor, hold on..."]
    assert ex("import json\njson.dumps([3])").output == "[3]"


def test_smolagents_image_options_run_the_named_image(make_docker: Callable[..., Any]) -> None:
    from smol_executor_docker import DEFAULT_IMAGE

    ex = make_docker(
        [], None, image_name=DEFAULT_IMAGE, build_new_image=False, container_run_kwargs={"pids_limit": 64}
    )
    assert ex.image == DEFAULT_IMAGE and ex.pids_limit == 64
    assert ex("1 + 1").output == 2
