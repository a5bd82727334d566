"""The replay in marimo (issue 35 item 1): notebooks/09_marimo_tour.py served by a real ``marimo run``, driven in chromium.

``mo.ui.anywidget(hv.replay(...))`` draws the widget; steps and a selection made in the page
reach Python (the tour's cell that reads ``view.value`` runs again and says what it saw), and
a step set in Python (the tour's number field sets ``replay.step``) moves the page. The test
starts the server on 127.0.0.1 in a process group of its own and stops the group (the
server and its kernel) when done. It also writes docs/images/marimo-replay.png.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _serve import serving
from conftest import CHROMIUM, _free_port
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
TOUR = ROOT / "notebooks" / "09_marimo_tour.py"
PICTURE = ROOT / "docs" / "images" / "marimo-replay.png"


@pytest.fixture(scope="module")
def marimo_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``marimo run`` of the tour on a free port of 127.0.0.1 (no token); yields its url."""
    if not Path(CHROMIUM).exists() and os.environ.get("HARMONY_VIZ_REQUIRE_BROWSER") != "1":
        pytest.skip(f"{CHROMIUM} is missing")
    pytest.importorskip("marimo")
    folder = tmp_path_factory.mktemp("marimo")
    port = _free_port()
    env = {**os.environ, "MARIMO_SKIP_UPDATE_CHECK": "1", "HOME": str(folder)}  # no update check, no settings of the user's
    cmd = [sys.executable, "-m", "marimo", "run", str(TOUR), "--headless", "--host", "127.0.0.1", "--port", str(port), "--no-token"]
    url = f"http://127.0.0.1:{port}"
    # a session of its own: stopping its group stops the server and the kernel it starts
    with serving(cmd, cwd=folder, env=env, log=folder / "marimo.log", ready_url=f"{url}/health", what="marimo", own_group=True):
        yield url


@pytest.fixture(scope="module")
def app_page(browser, marimo_app: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(marimo_app)
    page.wait_for_selector("[data-hv=token]", timeout=90_000)
    page.wait_for_selector("text=/Python sees step/", timeout=60_000)
    yield page
    context.close()


def _python_sees(page: Any, pattern: str, timeout_s: float = 30) -> re.Match[str]:
    """Wait until the tour's reactive cell (in marimo's shadow DOM) says what Python saw, matching ``pattern``; return the match."""
    said = page.locator("text=/Python sees step/").first
    deadline = time.monotonic() + timeout_s
    while True:
        text = said.inner_text()
        if (m := re.search(pattern, text)) is not None:
            return m
        if time.monotonic() > deadline:
            raise AssertionError(f"Python's cell says {text!r}, not /{pattern}/")
        page.wait_for_timeout(200)


def test_the_widget_draws_in_a_marimo_app(app_page: Any) -> None:
    from harmony_viz import replay
    from harmony_viz.data import sample_path

    w = replay(sample_path("tool_calling/cities_3_cot_true_trial-1.md"), run=3)
    step = app_page.locator("[data-hv=step]")
    assert step.get_attribute("data-step") == "0" and step.inner_text().startswith(f"step 0 of {w.n_steps - 1}")
    ids = [int(x) for x in app_page.locator("[data-hv=token]").evaluate_all("es => es.slice(0, 40).map(e => e.dataset.id)")]
    assert ids == [int(t) for t in w.trace.tokens[:40]]
    assert app_page.locator("[data-hv-panel]").count() >= 6
    assert app_page.errors == []


def test_steps_and_selection_reach_python_and_python_moves_the_page(app_page: Any) -> None:
    page = app_page
    for _ in range(3):
        page.click("[data-hv=next]")
    assert page.locator("[data-hv=step]").get_attribute("data-step") == "3"
    _python_sees(page, r"Python sees step 3 of")
    page.keyboard.press("End")  # the widget's keys: it has the focus after a click
    last = page.locator("[data-hv=step]").get_attribute("data-step")
    assert int(last) > 300
    _python_sees(page, rf"Python sees step {last} of")
    chip = page.locator("[data-hv=token]").nth(5)  # the chips in view (the pane draws only those)
    i, token_id = chip.get_attribute("data-i"), chip.get_attribute("data-id")
    chip.click()
    _python_sees(page, rf"token #{i} \(id {token_id}\) selected")
    # Python to the page: the tour's number field sets replay.step, and the page follows
    field = page.locator("marimo-number input").first
    field.fill("120")
    field.press("Enter")
    expect(page.locator("[data-hv=step]")).to_have_attribute("data-step", "120", timeout=30_000)  # marimo's shadow DOM: a locator reaches in
    # and the page steps on from there, back to Python
    page.click("[data-hv=next]")
    _python_sees(page, r"Python sees step 121 of")
    assert page.errors == []


def test_picture_of_the_replay_in_marimo(app_page: Any) -> None:
    """docs/images/marimo-replay.png: the tour's replay at its last step (reasoning, three calls and their results, the answer)."""
    page = app_page
    page.locator("[data-hv=root]").focus()
    page.keyboard.press("Escape")  # no selection, no card
    page.keyboard.press("End")
    expect(page.locator("[data-hv=step]")).to_have_attribute("data-step", "400")
    page.mouse.move(0, 0)
    PICTURE.parent.mkdir(parents=True, exist_ok=True)
    page.locator("[data-hv=root]").screenshot(path=str(PICTURE))
    assert PICTURE.stat().st_size > 20_000
