"""An accessibility audit (issue 35 item 5): axe-core, the WCAG checks browsers' own audits run, in chromium.

axe-core is js/package.json's pinned dev dependency (``cd js && npm install``); its
``axe.min.js`` is put into each page with Playwright's ``add_script_tag`` and ``axe.run()``
reads the page as drawn. No page may have a serious or critical violation: the replay page
(``harmony-viz demo``, in the states a reader puts it in: an early step, role colours, a
token's card, the findings filtered, each API tab), the stats page, the playground and the
conformance matrix (through ``harmony-viz conformance --merge … --html``, whatever the
page is written in). Beside the audit: the chips' pane is reached with Tab and shows its
focus, and channel and role are told by a line pattern as well as a colour.
"""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from test_palette import demo, template_page  # noqa: F401  (harmony-viz demo's two pages and a chat-template page, made as there)

from harmony_viz import palette
from harmony_viz.cli import main

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "js" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
# a stream with every severity of finding: an unended message (error), a call with no recipient (warning), a bad channel
FAULTY = ("<|start|>assistant<|channel|>analysis<|message|>thinking<|start|>assistant<|channel|>final<|message|>hi<|call|>"
          "<|start|>assistant<|channel|>nonsense<|message|>x<|end|>")


@pytest.fixture(scope="module")
def axe_source() -> Path:
    """axe.min.js as js/package.json pins it (npm install puts it there)."""
    if not AXE.is_file():
        why = f"{AXE} is missing: run `cd js && npm install`"
        if os.environ.get("HARMONY_VIZ_REQUIRE_BROWSER") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return AXE


def _open(page: Any, path: Path, ready: str) -> None:
    page.route(re.compile(r"^(?!(file|data):).*"), lambda route: route.abort())  # the pages work offline
    page.goto(path.as_uri())
    page.wait_for_selector(ready)


