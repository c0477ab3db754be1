"""Headless Chromium for the UI tests: Debian's browser and chromedriver, driven by selenium.

Selenium is always handed the system chromedriver and browser binary, so selenium-manager never
tries to download one (nothing here reaches the internet).
"""

from __future__ import annotations

import os
import shutil
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,1400",
    "--force-device-scale-factor=1",
)


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (Path(path).exists() or shutil.which(Path(path).name)):
            return f"{path} is missing: run scripts/setup.d/40-browser.sh (apt-get install chromium chromium-driver)"
    return None


def start_chromium(profile_dir: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile_dir}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    return driver


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(condition: Callable[[], Any], timeout: float = 60.0, what: str = "the condition") -> Any:
    """Poll until `condition()` is truthy; fail with `what` (tests assert behaviour, not timings:
    the timeout only bounds a hang)."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = condition()
        except AssertionError:  # the condition knows it can never hold
            raise
        except Exception as error:  # the page is still rendering
            last_error = error
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(
        f"timed out waiting for {what}" + (f" (last error: {last_error})" if last_error else "")
    )


def screenshot(driver: Any, name: str) -> Path:
    """Save a screenshot under tests/ui/artifacts/ (git-ignored) and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(os.fspath(path))
    return path
