"""smolagents' `vision_web_browser` names, from `smol_ui_webagent.vision_web_browser`: XPath escaping,
the module-level tools acting on its `driver`, and `run_webagent`, which keeps the browser in the host
(helium is never authorized in the sandbox: code holding the browser could open file:// pages)."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from smol_core.errors import AgentToolExecutionError

pytest.importorskip("helium")

from smol_ui_webagent import vision_web_browser as vwb  # noqa: E402


@pytest.fixture(autouse=True)
def _no_environment_grant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SMOL_WEB_ALLOW_PRIVATE", raising=False)


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("plain", "'plain'"),
        ("it's", '"it\'s"'),
        ('say "hi"', "'say \"hi\"'"),
        ("a'b\"c", "concat('a', \"'\", 'b\"c')"),
        ("') or 1=1 or ('", "\"') or 1=1 or ('\""),
    ],
)
def test_text_becomes_an_xpath_literal_never_xpath(text: str, literal: str) -> None:
    assert vwb._escape_xpath_string(text) == literal


def test_search_item_ctrl_f_uses_the_module_driver_and_smolagents_wording() -> None:
    driver = mock.Mock()
    driver.find_elements.return_value = [mock.Mock(), mock.Mock(), mock.Mock()]
    with mock.patch.object(vwb, "driver", driver):
        result = vwb.search_item_ctrl_f("x')] | //script | foo[('", nth_result=2)
        assert "Found 3 matches" in result and "Focused on element 2 of 3" in result
        xpath = driver.find_elements.call_args.args[1]
        assert xpath == "//*[contains(text(), \"x')] | //script | foo[('\")]"
        with pytest.raises(Exception, match="Match n°4 not found"):
            vwb.search_item_ctrl_f("x", nth_result=4)


def test_run_webagent_builds_smolagents_agent_around_a_browser_under_the_policy() -> None:
    started: list[Any] = []

    def start_chrome(headless: bool, options: Any) -> Any:
        started.append(options.arguments)
        return mock.Mock(current_url="about:blank")

    fake_helium = mock.Mock(start_chrome=start_chrome)
    with (
        mock.patch.object(vwb, "load_model", return_value="model") as load,
        mock.patch.object(vwb, "CodeAgent") as agent_class,
        mock.patch.object(vwb, "helium", fake_helium),
    ):
        agent_class.return_value.run.return_value = "answer"
        assert vwb.run_webagent("task", "openai", "gpt", api_key="k") == "answer"
    assert load.call_args.args == ("openai", "gpt")
    kwargs = agent_class.call_args.kwargs
    assert [t.name for t in kwargs["tools"]] == ["go_to", "click", "search_item_ctrl_f", "close_popups"]
    assert agent_class.return_value.run.call_args.args == ("task" + vwb.helium_instructions,)
    # the browser's only way out is the policy proxy, loopback included
    (arguments,) = started
    assert any(a.startswith("--proxy-server=http://127.0.0.1:") for a in arguments)
    assert "--proxy-bypass-list=<-loopback>" in arguments
    assert vwb.driver is None  # the module's driver does not outlive the run


def test_the_module_tools_refuse_what_the_policy_refuses() -> None:
    driver = mock.Mock(current_url="http://127.0.0.1:9/admin")
    with mock.patch.object(vwb, "driver", driver):
        with pytest.raises(AgentToolExecutionError, match="refused to open file:///etc/passwd"):
            vwb.go_to("file:///etc/passwd")
        with pytest.raises(AgentToolExecutionError, match="loopback addresses are not allowed"):
            vwb.go_to("http://127.0.0.1:9/admin")
        with pytest.raises(AgentToolExecutionError, match="loopback addresses are not allowed"):
            vwb.go_back()  # history led to a refused page: it is blanked
    driver.get.assert_called_once_with("about:blank")
