"""A headless Chromium driven by Selenium: the candidate-browser tests
(tests/report/test_browser.py) and the README screenshot
(docs/browser_screenshot.py). Debian's ``chromium`` and
``chromium-driver`` packages provide the browser and the driver (``.ci/run``
installs them); :func:`missing_reason` says why they cannot run."""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
from pathlib import Path

__all__ = ["CHROMIUM_FLAGS", "find_chromium", "missing_reason", "start_chromium", "stop_chromium",
           "page_url", "header_text", "element_text"]

# Flags for a shared build machine: no sandbox (runs as root in CI), no GPU,
# no background network traffic, a fresh profile per run.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync")
_BINARIES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> tuple[str | None, str | None]:
    """(browser binary, chromedriver) found on PATH (None where missing)."""
    browser = next((shutil.which(b) for b in _BINARIES if shutil.which(b)), None)
    return browser, shutil.which("chromedriver")


def missing_reason() -> str | None:
    """Why a real-browser test cannot run here, or None when it can."""
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install -r requirements.txt)"
    browser, driver = find_chromium()
    if browser is None or driver is None:
        return ("no Chromium found: install Debian's chromium and chromium-driver "
                "(apt-get install -y chromium chromium-driver; .ci/run does this)")
    return None


def start_chromium(width: int = 1500, height: int = 1000):
    """A headless Chromium WebDriver with the browser console log enabled and a
    fresh --user-data-dir (removed by :func:`stop_chromium`)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = find_chromium()
    profile = tempfile.mkdtemp(prefix="geomargin-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for flag in CHROMIUM_FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={profile}")
    opts.add_argument(f"--window-size={width},{height}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)
    driver._geomargin_profile = profile
    return driver


def stop_chromium(driver) -> None:
    profile = getattr(driver, "_geomargin_profile", None)
    try:
        driver.quit()
    finally:
        if profile:
            shutil.rmtree(profile, ignore_errors=True)


def page_url(path: str | Path, fragment: str = "") -> str:
    url = Path(path).resolve().as_uri()
    return f"{url}#{fragment}" if fragment else url


def header_text(path: str | Path) -> str:
    """The text of the ``<header>`` of the page at ``path`` as Chromium shows
    it (:func:`element_text`)."""
    return element_text(path, "header")


def element_text(path: str | Path, css: str, fragment: str = "") -> str:
    """The text of the first element matching the CSS selector ``css`` on the
    page at ``path`` (``#fragment`` added: a reaction's page), as Chromium
    shows it. Skips the calling test when Chromium cannot run, and fails it
    instead when ``GEOMARGIN_REQUIRE_BROWSER`` is set (CI)."""
    import os

    import pytest

    reason = missing_reason()
    if reason and os.environ.get("GEOMARGIN_REQUIRE_BROWSER"):
        pytest.fail(f"GEOMARGIN_REQUIRE_BROWSER is set (CI) but {reason}")
    if reason:
        pytest.skip(f"real-browser part skipped: {reason}")
    from selenium.webdriver.common.by import By
    driver = start_chromium()
    try:
        driver.get(page_url(path, fragment))
        return driver.find_element(By.CSS_SELECTOR, css).text
    finally:
        stop_chromium(driver)
