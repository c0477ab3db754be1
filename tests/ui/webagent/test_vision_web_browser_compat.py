"""The seed's `vision_web_browser` names, from `smol_ui_webagent.vision_web_browser`: XPath escaping,
the module-level tools acting on its `driver`, and `run_webagent`, which keeps the browser in the host
(helium is never authorized in the sandbox: code holding the browser could open file:// pages)."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

pytest.importorskip("helium")

from smol_ui_webagent import vision_web_browser as vwb  # noqa: E402


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


def test_search_item_ctrl_f_uses_the_module_driver_and_the_seeds_wording() -> None:
    driver = mock.Mock()
    driver.find_elements.return_value = [mock.Mock(), mock.Mock(), mock.Mock()]
    with mock.patch.object(vwb, "driver", driver):
        result = vwb.search_item_ctrl_f("x')] | //script | foo[('", nth_result=2)
        assert "Found 3 matches" in result and "Focused on element 2 of 3" in result
        xpath = driver.find_elements.call_args.args[1]
        assert xpath == "//*[contains(text(), \"x')] | //script | foo[('\")]"
        with pytest.raises(Exception, match="Match n°4 not found"):
            vwb.search_item_ctrl_f("x", nth_result=4)


def test_run_webagent_keeps_helium_out_of_the_sandbox() -> None:
    built: dict[str, Any] = {}

    class Session:
        driver = mock.Mock()

        def __enter__(self) -> Session:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

    def agent(**kwargs: Any) -> Any:
        built.update(kwargs)
        return mock.Mock(run=mock.Mock(return_value="answer"))

    with (
        mock.patch.object(vwb, "load_model", return_value="model") as load,
        mock.patch.object(vwb, "CodeAgent", side_effect=agent),
        mock.patch.object(vwb, "BrowserSession", Session),
        mock.patch.object(vwb, "helium"),
    ):
        assert vwb.run_webagent("task", "openai", "gpt", api_key="k") == "answer"
    assert load.call_args.args == ("openai", "gpt")
    assert "additional_authorized_imports" not in built
    assert {tool.name for tool in built["tools"]} >= {"go_to", "click", "search_item_ctrl_f"}
    assert vwb.driver is None  # the module's driver does not outlive the run
