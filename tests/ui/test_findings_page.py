"""Findings on the chips, the Findings panel and the token card, in a saved page in headless chromium (issue 28, items 1-3).

Also writes docs/images/replay-findings.png, the README's picture of them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _replay_streams import finding5

from harmony_viz import save_html
from harmony_viz.cli import main
from harmony_viz.data import sample_path
from harmony_viz.findings import SEVERITIES
from harmony_viz.inputs import read
from harmony_viz.tokens import encode, special_by_literal, token_sentence

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
DATA = sample_path("PROVENANCE.md").parent
STREAMS = sorted((DATA / "server_lens" / "streams").glob("*.txt"))
# a capture whose prompt and completion give the lints (constrain-missing, dropped-analysis) and the prompt lens work
CAPTURE = DATA / "prompt_lens" / "vllm" / "thinking-bare-2call-pending.json"
PICTURE = ROOT / "docs" / "images" / "replay-findings.png"
PICTURE_SOURCE = DATA / "prompt_lens" / "vllm" / "reasoning-preamble-1call-finished.json"  # a weather tool call through vLLM

# The stream: a spaced final channel, then a call whose json lacks <|constrain|>.
SPACED_CALL = ("<|start|>user<|message|>Weather in Paris?<|end|><|start|>assistant<|channel|> final<|message|>Checking.<|end|>"
               '<|start|>assistant<|channel|>commentary to=functions.get_weather json<|message|>{"city": "Paris"}<|call|>'
               "<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>20C<|end|>"
               "<|start|>assistant<|channel|>final<|message|>It is 20C.<|return|>")
# Every special token the format uses, and two it does not.
SPECIALS = ("<|startoftext|><|start|>user<|message|>Weather?<|end|>"
            '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>'
            "<|start|>assistant<|channel|>final<|message|>Sunny <|reserved_200100|> and warm.<|return|><|endoftext|>")


def _open(page, source, tmp_path: Path, name: str = "findings.html"):
    """The saved page of ``source``, opened offline at the end of the stream."""
    saved = save_html(source, tmp_path / name)
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
    page.goto(saved.as_uri())
    page.wait_for_selector("[data-hv=token]")
    return page


def _step(page) -> int:
    return int(page.get_attribute("[data-hv=step]", "data-step"))


def _cli(capsys, *argv: str) -> list[dict]:
    """A command's diagnostics, as JSON on its stdout."""
    capsys.readouterr()
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)["diagnostics"]


def _chips(page) -> dict[int, tuple[str, set[str]]]:
    got = page.eval_on_selector_all("[data-hv=token][data-codes]", "els => els.map(e => [+e.dataset.i, e.dataset.severity, e.dataset.codes])")
    return {i: (sev, set(codes.split())) for i, sev, codes in got}


@pytest.mark.parametrize("path", [*STREAMS, CAPTURE], ids=lambda p: p.stem)
def test_chips_carry_what_parse_and_lint_report(page, tmp_path: Path, capsys, path: Path) -> None:
    """Every finding `harmony-viz parse` and `lint` report on the stream (as token ids) is on the chips of its span, and a row of the panel."""
    stream = read(path).stream()
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(list(stream.ids)), encoding="utf-8")
    found = {(d["code"], d["severity"], d["start"], d["end"]) for d in _cli(capsys, "parse", str(ids)) + _cli(capsys, "lint", str(ids))}
    assert found or path.stem == "clean-final", "a malformed stream has findings"
    _open(page, path, tmp_path)
    for source in ("server", "prompt"):  # what parse and lint cannot see: the page's own lenses, left out here
        if page.locator(f"[data-hv=finding-filter][data-source={source}]").count():
            page.click(f"[data-hv=finding-filter][data-source={source}]")
    n = len(stream.ids)
    want: dict[int, tuple[str, set[str]]] = {}
    for code, severity, start, end in found:
        a = min(start, n - 1)
        for t in range(a, max(a + 1, min(end, n))):
            sev, codes = want.get(t, (severity, set()))
            want[t] = (min(sev, severity, key=SEVERITIES.index), codes | {code})
    assert _chips(page) == want
    rows = page.eval_on_selector_all("[data-hv=finding]", "els => els.map(e => [e.dataset.code, e.dataset.severity, +e.dataset.start, +e.dataset.end])")
    assert {tuple(r) for r in rows} == found
    marked_rows = page.eval_on_selector_all(".hv-row[data-severity]", "els => els.length")
    assert marked_rows == (page.locator(".hv-row:has([data-codes])").count())  # a mark at the start of every line with a finding
    assert page.errors == []


