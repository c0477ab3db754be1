"""E2BExecutor takes smolagents' arguments: `(additional_imports, logger, ...)`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Logger:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def log(self, text: Any, **_: Any) -> None:
        self.lines.append(str(text))


def test_the_logger_is_the_second_argument_and_hears_start_and_shutdown(make_e2b: Callable[..., Any]) -> None:
    logger = Logger()
    ex = make_e2b(["json"], logger)
    assert ex.logger is logger and ex("import json\njson.dumps([1])").output == "[1]"
    ex.close()
    assert logger.lines == [
        "Initializing executor, hold on...",
        "Shutting down sandbox...",
        "Sandbox cleanup completed",
    ]


def test_additional_imports_is_smolagents_name_for_the_authorized_imports(
    make_e2b: Callable[..., Any],
) -> None:
    ex = make_e2b(additional_imports=["json"], logger=Logger())
    assert ex("import json\njson.dumps({'a': 1})").output == '{"a": 1}'
