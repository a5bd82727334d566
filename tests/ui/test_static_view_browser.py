"""A saved notebook read without a kernel (issue 35 item 4): nbconvert's HTML, opened with JavaScript off.

A notebook of one ``hv.replay(...)`` of a bundled real transcript is executed by nbclient (a
real kernel), saved as JupyterLab saves one by default (without the widget state, so nbconvert
falls back from the widget view to the text/html beside it), converted by nbconvert's
HTMLExporter and opened in Debian's chromium with JavaScript disabled: the chips (one per
token, the live classes, drawn by the inlined stylesheet as the live chips are), the final
answer and the findings are there. The live chips on a saved page look the same, and in a
real JupyterLab the widget draws alone, without the static view beside it. Also writes
docs/images/replay-static.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from _lab import lab_notebook
from test_accessibility import audit, axe_source  # noqa: F401  (axe_source: the fixture, used by name)

import harmony_viz as hv
from harmony_viz.data import sample_path

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PICTURE = ROOT / "docs" / "images" / "replay-static.png"
SAMPLE = "finding5_runs/helpful-1.json"
CELL = f"import harmony_viz as hv\nfrom harmony_viz.data import sample_path\nhv.replay(sample_path({SAMPLE!r}))"
STYLE = "(el) => { const s = getComputedStyle(el); return [s.backgroundColor, s.color, s.borderBottomStyle, s.borderBottomWidth, s.fontWeight]; }"


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The notebook executed by nbclient and converted by nbconvert: its HTML file and what the kernel replayed."""
    import nbclient
    import nbformat
    from nbconvert import HTMLExporter

    folder = tmp_path_factory.mktemp("static")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# A replay, read without a kernel"), nbformat.v4.new_code_cell(CELL)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    # store_widget_state=False: the notebook as JupyterLab saves it by default (its "save widget state" is off)
    nbclient.NotebookClient(nb, timeout=180, kernel_name="python3", store_widget_state=False, resources={"metadata": {"path": str(folder)}}).execute()
    nbformat.write(nb, folder / "replay.ipynb")
    outputs = nb.cells[1].outputs
    html, _ = HTMLExporter().from_notebook_node(nb)
    path = folder / "replay.html"
    path.write_text(html, encoding="utf-8")
    w = hv.replay(sample_path(SAMPLE))
    expected = {"n": int(w.trace.tokens.size), "answer": w.trace.messages[-1].text, "messages": len(w.trace.messages)}
    w.close()
    return {"html": path, "outputs": outputs, **expected}


@pytest.fixture
def no_js(browser) -> Iterator[object]:
    """A tab with JavaScript disabled, as a reader that strips scripts shows the page."""
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1200, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def test_the_saved_output_carries_the_widget_view_and_the_static_view(converted) -> None:
    [out] = [o for o in converted["outputs"] if o.output_type == "execute_result"]
    assert {"application/vnd.jupyter.widget-view+json", "text/html", "text/plain"} <= set(out.data)
    assert 'data-hv="static-view"' in out.data["text/html"]