def audit(page: Any, axe: Path, context: str | None = None, index: int = 0) -> dict[str, list[str]]:
    """axe's serious and critical violations on the page as drawn (or inside the ``index``-th ``context``): rule id -> the nodes, with why."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(axe))
    found = page.evaluate(
        """async ([context, index, blocking]) => {
            const r = await axe.run(context ? document.querySelectorAll(context)[index] : document, { resultTypes: ['violations'] });
            return r.violations.filter(v => blocking.includes(v.impact))
                .map(v => [v.id + '/' + v.impact, v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary.replace(/\\s+/g, ' '))]);
        }""",
        [context, index, list(BLOCKING)],
    )
    return dict(found)


def test_the_pinned_axe_runs_and_sees_a_violation(page, axe_source: Path, tmp_path: Path) -> None:
    """The audit itself: the version js/package.json pins, and a page with an unnamed control fails it."""
    pinned = json.loads((ROOT / "js" / "package.json").read_text(encoding="utf-8"))["devDependencies"]["axe-core"]
    assert re.fullmatch(r"4\.14\.\d+", pinned), f"axe-core must be pinned exactly to a 4.14 release, not {pinned!r}"
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><main><h1>t</h1>'
                   '<select title="only a title"><option>a</option></select>'
                   '<p style="color:#E69F00;background:#fff">orange text</p></main></body></html>', encoding="utf-8")
    _open(page, bad, "select")
    found = audit(page, axe_source)
    assert page.evaluate("() => axe.version") == pinned
    assert set(found) == {"label-title-only/serious", "color-contrast/serious"}, found


def test_replay_page_has_no_serious_violation(page, demo: tuple[Path, Path], axe_source: Path) -> None:  # noqa: F811
    replay, _ = demo
    _open(page, replay, "[data-hv=token]")
    seen: dict[str, dict[str, list[str]]] = {"at the last step": audit(page, axe_source)}
    # an early step: most chips not fed yet (drawn muted, still readable)
    page.evaluate("() => window.harmonyViz.view.goTo(3)")
    page.wait_for_selector("[data-hv=token].hv-dim")
    seen["at step 3"] = audit(page, axe_source)
    page.evaluate("() => window.harmonyViz.view.goTo(1e9)")
    page.select_option("[data-hv=colour]", "role")
    page.check("[data-hv=whitespace]")
    page.click("[data-hv=token] >> nth=5")
    page.wait_for_selector("[data-hv=token-card]")
    seen["role colours, whitespace, a token's card"] = audit(page, axe_source)
    for tab in page.eval_on_selector_all(".hv-tab", "bs => bs.map(b => b.dataset.tab)"):
        page.click(f".hv-tab[data-tab='{tab}']")
        seen[f"API tab {tab}"] = audit(page, axe_source)
    assert {what: v for what, v in seen.items() if v} == {}


def test_replay_page_with_every_severity_has_no_serious_violation(page, axe_source: Path, tmp_path: Path) -> None:
    """Errors, warnings and the findings filter: severity text and the toggles switched off keep their contrast."""
    from harmony_viz import save_html

    _open(page, save_html(FAULTY, tmp_path / "faulty.html"), "[data-hv=token]")
    sevs = page.eval_on_selector_all("[data-hv=findings] .hv-diag", "ds => [...new Set(ds.map(d => d.className.match(/hv-sev-(\\w+)/)[1]))]")
    assert {"error", "warning"} <= set(sevs)
    seen = {"findings": audit(page, axe_source)}
    for sev in ("error", "warning"):  # a token's card lists its findings, each severity in its colour
        page.click(f"[data-hv=token][data-severity={sev}] >> nth=0")
        page.wait_for_selector(f"[data-hv=token-card] .hv-sev-{sev}")
        seen[f"the card of a token with an {sev}"] = audit(page, axe_source)
    page.keyboard.press("Escape")
    toggles = page.locator("[data-hv=findings] .hv-fd-toggle")
    assert toggles.count() >= 2
    for i in range(toggles.count()):
        toggles.nth(i).click()
    assert page.eval_on_selector_all(".hv-fd-toggle", "ts => ts.every(t => t.getAttribute('aria-pressed') === 'false')")
    seen["every filter off"] = audit(page, axe_source)
    assert {what: v for what, v in seen.items() if v} == {}


def test_stats_page_has_no_serious_violation(page, demo: tuple[Path, Path], axe_source: Path) -> None:  # noqa: F811
    _, stats = demo
    _open(page, stats, ".plotly")
    assert audit(page, axe_source) == {}


def playground_page(folder: Path, **kwargs: Any) -> Path:
    """The playground widget's bundle on a page of its own, its state Python's, with a stand-in for anywidget's model."""
    from harmony_viz._playground import playground
    from harmony_viz._static import asset_text

    w = playground(preset="tool-call", **kwargs)
    state = json.dumps({k: v for k, v in w.get_state().items() if k not in ("replay_widget", "layout")}, default=lambda _: None)
    module = "data:text/javascript;base64," + base64.b64encode(asset_text("playground.js").encode("utf-8")).decode("ascii")
    out = folder / "playground.html"
    out.write_text(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>playground</title><style>'
        + asset_text("playground.css").replace("</", "<\\/") + '</style></head><body><div id="app"></div><script type="module">\n'
        f"const state = {state};\n"
        "const model = { get: k => state[k], set: (k, v) => { state[k] = v; }, on() {}, off() {}, save_changes() {}, send() {} };\n"
        f"const mod = await import({json.dumps(module)});\n"
        "mod.default.render({ model, el: document.getElementById('app') });\n"
        "</script></body></html>", encoding="utf-8")
    return out


def test_playground_has_no_serious_violation(page, axe_source: Path, tmp_path: Path) -> None:
    _open(page, playground_page(tmp_path), ".hv-pg [data-hv=card]")
    assert audit(page, axe_source, ".hv-pg") == {}


def test_chat_template_page_has_no_serious_violation(page, template_page: Path, axe_source: Path) -> None:  # noqa: F811
    """The playground's render diff on a page of its own (``harmony-viz html --template``)."""
    _open(page, template_page, "[data-hv=diff-token]")
    assert audit(page, axe_source) == {}


