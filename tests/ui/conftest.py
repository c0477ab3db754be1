"""Fixtures for the UI tests: one headless Chromium per test session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import browser_missing, start_chromium

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A headless Chromium (Debian's), driven by selenium. Skips where none is installed, unless
    SMOL_REQUIRE_BROWSER=1 (CI, after scripts/setup.d/40-browser.sh), where that is a failure."""
    reason = browser_missing()
    if reason:
        if os.environ.get("SMOL_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    pytest.importorskip("selenium")
    driver = start_chromium(Path(tmp_path_factory.mktemp("chromium-profile")))
    try:
        yield driver
    finally:
        driver.quit()
