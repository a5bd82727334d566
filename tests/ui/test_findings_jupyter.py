"""Findings on the chips and the token card in a real JupyterLab: the same as in a saved page (issue 28, items 1-3)."""

from __future__ import annotations

import json
import re

import pytest
from _lab import lab_notebook, run_cell, wait_for_kernel

pytestmark = pytest.mark.browser

STREAM = "prompt_lens/vllm/thinking-bare-2call-pending.json"  # a capture: the scanner's, the lints' and the prompt lens's findings


@pytest.fixture(scope="module")
def lab_page(browser, jupyter_lab):
    """A JupyterLab tab with one replay widget of a bundled capture at its end, and a cell printing its findings."""
    cells = [
        "from harmony_viz import replay\nfrom harmony_viz.data import sample_path\n"
        f"w = replay(sample_path('PROVENANCE.md').parent / {STREAM!r}, step=-1)\nw",
        "import json\nfrom harmony_viz._replay import Lints, stream_findings\n"
        "placed = stream_findings(w.trace, Lints().of(w.trace)[0], w._server)\n"
        "print('PY', json.dumps([[p.code, p.severity, *(p.tokens or (-1, -1))] for p in placed]), w.selected)",
    ]
    ready = "() => document.querySelectorAll('.hv-root [data-hv=token][data-codes]').length > 0"
    yield from lab_notebook(browser, jupyter_lab, "hv_findings.ipynb", cells, ready=ready)


def _python(page) -> tuple[list, int]:
    out = run_cell(page, 1)
    found, selected = re.search(r"PY (\[.*\]) (-?\d+)", out).groups()
    return json.loads(found), int(selected)


def test_the_chips_carry_every_findings_code_in_jupyterlab(lab_page) -> None:
    placed, _ = _python(lab_page)
    n = lab_page.locator(".hv-root [data-hv=token]").count()
    want: dict[int, set[str]] = {}
    for code, _severity, start, end in placed:
        if start < 0:
            continue
        a = min(start, n - 1)
        for t in range(a, max(a + 1, min(end, n))):
            want.setdefault(t, set()).add(code)
    got = lab_page.eval_on_selector_all(".hv-root [data-hv=token][data-codes]", "els => els.map(e => [+e.dataset.i, e.dataset.codes])")
    assert {i: set(codes.split()) for i, codes in got} == want
    rows = lab_page.eval_on_selector_all(".hv-root [data-hv=finding]", "els => els.map(e => e.dataset.code)")
    assert sorted(rows) == sorted(code for code, *_ in placed)
    assert lab_page.errors == []


def test_the_token_card_opens_and_names_the_finding_in_jupyterlab(lab_page) -> None:
    widget = lab_page.locator(".hv-root").first
    chip = widget.locator("[data-hv=token][data-codes~=constrain-missing]").first
    chip.scroll_into_view_if_needed()
    chip.hover()
    card = lab_page.locator("[data-hv=token-card]")  # the card lives on <body>, above the notebook's chrome
    card.wait_for()
    assert card.locator("[data-hv=card-finding][data-code=constrain-missing]").count() >= 1
    # a click selects the token (the kernel hears it), and pins the card; Escape closes it
    i = int(chip.get_attribute("data-i"))
    chip.click()
    lab_page.mouse.move(1, 1)
    assert card.get_attribute("data-pinned") == "true" and f"token #{i} " in card.inner_text()
    out = wait_for_kernel(lab_page, f"return /PY .* {i}\\s*$/.test(out.trim())", cell=1)
    assert out.strip().endswith(f" {i}")
    # running a cell took the focus, and the card went with it; back in the replay, the keys are its own:
    # an arrow moves the selection, not JupyterLab's cell cursor
    assert not card.is_visible()
    widget.press("ArrowRight")
    assert f"token #{i + 1} " in card.inner_text() and widget.locator("[data-hv=token].hv-sel").get_attribute("data-i") == str(i + 1)
    widget.press("Escape")
    assert not card.is_visible() and widget.locator("[data-hv=token].hv-sel").count() == 0
    assert lab_page.errors == []
