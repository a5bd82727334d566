"""One palette, drawn (issue 28 item 6): in chromium, the chips, cards and legend swatches of each page kind are palette.json's.

tests/test_palette.py reads the same pages' stylesheets and figures; here they are drawn and
each colour is read off the element (getComputedStyle), in channel and role mode.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from test_palette import demo, prompt_page, template_page  # noqa: F401  (the pages, made as there)

from harmony_viz import palette

pytestmark = pytest.mark.browser

KINDS = palette.KIND_COLOURS
ROLES = palette.ROLE_COLOURS


_HEX = "c => '#' + c.match(/\\d+/g).slice(0, 3).map(n => (+n).toString(16).padStart(2, '0')).join('').toUpperCase()"


def _open(page: Any, path: Path, ready: str) -> None:
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
    page.goto(path.as_uri())
    page.wait_for_selector(ready)


def _colours(page: Any, selector: str, prop: str, key: str) -> dict[str, str]:
    """``key`` (a JS expression of ``e``) -> the computed ``prop`` of the elements matching ``selector``; each key one colour."""
    pairs = page.eval_on_selector_all(selector, f"els => els.map(e => [{key}, ({_HEX})(getComputedStyle(e)['{prop}'])])")
    out: dict[str, str] = {}
    for k, colour in pairs:
        assert out.setdefault(k, colour) == colour, (selector, k, colour)
    return out


def test_drawn_the_replay_pages_chips_cards_and_legend_are_the_palettes(page, demo, prompt_page: Path) -> None:  # noqa: F811
    _open(page, demo[0], "[data-hv=token]")
    kind_of = "[...e.classList].find(c => c.startsWith('hv-k-')).slice(5)"
    chips = _colours(page, ".hv-tok[data-hv=token]:not(.hv-special):not(.hv-k-none)", "borderBottomColor", kind_of)
    assert {"reasoning", "final", "tool_call", "tool_result"} <= set(chips)
    assert chips == {k: KINDS[k] for k in chips}
    cards = _colours(page, ".hv-card", "borderLeftColor", "e.dataset.kind")
    assert cards and cards == {k: KINDS[k] for k in cards}
    legend = page.eval_on_selector_all("[data-hv=legend] .hv-legend-item", f"els => els.map(e => [e.textContent, ({_HEX})(getComputedStyle(e.firstChild).backgroundColor)])")
    assert legend == [[palette.KIND_LABELS[k], c] for k, c in KINDS.items()]
    page.select_option("[data-hv=colour]", "role")
    role_of = "[...e.classList].find(c => c.startsWith('hv-r-')).slice(5)"
    chips = _colours(page, ".hv-tok[data-hv=token]:not(.hv-special):not(.hv-r-none)", "borderBottomColor", role_of)
    assert {"system", "developer", "user", "assistant"} <= set(chips)
    assert chips == {r: ROLES[r] for r in chips}
    legend = page.eval_on_selector_all("[data-hv=legend] .hv-legend-item", f"els => els.map(e => [e.textContent, ({_HEX})(getComputedStyle(e.firstChild).backgroundColor)])")
    assert legend == [[r, c] for r, c in ROLES.items()]
    assert page.errors == []
    # the server tab's prompt diff
    _open(page, prompt_page, "[data-hv=token]")
    page.click("[data-hv=api-tab-prompt]")
    page.wait_for_selector("[data-hv=diff-token]")
    state = "['insert', 'delete', 'replace'].find(s => e.classList.contains('hv-pg-d-' + s))"
    drawn = _colours(page, "[data-hv=diff-token].hv-pg-d-insert:not(.hv-special), [data-hv=diff-token].hv-pg-d-delete:not(.hv-special), "
                     "[data-hv=diff-token].hv-pg-d-replace:not(.hv-special)", "borderBottomColor", state)
    assert drawn and all(c == palette.DIFF_COLOURS["insert" if s == "insert" else "delete"] for s, c in drawn.items())
    assert page.errors == []


def test_drawn_the_template_page_and_the_playground_are_the_palettes(page, template_page: Path, tmp_path: Path) -> None:  # noqa: F811
    import base64

    from harmony_viz._playground import playground
    from harmony_viz._static import asset_text

    _open(page, template_page, "[data-hv=diff-token]")
    state = "['insert', 'delete', 'replace'].find(s => e.classList.contains('hv-pg-d-' + s))"
    drawn = _colours(page, "[data-hv=diff-token]:not(.hv-special):not(.hv-pg-d-equal)", "borderBottomColor", state)
    assert set(drawn) >= {"replace"} and all(c == palette.DIFF_COLOURS["insert" if s == "insert" else "delete"] for s, c in drawn.items())
    assert page.errors == []
    # the playground widget's bundle, on a page of its own with a stand-in for anywidget's model
    w = playground(preset="tool-call")
    state_json = json.dumps({k: v for k, v in w.get_state().items() if k not in ("replay_widget", "layout")}, default=lambda _: None)
    module = "data:text/javascript;base64," + base64.b64encode(asset_text("playground.js").encode("utf-8")).decode("ascii")
    harness = tmp_path / "playground.html"
    harness.write_text(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>" + asset_text("playground.css").replace("</", "<\\/") + "</style></head>"
        "<body><div id=\"app\"></div><script type=\"module\">\n"
        f"const state = {state_json};\n"
        "const model = { get: k => state[k], set: (k, v) => { state[k] = v; }, on() {}, off() {}, save_changes() {}, send() {} };\n"
        f"const mod = await import({json.dumps(module)});\n"
        "mod.default.render({ model, el: document.getElementById('app') });\n"
        "</script></body></html>", encoding="utf-8")
    page.route(re.compile(r"^(?!(file|data):).*"), lambda route: route.abort())
    page.goto(harness.as_uri())
    page.wait_for_selector(".hv-pg [data-hv=card]")
    cards = _colours(page, ".hv-pg [data-hv=card]", "borderLeftColor", "[...e.classList].find(c => c.startsWith('hv-r-')).slice(5)")
    assert {"system", "developer", "user", "assistant"} <= set(cards) and cards == {r: ROLES[r] for r in cards}
    kind_of = "[...e.classList].find(c => c.startsWith('hv-k-')).slice(5)"
    chips = _colours(page, ".hv-pg [data-hv=tokens] .hv-tok[data-hv=token]:not(.hv-special):not(.hv-k-none)", "borderBottomColor", kind_of)
    assert chips and chips == {k: KINDS[k] for k in chips}
    legend = page.eval_on_selector_all(".hv-pg .hv-legend .hv-legend-item", f"els => els.map(e => [e.textContent, ({_HEX})(getComputedStyle(e.firstChild).backgroundColor)])")
    assert legend == [[palette.KIND_LABELS[k], c] for k, c in KINDS.items()]
    assert page.errors == []
