"""The scoreboard in a real browser: headless Chromium (Debian's `chromium` and
`chromium-driver`, which .ci/run installs) driven by selenium on a running service.

The page's numbers must be the engine's, the page must change by itself when an event is
appended to the log, and the TV (1920x1080) and phone (390 px) layouts are kept as golden
screenshots in tests/web/golden/, compared loosely (same size, few pixels different: the
fonts of another machine differ). After an intended change of the page, regenerate them:

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/web/test_browser.py
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Iterator

import pytest
from PIL import Image, ImageChops

from tests.web.conftest import LiveServer
from tests.web.support import Recorder

webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install -e '.[dev]')")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
LAYOUTS = {"tv": (1920, 1080, False), "phone": (390, 844, True)}
# A pixel differs when a channel is off by more than this; at most this share of them may.
PIXEL_TOLERANCE = 60
DIFFERENT_SHARE = 0.06


def browser_paths() -> tuple[str, str]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        pytest.skip("needs headless Chromium: apt install chromium chromium-driver (.ci/run installs them)")
    return chromium, driver


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    chromium, driver = browser_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                     "--disable-dev-shm-usage", "--force-device-scale-factor=1", "--lang=en"):
        options.add_argument(argument)
    chrome = webdriver.Chrome(service=Service(driver), options=options)
    try:
        yield chrome
    finally:
        chrome.quit()


def show(browser: webdriver.Chrome, url: str, layout: str) -> None:
    width, height, mobile = LAYOUTS[layout]
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    browser.get(url)
    wait_for(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-version") not in (None, ""))


def wait_for(condition: object, timeout: float = 10.0) -> float:
    """Seconds until `condition()` held; fails after `timeout`."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if condition():  # type: ignore[operator]
            return time.monotonic() - started
        time.sleep(0.02)
    raise AssertionError("the page did not get there in time")


def page_totals(browser: webdriver.Chrome) -> list[int]:
    cells = browser.find_elements(By.CSS_SELECTOR, "#sheet tfoot td[data-total]")
    return [int(cell.text) for cell in cells]


def test_the_pages_numbers_are_the_engines_and_follow_the_log(browser: webdriver.Chrome, live: LiveServer,
                                                              recorded: Recorder) -> None:
    show(browser, live.url, "tv")
    state = recorded.state
    assert page_totals(browser) == list(state.totals)
    for cell in browser.find_elements(By.CSS_SELECTOR, "#sheet tbody td[data-category]"):
        mark = state.sheets[int(cell.get_attribute("data-player"))][cell.get_attribute("data-category")]
        assert cell.text == ("" if mark is None else "X" if mark.scratched else str(mark.points))
    dice = [int(d.get_attribute("data-value")) for d in browser.find_elements(By.CSS_SELECTOR, "#dice .die")]
    assert dice == list(state.turn.dice)
    status = browser.find_element(By.ID, "status").text
    assert state.players[state.turn.player] in status

    version = browser.find_element(By.TAG_NAME, "body").get_attribute("data-version")
    recorded.score_best()
    after = recorded.state
    waited = wait_for(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-version") != version)
    assert waited < 2.0, waited
    assert page_totals(browser) == list(after.totals)
    assert after.players[after.turn.player] in browser.find_element(By.ID, "status").text


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_layouts_match_their_golden_screenshots(browser: webdriver.Chrome, live: LiveServer, layout: str,
                                                tmp_path: Path) -> None:
    show(browser, live.url, layout)
    time.sleep(0.5)  # the snapshot image
    shot = tmp_path / f"{layout}.png"
    browser.save_screenshot(str(shot))
    width, height, _ = LAYOUTS[layout]
    # Nothing sticks out sideways: the phone layout fits its 390 px.
    assert browser.execute_script("return document.documentElement.scrollWidth") <= width
    golden = GOLDEN / f"{layout}.png"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        shutil.copyfile(shot, golden)
    if not golden.exists():
        pytest.fail(f"no golden screenshot {golden}: make it with UPDATE_GOLDEN=1")
    got, want = Image.open(shot).convert("RGB"), Image.open(golden).convert("RGB")
    assert got.size == want.size == (width, height)
    difference = ImageChops.difference(got, want).convert("L").point(lambda v: 255 if v > PIXEL_TOLERANCE else 0)
    share = difference.histogram()[255] / (width * height)
    assert share <= DIFFERENT_SHARE, f"{share:.1%} of the pixels differ from {golden}; look at {shot}"
