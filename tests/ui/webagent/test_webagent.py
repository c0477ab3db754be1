"""webagent in a real headless Chromium, on a shop served on 127.0.0.1, with scripted models."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import ARTIFACTS, CHROMEDRIVER, CHROMIUM, browser_missing
from shop_site import Shop, start_shop

from smol_core.errors import AgentToolExecutionError
from smol_core.memory import ActionStep
from smol_core.testing import FunctionModel, ScriptedModel

pytest.importorskip("helium")

from smol_ui_webagent import BrowserNotFoundError, BrowserSession, find_browser, make_webagent  # noqa: E402

pytestmark = pytest.mark.slow


def code(text: str) -> str:
    return f"Thought: next.\n```python\n{text}\n```"


@pytest.fixture(scope="module")
def session() -> Iterator[BrowserSession]:
    reason = browser_missing()
    if reason:
        if os.environ.get("SMOL_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    os.environ.setdefault("SMOL_CHROMIUM", CHROMIUM)
    os.environ.setdefault("SMOL_CHROMEDRIVER", CHROMEDRIVER)
    # generous waits, so a loaded machine never turns a slow page or element into a failure; the tests
    # of a page that never loads and of a missing element shorten them (`short_waits`)
    with BrowserSession(page_load_timeout=60, find_timeout=10) as browser:
        yield browser


@contextlib.contextmanager
def short_waits(session: BrowserSession, page_load: float = 3, find: float = 2) -> Iterator[None]:
    """For what must fail (a page that never loads, text that is not there): fail it fast."""
    saved = session.page_load_timeout, session.find_timeout
    session.page_load_timeout, session.find_timeout = page_load, find
    session.driver.set_page_load_timeout(page_load)
    try:
        yield
    finally:
        session.page_load_timeout, session.find_timeout = saved
        session.driver.set_page_load_timeout(saved[0])


@pytest.fixture
def shop(monkeypatch: pytest.MonkeyPatch) -> Iterator[Shop]:
    """The shop, on 127.0.0.1: the user allows the browser that one address and port (loopback is
    refused otherwise, see test_browser_address_policy)."""
    site = start_shop()
    monkeypatch.setenv("SMOL_WEB_ALLOW_PRIVATE", site.url.removeprefix("http://"))
    yield site
    site.close()


def images_in(messages: list[Any]) -> list[Any]:
    return [
        part["image"]
        for message in messages
        if isinstance(message.content, list)
        for part in message.content
        if part.get("type") == "image"
    ]


def test_the_agent_finds_a_price_in_the_sale_section_and_answers(session: BrowserSession, shop: Shop) -> None:
    steps = [
        code(f"go_to({shop.url + '/'!r})"),
        code("click('Sale')"),
        code("close_popups()"),
        code("click('Blue Mug')"),
        code("print(search_item_ctrl_f('Price'))"),
        code("go_back()"),
    ]

    def browse(messages: list[Any], **_: Any) -> str:
        done = sum(1 for m in messages if m.role == "assistant" and "Thought: next." in m.text)
        if done < len(steps):
            return steps[done]
        # the model reads the price from what search_item_ctrl_f showed it
        price = re.findall(r"Price: (\$\d+\.\d\d)", " ".join(m.text for m in messages))[0]
        return code(f"final_answer({price!r})")

    model = FunctionModel(browse)
    with make_webagent(model, session, max_steps=10, verbosity_level=-1) as agent:
        answer = agent.run("What does the Blue Mug cost in the shop's sale section?")
    assert answer == "$12.99"
    actions = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    assert [s.error for s in actions] == [None] * len(actions)
    assert "Current url: " + shop.url + "/sale.html" in actions[1].observations
    assert (
        "Found 1 matches for 'Price'. Focused on match 1: 'Price: $12.99 (was $18.00)'"
        in actions[4].observations
    )
    assert "Current url: " + shop.url + "/sale.html" in actions[5].observations  # go_back
    # the model saw a screenshot after each step, and only the latest two are kept
    assert len(images_in(model.calls[1]["messages"])) == 1
    shots = images_in(model.calls[-1]["messages"])
    assert len(shots) == 2 and all(shot.width > 0 and shot.height > 0 for shot in shots)
    assert all(s.observations_images is None for s in actions[:-2])
    ARTIFACTS.mkdir(exist_ok=True)
    shots[-1].save(ARTIFACTS / "webagent_last_screenshot.png")


def test_a_click_on_something_hidden_by_a_popup_or_missing_is_an_observation(
    session: BrowserSession, shop: Shop
) -> None:
    model = ScriptedModel(
        [
            code(f"go_to({shop.url + '/sale.html'!r})"),
            code("click('Checkout')"),
            code("final_answer('gave up')"),
        ]
    )
    with short_waits(session), make_webagent(model, session, max_steps=5, verbosity_level=-1) as agent:
        assert agent.run("Check out") == "gave up"
    error = str(agent.memory.steps[2].error)
    assert "Nothing with the text 'Checkout' to click on this page" in error
    assert "Nothing with the text 'Checkout'" in " ".join(m.text for m in model.calls[2]["messages"])


def test_a_page_that_never_loads_is_a_timeout_the_model_sees(session: BrowserSession, shop: Shop) -> None:
    model = ScriptedModel([code(f"go_to({shop.url + '/slow'!r})"), code("final_answer('the page is down')")])
    with short_waits(session), make_webagent(model, session, max_steps=3, verbosity_level=-1) as agent:
        assert agent.run("Open the slow page") == "the page is down"
    shop.release.set()
    seen = " ".join(m.text for m in model.calls[1]["messages"])
    assert f"The page {shop.url}/slow did not load within 3 seconds" in seen


def test_no_browser_installed_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SMOL_CHROMIUM", raising=False)
    monkeypatch.delenv("SMOL_CHROMEDRIVER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BrowserNotFoundError, match="apt-get install chromium chromium-driver"):
        find_browser()
    monkeypatch.setenv("SMOL_CHROMIUM", str(tmp_path / "no-such-chromium"))
    with pytest.raises(BrowserNotFoundError, match="SMOL_CHROMIUM=.*is not an executable file"):
        find_browser()


def test_the_webagent_command_without_a_browser_exits_with_the_install_hint(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMOL_CHROM")}
    env["PATH"] = str(tmp_path)  # no chromium, no chromedriver
    done = subprocess.run(
        [sys.executable, "-m", "smol_ui_webagent.cli", "Find the price", "--model-type", "scripted"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "webagent: No Chromium or Chrome browser found" in done.stderr
    assert "apt-get install chromium chromium-driver" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_browser_tools_plugin_registers_without_importing_selenium() -> None:
    code = (
        "import sys; from smol_core.plugins.registry import get_registry; "
        "print('browser' in get_registry().names('tools'), 'selenium' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False"]


def test_the_webagent_command_browses_and_prints_the_answer(shop: Shop, tmp_path: Path) -> None:
    if browser_missing():
        pytest.skip(str(browser_missing()))
    pytest.importorskip("smol_model_openai")
    from ui_openai_standin import start_standin

    standin = start_standin()
    standin.reply = code(
        f"go_to({shop.url + '/blue-mug.html'!r})\nfinal_answer(search_item_ctrl_f('Price').split(': ', 1)[1])"
    )
    env = {
        **os.environ,
        "OPENAI_API_KEY": "test-key",
        "SMOL_CHROMIUM": CHROMIUM,
        "SMOL_CHROMEDRIVER": CHROMEDRIVER,
    }
    try:
        done = subprocess.run(
            [
                *[sys.executable, "-m", "smol_ui_webagent.cli"],
                "How much is the Blue Mug?",
                *["--model-type", "openai", "--model-id", "standin", "--api-base", standin.url],
                *["--max-steps", "2", "--page-load-timeout", "10"],
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=240,
            check=False,
        )
    finally:
        standin.close()
    assert done.returncode == 0, done.stderr
    assert "'Price: $12.99 (was $18.00)'" in done.stdout


def test_smolagent_tools_browser_gives_any_agent_the_browser_tools(shop: Shop) -> None:
    if browser_missing():
        pytest.skip(str(browser_missing()))
    from smol_core.loading import load_tools

    os.environ.setdefault("SMOL_CHROMIUM", CHROMIUM)
    os.environ.setdefault("SMOL_CHROMEDRIVER", CHROMEDRIVER)
    tools = {tool.name: tool for tool in load_tools("browser")}
    assert set(tools) == {
        "go_to",
        "click",
        "write",
        "search_item_ctrl_f",
        "go_back",
        "close_popups",
        "scroll",
    }
    try:
        assert "title: 'Red Kettle'" in tools["go_to"](url=shop.url + "/red-kettle.html")
        assert "$39.50" in tools["search_item_ctrl_f"](text="Price")
        tools["go_to"](url=shop.url + "/")
        assert tools["write"](text="mug", into="Search") == "Typed 'mug' into 'Search'."
        driver = tools["go_to"].session.driver
        assert driver.execute_script("return document.getElementById('search').value") == "mug"
        assert tools["scroll"](pixels=-300) == "Scrolled up 300 pixels."
        with pytest.raises(AgentToolExecutionError, match="No text field 'Coupon'"):
            tools["write"](text="x", into="Coupon")
    finally:
        tools["go_to"].session.close()