def test_conformance_matrix_has_no_serious_violation(page, axe_source: Path, tmp_path: Path) -> None:
    """The shipped reports of every engine merged into one matrix, as the command line writes it."""
    reports = sorted(str(p) for p in (ROOT / "docs" / "conformance" / "reports").glob("*.json.gz"))
    assert len(reports) >= 4
    out = tmp_path / "matrix.html"
    assert main(["conformance", "--merge", *reports, "--html", str(out)]) == 0
    _open(page, out, "[data-hv=matrix]")
    assert audit(page, axe_source) == {}


def test_the_chips_pane_is_reached_by_keyboard_and_shows_its_focus(page, demo: tuple[Path, Path]) -> None:  # noqa: F811
    replay, _ = demo
    _open(page, replay, "[data-hv=token]")
    page.focus("[data-hv=root]")
    for _ in range(40):  # Tab from the replay's root until the chips' pane holds the focus
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.dataset.hv") == "tokens":
            break
    else:
        raise AssertionError("Tab never reached the chips' pane")
    pane = page.locator("[data-hv=tokens]")
    assert pane.get_attribute("aria-label") == "tokens" and pane.get_attribute("role") == "region"
    ring = pane.evaluate("e => { const s = getComputedStyle(e); return [s.outlineStyle, parseFloat(s.outlineWidth)]; }")
    assert ring[0] == "solid" and ring[1] >= 2, ring
    # focused, the arrows scroll it (the replay's keys step only where a token is selected or with h / l)
    page.evaluate("() => { document.querySelector('[data-hv=tokens]').scrollTop = 0; }")
    page.keyboard.press("PageDown")
    page.wait_for_function("() => document.querySelector('[data-hv=tokens]').scrollTop > 0", timeout=5_000)  # scrolling may be animated
    # every scrolling panel body is a named stop for the keyboard
    bodies = page.eval_on_selector_all(".hv-panel-body", "bs => bs.map(b => [b.tabIndex, b.getAttribute('aria-label')])")
    assert bodies and all(t == 0 and name for t, name in bodies), bodies


PATTERN = "e => { const s = getComputedStyle(e); return [s.borderBottomStyle, s.borderBottomWidth, s.borderTopWidth].join(' '); }"


@pytest.mark.parametrize("mode", ["channel", "role"])
def test_channel_and_role_have_a_pattern_not_only_a_colour(page, demo: tuple[Path, Path], mode: str) -> None:  # noqa: F811
    """Each channel (or role) draws its chips' line in a pattern of its own; the legend's swatches show the same ones."""
    replay, _ = demo
    _open(page, replay, "[data-hv=token]")
    page.select_option("[data-hv=colour]", mode)
    prefix, names = ("hv-k-", palette.KIND_COLOURS) if mode == "channel" else ("hv-r-", palette.ROLE_COLOURS)
    key = f"[...e.classList].find(c => c.startsWith('{prefix}')).slice({len(prefix)})"
    chips = page.eval_on_selector_all(
        f"[data-hv=token]:not(.hv-special):not({'.hv-k-none' if mode == 'channel' else '.hv-r-none'})", f"es => es.map(e => [{key}, ({PATTERN})(e)])")
    drawn: dict[str, str] = {}
    for k, pattern in chips:
        assert drawn.setdefault(k, pattern) == pattern, (k, pattern, drawn[k])
    assert len(drawn) >= 3 and len(set(drawn.values())) == len(drawn), drawn
    swatches = dict(page.eval_on_selector_all("[data-hv=legend] .hv-swatch", f"es => es.map(e => [{key}, ({PATTERN})(e)])"))
    assert set(swatches) == set(names) and len(set(swatches.values())) == len(names), swatches
    # the swatch's line is the chips' line (its colour aside)
    assert {k: swatches[k] for k in drawn} == drawn
