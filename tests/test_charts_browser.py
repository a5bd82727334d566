"""The stats report opens in a real browser with the network cut: every chart draws from the inlined plotly.js."""

from __future__ import annotations

import os
import shutil

import pytest

from harmony_viz.charts import save_report
from harmony_viz.data import sample_path

pytestmark = pytest.mark.browser


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("HARMONY_VIZ_REQUIRE_BROWSER") == "1":
            pytest.fail("HARMONY_VIZ_REQUIRE_BROWSER=1 but no chromium on PATH; apt-get install chromium")
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    return path


def test_report_draws_every_chart_offline(tmp_path):
    executable = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    report = save_report(
        [sample_path("findings-tournament.json"), sample_path("rft_outputs.jsonl")], tmp_path / "report.html", progress=False
    )
    requests: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.route("**/*", lambda route: (requests.append(route.request.url), route.continue_() if route.request.url.startswith("file:") else route.abort()))
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(report.as_uri())
            page.wait_for_function("[...document.querySelectorAll('.plotly-graph-div')].filter(d => d._fullLayout && d.querySelector('.main-svg')).length == 5", timeout=30_000)
            drawn = page.evaluate("[...document.querySelectorAll('.plotly-graph-div')].map(d => d._fullData.length)")
            titles = page.evaluate("[...document.querySelectorAll('.plotly-graph-div')].map(d => d._fullLayout.title.text)")
        finally:
            browser.close()
    assert errors == []
    assert [u for u in requests if not u.startswith("file:")] == []
    assert len(drawn) == 5 and all(n >= 1 for n in drawn)
    assert titles[0].startswith("Share of output tokens by kind") and titles[-1].startswith("Diagnostics by code")