def test_nbconvert_html_without_javascript_shows_the_chips_the_answer_and_the_findings(converted, no_js) -> None:
    page = no_js
    page.goto(converted["html"].as_uri())
    view = page.locator("[data-hv=static-view]")
    assert view.count() == 1
    chips = page.locator("[data-hv=token]")
    assert chips.count() == converted["n"] == 351
    for cls in ("hv-k-reasoning", "hv-k-final", "hv-k-other", "hv-r-assistant", "hv-r-user", "hv-r-system", "hv-special"):
        assert page.locator(f"[data-hv=token].{cls}").count() > 0, cls
    # the inlined stylesheet draws them: reasoning and final chips differ in fill and in line pattern (dashed, thick)
    reasoning = page.locator("[data-hv=token].hv-k-reasoning:not(.hv-special):not(.hv-header)").first.evaluate(STYLE)
    final = page.locator("[data-hv=token].hv-k-final.hv-r-assistant:not(.hv-special):not(.hv-header)").last.evaluate(STYLE)
    assert reasoning[0] != final[0] and reasoning[0] != "rgba(0, 0, 0, 0)"
    assert (reasoning[2], final[2], final[3]) == ("dashed", "solid", "3px")
    # findings underline their chips (the live ::after marks) and are listed with their codes
    assert page.locator("[data-hv=token][data-severity=warning]").count() > 0
    codes = page.locator("[data-hv=finding]").evaluate_all("els => els.map(e => e.dataset.code)")
    assert codes.count("missing-channel") == 2 and "stop-token" in codes and "eos-in-message" in codes
    answer = page.locator("[data-hv=final-answer]")
    assert answer.inner_text() == converted["answer"] and answer.is_visible()
    assert page.locator("[data-hv=message]").count() == converted["messages"]
    box = page.locator("[data-hv=tokens]")
    assert box.get_attribute("role") == "region" and box.get_attribute("aria-label") and box.get_attribute("tabindex") == "0"
    # nothing live was drawn: without JavaScript there is only the static view
    assert page.locator(".hv-root:not(.hv-static)").count() == 0
    PICTURE.parent.mkdir(parents=True, exist_ok=True)
    view.screenshot(path=str(PICTURE))


def test_the_static_chips_look_like_the_live_ones(converted, no_js, page, tmp_path: Path) -> None:
    """The same tokens on a saved replay page (the live view, drawn by its script) and in the static view: the same look.

    The static view alone on a page (as a reader that keeps no notebook styles shows it), so both take the same
    fallback colours; in nbconvert's HTML both would take JupyterLab's theme variables.
    """
    live = hv.replay(sample_path(SAMPLE))
    saved = live.save_html(tmp_path / "live.html")
    fragment = live.static_html()
    live.close()
    page.goto(saved.as_uri())
    page.wait_for_selector("[data-hv=token]")
    no_js.set_content(f"<!doctype html><html><head><meta charset='utf-8'></head><body>{fragment}</body></html>")
    n = converted["n"]
    # the answer's tokens, in view on a page that opens at the end of the stream; and the first special token
    for t in (n - 3, n - 2, 0):
        a = page.locator(f"[data-hv=token][data-i='{t}']")
        if a.count() == 0:
            page.locator("[data-hv=tokens]").evaluate("el => el.scrollTop = 0")
            page.wait_for_selector(f"[data-hv=token][data-i='{t}']")
        live_style = a.evaluate(STYLE)
        static_style = no_js.locator("[data-hv=token]").nth(t).evaluate(STYLE)
        assert static_style == live_style, t
        assert no_js.locator("[data-hv=token]").nth(t).inner_text() == a.inner_text()


def test_axe_finds_no_serious_violation_in_the_static_view(converted, page, axe_source: Path) -> None:
    """The nbconvert page with JavaScript on (the view has no script: it is drawn the same), audited by axe-core."""
    page.route(re.compile(r"^(?!(file|data):).*"), lambda route: route.abort())  # offline, as a saved page is read
    page.goto(converted["html"].as_uri())
    page.wait_for_selector("[data-hv=static-view] [data-hv=token]")
    assert page.locator(".hv-root:not(.hv-static)").count() == 0
    assert audit(page, axe_source, "[data-hv=static-view]") == {}


@pytest.fixture
def lab_replay(browser, jupyter_lab) -> Iterator[object]:
    yield from lab_notebook(browser, jupyter_lab, "hv_static_lab.ipynb", [CELL],
                            ready="() => document.querySelectorAll('.hv-root:not(.hv-static) [data-hv=token]').length > 0")


def test_jupyterlab_draws_the_widget_alone(lab_replay) -> None:
    page = lab_replay
    page.wait_for_timeout(500)  # any second rendering of the output would be in by now
    assert page.locator(".hv-root:not(.hv-static)").count() == 1
    assert page.locator("[data-hv=static-view]").count() == 0