def test_findings_show_from_the_step_they_were_found(page, tmp_path: Path) -> None:
    _open(page, SPACED_CALL, tmp_path)
    steps = page.eval_on_selector_all("[data-hv=finding]", "els => els.map(e => +e.dataset.step)")
    bad = page.locator("[data-hv=finding][data-code=bad-channel]")
    step = int(bad.get_attribute("data-step"))
    start, end = int(bad.get_attribute("data-start")), int(bad.get_attribute("data-end"))
    page.evaluate(f"window.harmonyViz.view.goTo({step - 1})")
    assert page.locator("[data-hv=finding][data-code=bad-channel]").count() == 0
    assert page.get_attribute(f"[data-hv=token][data-i='{start}']", "data-codes") is None
    page.evaluate(f"window.harmonyViz.view.goTo({step})")
    assert page.locator("[data-hv=finding][data-code=bad-channel]").count() == 1
    for t in range(start, end):
        assert page.get_attribute(f"[data-hv=token][data-i='{t}']", "data-codes") == "bad-channel"
        assert page.get_attribute(f"[data-hv=token][data-i='{t}']", "data-severity") == "error"
    assert page.inner_text("[data-hv-panel=findings] .hv-panel-title") == f"Findings ({sum(k <= step for k in steps)})"


def test_clicking_a_row_steps_there_and_focuses_its_chips_in_view(page, corpus_dir, tmp_path: Path) -> None:
    _open(page, finding5(corpus_dir, "cyberthreat-24"), tmp_path)
    row = page.locator("[data-hv=finding]").first
    code, step, start = row.get_attribute("data-code"), int(row.get_attribute("data-step")), int(row.get_attribute("data-start"))
    row.click()
    assert _step(page) == step
    focused = page.eval_on_selector_all("[data-hv=token][data-focus=true]", "els => els.map(e => +e.dataset.i)")
    assert focused and focused[0] == start
    chip = page.locator(f"[data-hv=token][data-i='{start}']")
    assert code in chip.get_attribute("data-codes").split()
    pane, box = page.locator("[data-hv=tokens]").bounding_box(), chip.bounding_box()
    assert pane["y"] <= box["y"] and box["y"] + box["height"] <= pane["y"] + pane["height"]  # scrolled into view
    assert page.locator("[data-hv=finding][data-focus=true]").count() == 1


def test_n_and_shift_n_go_to_the_next_and_previous_finding(page, tmp_path: Path) -> None:
    _open(page, SPACED_CALL, tmp_path)
    rows = page.eval_on_selector_all("[data-hv=finding]", "els => els.map(e => [e.dataset.code, +e.dataset.step, +e.dataset.start])")
    assert len(rows) >= 2
    page.evaluate("window.harmonyViz.view.goTo(0)")
    page.focus("[data-hv=root]")

    def focused():
        return page.eval_on_selector_all("[data-hv=finding][data-focus=true]", "els => els.map(e => [e.dataset.code, +e.dataset.step, +e.dataset.start])")

    for want in rows:  # after step 0: each in the order they show
        page.keyboard.press("n")
        assert focused() == [want] and _step(page) == want[1]
        assert int(page.get_attribute("[data-hv=token][data-focus=true] >> nth=0", "data-i")) == want[2]
    page.keyboard.press("n")
    assert focused() == [rows[0]]  # wraps
    page.keyboard.press("Shift+N")
    assert focused() == [rows[-1]] and _step(page) == rows[-1][1]  # and back
    page.keyboard.press("Shift+N")
    assert focused() == [rows[-2]]


