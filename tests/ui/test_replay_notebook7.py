"""The replay widget in a real Jupyter Notebook 7 (issue 35 item 2): draw, step, select, read the traits in the kernel.

As tests/ui/test_replay_jupyter.py does in JupyterLab: a throw-away ``jupyter notebook``
server on 127.0.0.1 (no token, the app exposed as ``window.jupyterapp``), a notebook of one
replay opened at /notebooks/…, every cell run from the page; Python sets ``step`` and the page
follows, clicks in the page reach the kernel's ``step`` and ``selected``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _lab import wait_for_kernel
from _replay_streams import XSS_TEXT
from _serve import jupyter
from conftest import CHROMIUM, _free_port
from playwright.sync_api import expect

from harmony_viz.tokens import encode

pytestmark = pytest.mark.browser

NAME = "hv_replay_nb7.ipynb"


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """A Jupyter Notebook 7 server on 127.0.0.1 (no token) serving a temp folder; yields its url and folder."""
    if not Path(CHROMIUM).exists() and os.environ.get("HARMONY_VIZ_REQUIRE_BROWSER") != "1":
        pytest.skip(f"{CHROMIUM} is missing")
    notebook = pytest.importorskip("notebook")
    assert int(notebook.__version__.split(".")[0]) >= 7, f"Notebook {notebook.__version__} is not Notebook 7"
    root = tmp_path_factory.mktemp("nb7")
    with jupyter("notebook", root, _free_port(), "Notebook 7") as url:
        yield {"url": url, "root": root}


@pytest.fixture(scope="module")
def nb_page(browser, notebook7: dict) -> Iterator[Any]:
    """Notebook 7's page of a notebook with one replay (the hostile stream, two tokens a step), every cell run."""
    import nbformat

    root: Path = notebook7["root"]
    (root / "xss.txt").write_text(XSS_TEXT, encoding="utf-8")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in (
        "from harmony_viz import replay\nw = replay(open('xss.txt').read(), chunking='every:2')\nw",
        "print('PY', w.step, w.selected, w.n_steps)",
        "w.step = 5",
    )]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / NAME)
    context = browser.new_context(viewport={"width": 1400, "height": 1300})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(f"{notebook7['url']}/notebooks/{NAME}")
    page.wait_for_function(
        "(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return !!(w && w.context && w.context.path === name && w.sessionContext); }", arg=NAME, timeout=90_000)
    assert page.evaluate("() => Promise.race([window.jupyterapp.shell.currentWidget.sessionContext.ready.then(() => true),"
                         " new Promise(r => setTimeout(() => r(false), 90000))])"), "the kernel did not start"
    assert page.evaluate("() => window.jupyterapp.name") == "Jupyter Notebook"  # Notebook 7's app, not JupyterLab's
    # Notebook 7.6's own settings loader throws once while the page loads (reading 'schema'), before any cell runs and
    # with no output in the notebook: only what happens from here on is the widget's
    page.errors.clear()
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function("() => { const s = document.querySelector('.hv-root [data-hv=step]'); return s && s.dataset.step === '5'; }",
                           timeout=120_000)
    yield page
    page.evaluate("async () => { const w = window.jupyterapp.shell.currentWidget; if (w && w.sessionContext)"
                  " await Promise.race([w.sessionContext.shutdown(), new Promise(r => setTimeout(r, 20000))]); }")
    context.close()


def _py_state(page: Any, until: str) -> list[str]:
    return re.search(r"PY (.+)", wait_for_kernel(page, until, cell=1)).group(1).split()


def test_the_widget_draws_and_python_sets_the_step(nb_page: Any) -> None:
    widget = nb_page.locator(".hv-root").first
    n = len(encode(XSS_TEXT))
    assert widget.locator("[data-hv=token]").count() == n
    # Python's w.step = 5 reached the page: steps 1..5 of every:2 fed 10 tokens, exactly those chips are not dimmed
    assert widget.locator("[data-hv=step]").get_attribute("data-step") == "5"
    assert widget.locator("[data-hv=token]:not(.hv-dim)").count() == 10
    assert widget.locator("[data-hv-panel]").count() >= 6
    # text is text: the hostile stream's markup is shown, never run
    assert nb_page.evaluate("window.__hv_xss") is None
    assert nb_page.errors == []


def test_steps_and_selection_reach_the_kernel(nb_page: Any) -> None:
    widget = nb_page.locator(".hv-root").first
    widget.locator("[data-hv=next]").click()
    widget.locator("[data-hv=next]").click()
    chip = widget.locator("[data-hv=token][data-i='3']")
    chip.click()
    # the selected token's card is pinned on the page (once the pointer hovers no other chip)
    nb_page.mouse.move(0, 0)
    card = nb_page.locator("[data-hv=token-card]")
    expect(card).to_be_visible()
    assert card.inner_text().startswith(f"token #3 · id {chip.get_attribute('data-id')}")
    step, selected, n_steps = _py_state(nb_page, until="return /PY 7 3 /.test(out)")
    assert (step, selected) == ("7", "3")
    assert int(n_steps) == -(-len(encode(XSS_TEXT)) // 2) + 2
    assert nb_page.errors == []
