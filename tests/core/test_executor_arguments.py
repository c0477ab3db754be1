"""A keyword an executor does not take is an error, not a setting silently dropped.

`executor_kwargs={"memory_limit": 512}` (for `memory_limit_mb`) used to run with the default limit;
a sandbox limit with a typo is no limit at all.
"""

from __future__ import annotations

import pytest

from smol_core import CodeAgent, PluginArgumentError, load_executor
from smol_core.testing import ScriptedModel


def test_a_mistyped_executor_keyword_names_the_ones_it_takes() -> None:
    with pytest.raises(PluginArgumentError) as caught:
        load_executor("local", [], memory_limit=512)
    message = str(caught.value)
    assert "'memory_limit'" in message and "memory_limit_mb" in message and "timeout_seconds" in message
    assert isinstance(caught.value, TypeError)  # what code written for smolagents catches


def test_code_agent_reports_it_when_the_executor_is_built() -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([]), executor_kwargs={"timeout_second": 5})
    with pytest.raises(PluginArgumentError, match="'timeout_second'"):
        agent.run("anything")


def test_the_keywords_it_takes_still_work() -> None:
    executor = load_executor("local", ["math"], timeout_seconds=5, memory_limit_mb=1024)
    try:
        assert executor("import math\nprint(math.floor(2.5))").logs.strip() == "2"
    finally:
        executor.close()
