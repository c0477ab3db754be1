"""The browser webagent drives: a local Chromium through Selenium, handed to helium.

The browser and its chromedriver are found on this machine (`SMOL_CHROMIUM` / `SMOL_CHROMEDRIVER`,
else the usual names on `PATH`) and the driver is started with that chromedriver explicitly, so
Selenium's own manager never downloads a browser or a driver. A machine without them gets one
error that says what to install.

The browser reaches only what smol's address policy allows: every request it makes goes through a
proxy in the host that applies the policy (`guard_proxy`), and `allow_private_addresses` is the
user's opt-in, as on the web tools.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smol_core.plugin_api import AddressPolicy, AllowSetting, SmolError
from smol_ui_webagent.guard_proxy import GuardProxy

BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
DRIVER_NAMES = ("chromedriver",)
INSTALL_HINT = (
    "Install Chromium and its chromedriver: `apt-get install chromium chromium-driver` on Debian/Ubuntu, "
    "`brew install --cask chromium chromedriver` on macOS; or point SMOL_CHROMIUM and SMOL_CHROMEDRIVER "
    "at the browser and the driver."
)


class BrowserNotFoundError(SmolError):
    """No Chromium (or no chromedriver) on this machine; the message says what to install."""


def _find(env_var: str, names: tuple[str, ...], what: str) -> str:
    chosen = os.environ.get(env_var)
    if chosen:
        if Path(chosen).is_file() and os.access(chosen, os.X_OK):
            return chosen
        raise BrowserNotFoundError(f"{env_var}={chosen} is not an executable file. {INSTALL_HINT}")
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserNotFoundError(f"No {what} found (looked for {', '.join(names)} on PATH). {INSTALL_HINT}")


def find_browser() -> tuple[str, str]:
    """The paths of the Chromium binary and of its chromedriver (BrowserNotFoundError if missing)."""
    return (
        _find("SMOL_CHROMIUM", BROWSER_NAMES, "Chromium or Chrome browser"),
        _find("SMOL_CHROMEDRIVER", DRIVER_NAMES, "chromedriver"),
    )


@dataclass
class BrowserSession:
    """One browser for one agent: started by `start()`, closed by `close()` (or `with`).

    Args:
        headless: No window (the default; a server or CI has no screen).
        page_load_timeout: Seconds a page may take to load before `go_to` reports a timeout.
        find_timeout: Seconds helium waits for an element to appear before it reports it missing.
        window_size: The browser's size, hence the screenshots' size, in pixels.
        allow_private_addresses: What the browser may reach besides public addresses: True for
            everything, or entries such as `"127.0.0.1:8080"`, `"intranet.example"`,
            `"10.0.0.0/8"` (as `VisitWebpageTool`'s; `SMOL_WEB_ALLOW_PRIVATE` adds more).
        launcher: Starts the browser from the prepared Chrome options (policy proxy, profile, flags)
            and returns its driver; by default Selenium with this machine's chromedriver. In smolagents,
            `run_webagent` passes `helium.start_chrome`.
    """

    headless: bool = True
    page_load_timeout: float = 30.0
    find_timeout: float = 5.0
    window_size: tuple[int, int] = (1000, 1350)
    allow_private_addresses: AllowSetting = None
    launcher: Callable[[Any], Any] | None = None
    driver: Any = field(default=None, init=False, repr=False)
    _proxy: GuardProxy | None = field(default=None, init=False, repr=False)
    _profile: tempfile.TemporaryDirectory[str] | None = field(default=None, init=False, repr=False)

    def start(self) -> BrowserSession:
        if self.launcher is None:
            binary, chromedriver = find_browser()
        else:  # the launcher finds the driver; the browser binary is named when this machine has one
            try:
                binary, chromedriver = find_browser()[0], ""
            except BrowserNotFoundError:
                binary, chromedriver = "", ""
        import helium
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self._profile = tempfile.TemporaryDirectory(prefix="smol-webagent-")
        self._proxy = GuardProxy(self.policy).start()
        options = webdriver.ChromeOptions()
        if binary:
            options.binary_location = binary
        flags = [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-pdf-viewer",
            "--force-device-scale-factor=1",
            f"--window-size={self.window_size[0]},{self.window_size[1]}",
            "--window-position=0,0",
            f"--user-data-dir={self._profile.name}",
            *self._proxy.chromium_flags(),
        ]
        if self.headless:
            flags.append("--headless")
        for flag in flags:
            options.add_argument(flag)
        # A page must not write files onto this machine: downloads are blocked (policy 3: all).
        options.add_experimental_option(
            "prefs",
            {
                "download_restrictions": 3,
                "download.prompt_for_download": False,
                "download.default_directory": str(Path(self._profile.name) / "downloads"),
                "profile.default_content_setting_values.automatic_downloads": 2,
            },
        )
        try:
            if self.launcher is not None:
                self.driver = self.launcher(options)
            else:
                self.driver = webdriver.Chrome(service=Service(chromedriver), options=options)
        except Exception as error:
            self._cleanup_profile()
            raise BrowserNotFoundError(
                f"Chromium did not start ({binary}, {chromedriver}): {error}"
            ) from error
        self.driver.set_page_load_timeout(self.page_load_timeout)
        helium.set_driver(self.driver)
        helium.Config.implicit_wait_secs = self.find_timeout
        return self

    @property
    def policy(self) -> AddressPolicy:
        """The addresses this browser may reach (the environment's grants are added at each check)."""
        return AddressPolicy.parse(self.allow_private_addresses)

    @property
    def current_url(self) -> str:
        return str(self.driver.current_url) if self.driver is not None else ""

    def screenshot_png(self) -> bytes:
        return bytes(self.driver.get_screenshot_as_png())

    def close(self) -> None:
        if self.driver is not None:
            import helium

            try:
                self.driver.quit()
            finally:
                self.driver = None
                helium.set_driver(None)
        self._cleanup_profile()

    def _cleanup_profile(self) -> None:
        if self._proxy is not None:
            self._proxy.close()
            self._proxy = None
        if self._profile is not None:
            self._profile.cleanup()
            self._profile = None

    def __enter__(self) -> BrowserSession:
        return self.start() if self.driver is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()
