"""The toolkit by name: `smolagent --tools "web_search visit_webpage"` with a scripted model, and the
tools' errors reaching the model as observations."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from web_standin import Reply, StandInWeb, page

from smol_core import CodeAgent, ToolCallingAgent
from smol_core.agents.settings import tools_from_names as build_tools
from smol_core.cli.smolagent import main
from smol_core.plugins.hookspecs import hookimpl
from smol_core.plugins.registry import PluginRegistry, reset_registry
from smol_core.plugins.specs import ModelSpec
from smol_core.testing import ScriptedModel


@pytest.fixture
def registry() -> Iterator[PluginRegistry]:
    fresh = PluginRegistry()
    previous = reset_registry(fresh)
    yield fresh
    reset_registry(previous)


def test_registered_names(registry: PluginRegistry) -> None:
    names = set(registry.names("tools"))
    assert {"web_search", "visit_webpage", "wikipedia_search", "duckduckgo_search", "google_search"} <= names
    tools = build_tools(["web_search", "visit_webpage", "wikipedia_search", "bing_search"])
    assert [type(t).__name__ for t in tools] == [
        "DuckDuckGoSearchTool",
        "VisitWebpageTool",
        "WikipediaSearchTool",
        "WebSearchTool",
    ]
    assert tools[3].engine == "bing"


def test_smolagent_command_with_web_tools(
    registry: PluginRegistry,
    web: StandInWeb,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    search_url = web.route("POST", "/html/", page("ddg_html.html"))
    article = web.route("GET", "/tortoise", page("article.html"))
    monkeypatch.setattr("smol_tool_web.search.DUCKDUCKGO_HTML_URL", search_url)
    model = ScriptedModel(
        [
            '```python\nprint(web_search("python programming language"))\n```',
            f'```python\npage = visit_webpage("{article}")\nprint(page[:400])\n```',
            '```python\nfinal_answer("persistence")\n```',
        ]
    )

    class ScriptedPlugin:
        @hookimpl
        def smol_models(self) -> list[ModelSpec]:
            return [ModelSpec("web-script", lambda **kwargs: model, "scripted, for this test")]

    registry.register(ScriptedPlugin(), name="web-script-plugin")
    code = main(
        [
            "Find the secret word",
            "--tools",
            "web_search visit_webpage",
            "--model-type",
            "web-script",
            "--verbosity-level",
            "-1",
        ]
    )
    assert (code, capsys.readouterr().out.strip()) == (0, "persistence")
    second, third = (call["messages"][-1].text for call in model.calls[1:])
    assert "[Welcome to Python.org](https://www.python.org/)" in second
    assert "# The Tortoise and the Hare, revisited" in third


def test_tool_errors_become_observations(web: StandInWeb) -> None:
    busy = web.route("POST", "/html/", Reply(429, "Too Many Requests", headers={"Retry-After": "7"}))
    from smol_tool_web import DuckDuckGoSearchTool, VisitWebpageTool

    model = ScriptedModel(
        [
            '```python\nprint(web_search("x"))\n```',
            '```python\nfinal_answer("gave up")\n```',
        ]
    )
    agent = CodeAgent(
        tools=[DuckDuckGoSearchTool(base_url=busy, rate_limit=None)], model=model, verbosity_level=-1
    )
    assert agent.run("search") == "gave up"
    assert "rate-limiting these requests (HTTP 429): wait 7 s" in model.calls[1]["messages"][-1].text
    agent.cleanup()

    calling = ToolCallingAgent(
        tools=[VisitWebpageTool()],
        model=ScriptedModel(
            [
                {"name": "visit_webpage", "arguments": {"url": web.url("/missing")}},
                {"name": "final_answer", "arguments": {"answer": "done"}},
            ]
        ),
        verbosity_level=-1,
    )
    assert calling.run("visit") == "done"
    assert "HTTP 404" in calling.model.calls[1]["messages"][-1].text