def test_the_filter_by_severity_and_source(page, tmp_path: Path) -> None:
    _open(page, SPACED_CALL, tmp_path)
    counts = {e: page.get_attribute(f"[data-hv=finding-filter][data-source={e}]", "data-count") for e in ("scanner", "lint")}
    sources = page.eval_on_selector_all("[data-hv=finding]", "els => els.map(e => e.dataset.source)")
    assert counts == {"scanner": str(sources.count("scanner")), "lint": str(sources.count("lint"))}
    page.click("[data-hv=finding-filter][data-severity=error]")
    assert page.get_attribute("[data-hv=finding-filter][data-severity=error]", "aria-pressed") == "false"
    assert "error" not in page.eval_on_selector_all("[data-hv=finding]", "els => els.map(e => e.dataset.severity)")
    assert "error" not in {sev for sev, _ in _chips(page).values()}
    page.click("[data-hv=finding-filter][data-source=lint]")
    assert page.locator("[data-hv=finding]").count() == 0 and _chips(page) == {}
    page.click("[data-hv=finding-filter][data-severity=error]")
    assert set(page.eval_on_selector_all("[data-hv=finding]", "els => els.map(e => e.dataset.source)")) == {"scanner"}


def test_the_token_card_opens_on_hover_and_on_keyboard_selection(page, tmp_path: Path) -> None:
    _open(page, SPACED_CALL, tmp_path)
    bad = page.locator("[data-hv=finding][data-code=bad-channel]")
    start = int(bad.get_attribute("data-start"))
    page.hover(f"[data-hv=token][data-i='{start}']")
    card = page.locator("[data-hv=token-card]")
    assert card.is_visible()
    text = card.inner_text()
    ids = encode(SPACED_CALL)
    assert f"token #{start} · id {ids[start]}" in text and "part header" in text and "visibility visible (final)" in text
    assert card.locator("[data-hv=card-finding][data-code=bad-channel][data-severity=error]").count() == 1
    assert "channel written as ' final'" in card.inner_text()
    # the keyboard: Enter selects the last token fed, arrows move the selection (the card pinned to it), Escape closes
    page.mouse.move(5, 5)
    page.evaluate("window.harmonyViz.view.goTo(12)")
    page.focus("[data-hv=root]")
    page.keyboard.press("Enter")
    assert page.locator("[data-hv=token].hv-sel").get_attribute("data-i") == "11"
    assert card.get_attribute("data-pinned") == "true" and "token #11 " in card.inner_text()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert "token #13 " in card.inner_text() and page.locator("[data-hv=token].hv-sel").get_attribute("data-i") == "13"
    assert _step(page) == 12  # with a selection, the arrows move it, not the step
    page.keyboard.press("ArrowLeft")
    assert "token #12 " in card.inner_text()
    page.keyboard.press("ArrowDown")
    below = int(page.locator("[data-hv=token].hv-sel").get_attribute("data-i"))
    assert below > 12 and f"token #{below} " in card.inner_text()
    page.keyboard.press("Escape")
    assert not card.is_visible() and page.locator("[data-hv=token].hv-sel").count() == 0
    page.keyboard.press("ArrowRight")
    assert _step(page) == 13  # no selection: the arrows step again
    # a click selects too
    page.click(f"[data-hv=token][data-i='{start}']")
    page.mouse.move(5, 5)
    assert card.get_attribute("data-pinned") == "true" and card.locator("[data-code=bad-channel]").count() == 1
    assert page.errors == []


