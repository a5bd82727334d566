"""Browser fixtures: Debian's chromium through Playwright, a saved replay page, and a real JupyterLab.

Tests here are marked ``browser``. Without /usr/bin/chromium they skip, unless
HARMONY_VIZ_REQUIRE_BROWSER=1 (CI) makes that a failure.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from _serve import jupyter

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """A headless chromium (Debian's; Playwright's own download needs the network)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("HARMONY_VIZ_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{CHROMIUM} is missing and HARMONY_VIZ_REQUIRE_BROWSER=1; install it with `apt-get install chromium`")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); set HARMONY_VIZ_REQUIRE_BROWSER=1 to fail instead")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser) -> Iterator[object]:
    """A fresh tab that records console errors and page errors."""
    context = browser.new_context(viewport={"width": 1400, "height": 950})
    pg = context.new_page()
    pg.errors = []  # type: ignore[attr-defined]
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))  # type: ignore[attr-defined]
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)  # type: ignore[attr-defined]
    yield pg
    context.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def jupyter_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """A JupyterLab server on 127.0.0.1 (no token) serving a temp folder; yields its url and folder."""
    if not Path(CHROMIUM).exists() and os.environ.get("HARMONY_VIZ_REQUIRE_BROWSER") != "1":
        pytest.skip(f"{CHROMIUM} is missing")
    root = tmp_path_factory.mktemp("lab")
    settings = root / ".settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    # no "get news?" pop-up and no update check: they cover the notebook and reach for the network
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True}), encoding="utf-8")
    with jupyter("lab", root, _free_port(), "JupyterLab") as url:
        yield {"url": url, "root": root}

