"""Each notebook run in a real JupyterLab: every cell runs, its widget or chart draws, and docs/notebook_0N.png is saved.

The screenshots are the ones the README shows next to the links to the notebooks.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _lab import open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# notebook -> the output that its screenshot shows: (selector, which match); the cell holding it is shown.
# Notebook 02's first replays are red-team runs: its screenshot shows the bug catalogue's replay (a
# doubled channel header from llama.cpp#27720), clean content for the README.
SHOTS = {
    "01_harmony_tour.ipynb": (".hv-root", 0),
    "02_diagnose_parser_bugs.ipynb": (".hv-root", 2),
    "03_real_runs.ipynb": (".js-plotly-plot", 0),
    "04_record_gpt_oss.ipynb": (".hv-root", 0),
}

_DONE = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const cells = panel.content.widgets.filter(c => c.model.type === 'code');
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    return kernel && kernel.status === 'idle' && cells.every(c => c.model.executionCount !== null);
}"""

_ERRORS = """() => window.jupyterapp.shell.currentWidget.content.widgets
    .filter(c => c.model.type === 'code')
    .flatMap(c => c.model.outputs.toJSON())
    .filter(o => o.output_type === 'error')
    .map(o => o.ename + ': ' + o.evalue)"""

_SHUTDOWN = """async () => {
    const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    if (w && w.sessionContext) await Promise.race([w.sessionContext.shutdown(), new Promise(r => setTimeout(r, 20000))]);
}"""


@pytest.fixture(scope="module")
def lab_root(jupyter_lab) -> Path:
    """The lab's folder, with every cell of a notebook kept in the page (no windowing), so outputs far down exist."""
    root: Path = jupyter_lab["root"]
    settings = root / ".settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}), encoding="utf-8")
    return root


@pytest.mark.parametrize("name", sorted(SHOTS))
def test_notebook_runs_in_jupyterlab_and_draws(name: str, browser, jupyter_lab, lab_root: Path) -> None:
    shutil.copy(ROOT / "notebooks" / name, lab_root / name)
    context = browser.new_context(viewport={"width": 1400, "height": 1200})
    page = context.new_page()
    page_errors: list[str] = []
    page.on("pageerror", lambda e: page_errors.append(str(e)))
    try:
        # ?reset: a fresh workspace, so notebooks opened by earlier tests are not restored beside this one
        open_notebook(page, jupyter_lab, name)
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_function(_DONE, timeout=300_000, polling=1000)
        assert page.evaluate(_ERRORS) == []
        panel = page.locator("#" + page.evaluate("() => window.jupyterapp.shell.currentWidget.id"))
        selector, nth = SHOTS[name]
        target = panel.locator(selector).nth(nth)
        target.wait_for(state="visible", timeout=60_000)
        cell = panel.locator(".jp-CodeCell", has=page.locator(selector)).nth(nth)
        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")  # the file browser only takes room
        cell.evaluate("el => el.scrollIntoView({block: 'start'})")
        page.wait_for_timeout(1000)  # let the widget finish its first layout and the chart its transition
        assert target.bounding_box()["height"] > 100, f"{selector} in {name} drew nothing"
        DOCS.mkdir(exist_ok=True)
        page.screenshot(path=str(DOCS / f"notebook_{name[:2]}.png"))
        assert not page_errors, page_errors
    finally:
        # stop this notebook's kernel, so the next notebook does not share the CPU with it; a page
        # that is already broken must not hide the failure above, hence the catch
        try:
            page.evaluate(_SHUTDOWN)
        except Exception as exc:  # noqa: BLE001
            print(f"could not stop the kernel of {name}: {exc}")
        context.close()