def test_the_card_explains_every_special_token_the_format_uses(page, tmp_path: Path) -> None:
    _open(page, SPECIALS, tmp_path)
    ids = encode(SPECIALS)
    used = ["<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>", "<|return|>", "<|call|>", "<|endoftext|>", "<|startoftext|>",
            "<|reserved_200100|>"]
    for literal in used:
        token_id = special_by_literal(literal).id
        t = ids.index(token_id)
        page.hover(f"[data-hv=token][data-i='{t}']")
        sentence = page.locator("[data-hv=token-card] [data-hv=token-sentence]")
        assert sentence.inner_text().startswith(literal) and token_sentence(token_id) in sentence.inner_text(), literal
    page.hover(f"[data-hv=token][data-i='{ids.index(special_by_literal('<|channel|>').id)}']")
    assert "starts the channel name: analysis, commentary or final" in page.inner_text("[data-hv=token-card]")
    page.hover(f"[data-hv=token][data-i='{ids.index(special_by_literal('<|reserved_200100|>').id)}']")
    assert page.locator("[data-hv=token-card] [data-hv=card-finding][data-code=reserved-token]").count() == 1


def test_opening_a_card_and_stepping_stay_fast_on_a_page_of_many_findings(page, tmp_path: Path) -> None:
    """A smoke check of the benchmark's figures (benchmarks/bench_widget_findings.py measures them at 100k tokens)."""
    _open(page, SPACED_CALL * 300, tmp_path)
    count = int(page.inner_text("[data-hv-panel=findings] .hv-panel-title").split("(")[1].rstrip(")"))
    assert count > 600
    timing = page.evaluate("""() => {
        const v = window.harmonyViz.view, root = document.querySelector('[data-hv=root]'), open = [], steps = [];
        for (const chip of Array.from(document.querySelectorAll('[data-hv=token][data-codes]')).slice(0, 40)) {
            const t0 = performance.now(); chip.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
            void document.querySelector('[data-hv=token-card]').offsetHeight; open.push(performance.now() - t0);
        }
        for (let s = 100; s < 300; s++) { const t0 = performance.now(); v.goTo(s); void root.offsetHeight; steps.push(performance.now() - t0); }
        return {open: Math.max(...open), step: steps.sort((a, b) => a - b)[Math.floor(steps.length * 0.95)]};
    }""")
    # only a guard against work that grows with the findings (a shared 2-core machine times badly): the benchmark holds the 16 ms line
    assert timing["open"] < 250 and timing["step"] < 250, timing


def test_picture_for_the_readme(page, tmp_path: Path) -> None:
    """A capture of a weather call through vLLM at its end: the scanner's, the lints' and the prompt lens's findings, a card pinned."""
    page.set_viewport_size({"width": 1800, "height": 1000})
    _open(page, PICTURE_SOURCE, tmp_path)
    stream = read(PICTURE_SOURCE).stream()
    channel = [t for t, i in enumerate(stream.ids) if i == special_by_literal("<|channel|>").id]
    call = page.locator("[data-hv=finding][data-code=constrain-missing][data-source=lint]")
    start, end = int(call.get_attribute("data-start")), int(call.get_attribute("data-end"))
    chip = next(t for t in channel if start <= t < end)  # the call's <|channel|>: its sentence and the call's findings
    page.click(f"[data-hv=token][data-i='{chip}']")
    page.mouse.move(1, 1)
    card = page.locator("[data-hv=token-card][data-pinned=true]")
    assert card.locator("[data-hv=card-finding][data-code=constrain-missing]").count() == 2  # the lint's and the prompt lens's
    assert "starts the channel name" in card.inner_text()
    assert {sev for sev, _ in _chips(page).values()} == {"error", "warning", "info"}
    top = page.locator("[data-hv=root] .hv-bar").first.bounding_box()
    main_box = page.locator("[data-hv=root] .hv-main").bounding_box()
    bottom = max(main_box["y"] + main_box["height"], card.bounding_box()["y"] + card.bounding_box()["height"])
    PICTURE.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(PICTURE), clip={"x": top["x"] - 4, "y": top["y"] - 4, "width": main_box["width"] + 8, "height": bottom - top["y"] + 8})
    assert PICTURE.stat().st_size > 20_000
    assert page.errors == []
