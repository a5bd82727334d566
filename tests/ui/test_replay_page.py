"""The saved replay page in headless chromium, opened from file:// with no kernel and no network."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _replay_streams import XSS_TEXT, finding5

from harmony_viz._replay import ApiViews, page_html
from harmony_viz.inputs import read
from harmony_viz.trace import Trace

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def xss_trace() -> Trace:
    """The hostile stream, one token per step."""
    return Trace.build(read(XSS_TEXT).stream().ids, "token")


def _open(page, trace: Trace, tmp_path: Path, step: int = 0, name: str = "replay.html"):
    """The page of ``trace`` opened at ``step`` (0 unless given: most checks start before anything is fed)."""
    path = tmp_path / name
    path.write_text(page_html(trace, step=step), encoding="utf-8")
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())  # any network request fails the page
    page.goto(path.as_uri())
    page.wait_for_selector("[data-hv=token]")
    return page


def _step(page) -> int:
    return int(page.get_attribute("[data-hv=step]", "data-step"))


def test_page_opens_with_every_token_visible_and_dimmed(page, xss_trace: Trace, tmp_path: Path) -> None:
    _open(page, xss_trace, tmp_path)
    assert page.inner_text("[data-hv=step]") == f"step 0 of {xss_trace.n_steps - 1} · 0 tokens fed"
    chips = page.locator("[data-hv=token]")
    assert chips.count() == xss_trace.tokens.size  # small stream: all rows fit, all drawn
    assert page.locator("[data-hv=token].hv-dim").count() == xss_trace.tokens.size
    assert page.locator("[data-hv=token]").first.is_visible()
    page.click("[data-hv=last]")
    assert page.inner_text("[data-hv=step]") == f"step {xss_trace.n_steps - 1} of {xss_trace.n_steps - 1} · {xss_trace.tokens.size} tokens fed · end of stream"
    assert page.errors == []


def test_token_hooks_carry_id_role_and_channel(page, xss_trace: Trace, tmp_path: Path) -> None:
    _open(page, xss_trace, tmp_path)
    got = page.eval_on_selector_all("[data-hv=token]", "els => els.map(e => [+e.dataset.i, +e.dataset.id, e.dataset.role, e.dataset.channel])")
    got.sort()
    owner = {}
    for m in xss_trace.messages:
        for t in range(m.start, m.end if m.end is not None else xss_trace.steps[-1].end):
            owner[t] = m
    expected = [[t, int(i), owner[t].role if t in owner else "", (owner[t].channel or "") if t in owner else ""]
                for t, i in enumerate(xss_trace.tokens.tolist())]
    assert got == expected


def test_stepping_updates_the_panels(page, xss_trace: Trace, tmp_path: Path) -> None:
    _open(page, xss_trace, tmp_path)
    for _ in range(4):
        page.click("[data-hv=next]")
    page.click("[data-hv=prev]")
    assert _step(page) == 3
    snap = xss_trace.steps[3].snapshot
    state = page.inner_text("[data-hv=state]")
    assert re.search(rf"state\s+{snap.state}", state) and re.search(rf"position\s+{snap.position}", state)
    types = page.eval_on_selector_all("[data-hv=events] .hv-ev", "els => els.map(e => e.dataset.type)")
    assert types == [type(e).__name__ for e in xss_trace.steps[3].events]
    # keyboard: End, then Home, then → → on the focused widget
    page.focus("[data-hv=root]")
    page.keyboard.press("End")
    assert _step(page) == xss_trace.n_steps - 1
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert _step(page) == 2
    assert page.locator("[data-hv=token].hv-dim").count() == xss_trace.tokens.size - 2
    assert page.locator("[data-hv=token].hv-cur").count() == 1
    page.click("[data-hv=last]")
    log = page.eval_on_selector_all("[data-hv=log] .hv-ev", "els => els.length")
    assert log == min(50, len(xss_trace.events()))
    page.click("[data-hv=first]")
    assert _step(page) == 0 and page.inner_text("[data-hv=events]") == "nothing fed yet"


def test_conversation_cards_as_of_the_step(page, xss_trace: Trace, tmp_path: Path) -> None:
    final = [m for m in xss_trace.messages if m.kind == "final"][0]
    k = final.step_started + 3
    _open(page, xss_trace, tmp_path, step=k)
    card = page.locator(f"[data-hv=conversation] .hv-card[data-message='{final.index}'] .hv-card-body")
    assert card.inner_text() == xss_trace.content(final.index, k)
    # the reasoning card is collapsible; the tool call shows its parsed arguments pretty-printed
    assert page.locator("[data-hv=conversation] .hv-card[data-kind=reasoning] details").count() == 1
    call = [m for m in xss_trace.messages if m.kind == "tool_call"][0]
    body = page.inner_text(f"[data-hv=conversation] .hv-card[data-message='{call.index}'] .hv-card-body")
    assert body == '{\n  "html": "<svg onload=window.__hv_xss=4>"\n}'
    page.click("[data-hv=last]")
    assert card.inner_text() == xss_trace.content(final.index)


def test_markup_in_the_stream_stays_text(page, xss_trace: Trace, tmp_path: Path) -> None:
    _open(page, xss_trace, tmp_path, step=xss_trace.n_steps - 1)
    page.hover("[data-hv=token] >> nth=10")
    page.wait_for_timeout(200)
    assert page.evaluate("window.__hv_xss") is None
    # nothing from the stream became an element
    assert page.locator("[data-hv=root] img, [data-hv=root] script, [data-hv=root] svg, [data-hv=root] iframe, [data-hv=root] b:not(.hv-tip b)").count() == 0
    convo = page.inner_text("[data-hv=conversation]")
    assert "Literal: <script>window.__hv_xss=6</script> &amp;" in convo
    assert 'Say <img src=x onerror="window.__hv_xss=1">' in convo
    chips = "".join(page.eval_on_selector_all("[data-hv=token]", "els => els.map(e => e.textContent)"))
    assert "onerror" in chips and "script" in chips
    assert page.errors == []


def test_tooltip_tells_everything_about_a_token(page, xss_trace: Trace, tmp_path: Path, enc) -> None:
    _open(page, xss_trace, tmp_path)
    t = 0
    page.hover(f"[data-hv=token][data-i='{t}']")
    tip = page.inner_text("[data-hv=tooltip]")
    assert f"id {xss_trace.tokens[0]}" in tip and "<|start|>" in tip and "message #0 user" in tip
    # a character split across tokens: the tooltip names the group
    split = next(i for i, b in enumerate(xss_trace.token_bytes) if b and (b[0] & 0xC0) == 0x80)
    page.hover(f"[data-hv=token][data-i='{split}']")
    tip = page.inner_text("[data-hv=tooltip]")
    assert "split across tokens" in tip and "🦜" in tip


def test_findings_link_to_their_tokens(page, corpus_dir, tmp_path: Path) -> None:
    """The Findings panel (the Diagnostics panel that was): the scanner's rows are the trace's diagnostics; a row marks its chips."""
    trace = Trace.build(read(finding5(corpus_dir, "cyberthreat-24")).stream().ids, "every:8")
    assert trace.diagnostics, "this run has diagnostics (bare commentary channel)"
    _open(page, trace, tmp_path, step=trace.n_steps - 1)
    for source in ("lint", "server", "prompt"):  # the scanner's rows alone
        toggle = page.locator(f"[data-hv=finding-filter][data-source={source}]")
        if toggle.count():
            toggle.click()
    items = page.locator("[data-hv=findings] [data-hv=finding]")
    assert items.count() == min(50, len(trace.diagnostics))
    codes = page.eval_on_selector_all("[data-hv=findings] [data-hv=finding]", "els => els.map(e => e.dataset.code)")
    assert codes == [d.code for _, d in trace.diagnostics][-50:]
    assert set(page.eval_on_selector_all("[data-hv=finding]", "els => els.map(e => e.dataset.source)")) == {"scanner"}
    items.last.click()
    _, diag = trace.diagnostics[-1]
    lit = page.eval_on_selector_all("[data-hv=token][data-focus=true]", "els => els.map(e => +e.dataset.i)")
    assert lit and lit[0] == min(diag.start, trace.tokens.size - 1)


def test_play_runs_to_the_end(page, xss_trace: Trace, tmp_path: Path) -> None:
    _open(page, xss_trace, tmp_path)
    page.select_option("[data-hv=speed]", "240")
    page.click("[data-hv=play]")
    page.wait_for_function(f"() => document.querySelector('[data-hv=step]').dataset.step == '{xss_trace.n_steps - 1}'", timeout=10_000)
    assert page.inner_text("[data-hv=play]") == "play"  # stopped by itself at the end
    assert page.locator("[data-hv=token].hv-dim").count() == 0


def test_a_saved_page_hides_the_chunking_it_cannot_change_and_says_it(page, xss_trace: Trace, tmp_path: Path) -> None:
    _open(page, Trace.build(xss_trace.tokens, "server"), tmp_path)
    assert page.locator("[data-hv=chunking]").is_hidden() and page.locator("[data-hv=chunking-custom]").is_hidden()
    assert "fed to the Harmony scanner as text deltas, the way a server streams them" in page.inner_text("[data-hv=page-line]")
    page.click("[data-hv=next]")
    # text chunkings: the first delta is "<|start|>" as text, the first token fed
    assert page.locator("[data-hv=token]:not(.hv-dim)").count() == 1


def test_the_page_names_what_it_replays(page, xss_trace: Trace, tmp_path: Path) -> None:
    path = tmp_path / "named.html"
    path.write_text(page_html(xss_trace, name="xss.txt", links=[("its stats", "xss-stats.html")]), encoding="utf-8")
    page.goto(path.as_uri())
    page.wait_for_selector("[data-hv=token]")
    assert page.title() == "xss.txt · Harmony replay" == page.inner_text("[data-hv=page-title]")
    line = page.inner_text("[data-hv=page-line]")
    assert line.startswith(f"A replay of xss.txt: {xss_trace.tokens.size} tokens fed to the Harmony scanner one token at a time")
    assert "Space plays" in line and "n / Shift+n go to the next / previous finding" in line
    assert page.get_attribute("[data-hv=page-link]", "href") == "xss-stats.html"
    assert _step(page) == xss_trace.n_steps - 1  # a page opens at the end of the stream unless told otherwise


def test_the_api_view_is_the_streaming_clients_object_at_every_step(page, xss_trace: Trace, tmp_path: Path) -> None:
    """Not the view of the last message boundary: the page builds the object at the step on screen."""
    final = [m for m in xss_trace.messages if m.kind == "final"][0]
    k = final.step_started + 3
    _open(page, xss_trace, tmp_path, step=k)
    views = ApiViews(xss_trace)
    for step in (k, k + 1, xss_trace.n_steps - 1):
        if step != k:
            page.evaluate(f"window.harmonyViz.view.goTo({step})")
        page.wait_for_function(f"() => document.querySelector('[data-hv=api-note]')?.textContent.startsWith('step {step}: what a streaming client holds')")
        shown = json.loads(page.inner_text("[data-hv=api] .hv-json"))
        assert shown == views.at(step)["views"]["chat"], step
    assert shown["usage"] is not None and shown["choices"][0]["finish_reason"] == "stop"


def test_whitespace_toggle_and_colour_mode(page, xss_trace: Trace, tmp_path: Path) -> None:
    _open(page, xss_trace, tmp_path)
    spaced = next(i for i, b in enumerate(xss_trace.token_bytes) if b.startswith(b" "))
    chip = page.locator(f"[data-hv=token][data-i='{spaced}']")
    before = chip.text_content()
    page.check("[data-hv=whitespace]")
    assert chip.text_content() == before.replace(" ", "·")
    page.select_option("[data-hv=colour]", "role")
    assert "user" in page.inner_text("[data-hv=legend]")
    assert "hv-by-role" in page.get_attribute("[data-hv=root]", "class")
