"""E2BExecutor takes smolagents' arguments: `(additional_imports, logger, ...)`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


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


def test_sandbox_create_gets_smolagents_keywords_as_given(make_e2b: Callable[..., Any], standin: Any) -> None:
    """smolagents passes its keywords to `Sandbox.create` untouched; `timeout=` is the sandbox's
    lifetime there, so it is the one the executor keeps pushing back too."""
    ex = make_e2b(additional_imports=[], logger=Logger(), template="code-interpreter-v1", timeout=60)
    (sandbox,) = standin.sandboxes.values()
    request = sandbox["request"]
    assert request["templateID"] == "code-interpreter-v1" and request["timeout"] == 60
    assert not request.get("metadata")  # nothing added that the caller did not ask for
    assert ex.sandbox_timeout == 60


def test_metadata_reaches_the_sandbox_as_given(make_e2b: Callable[..., Any], standin: Any) -> None:
    make_e2b(["json"], metadata={"project": "reports"})
    (sandbox,) = standin.sandboxes.values()
    assert sandbox["request"]["metadata"] == {"project": "reports"}


def test_two_different_lifetimes_are_refused_in_one_line() -> None:
    from smol_executor_e2b import E2BExecutor

    with pytest.raises(ValueError, match="sandbox_timeout=60 and timeout=90.*pass one of them"):
        E2BExecutor(sandbox_timeout=60, timeout=90)
