"""What the server made of each token, and the model's alternatives, in a saved page in headless chromium.

Every chip of a capture carries ``data-fate`` (Python's, from the server lens) and
``data-fate-mismatch`` where the answer put its text elsewhere than the format; the server tab's
engine and api pick whose fates show; the colour modes "server" and "surprise" paint by fate
and by −log p; the token card lists the model's alternatives. Also writes
docs/images/replay-server-fates.png, the README's picture of them.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from harmony_viz import save_html
from harmony_viz.servers import check_captures, lens, load_capture
from harmony_viz.servers.core import FATES, capture_logprobs, capture_result, result_fates

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PICTURE = ROOT / "docs" / "images" / "replay-server-fates.png"
ALTERNATIVES = lens.DATA / "alternatives" / "seed-001.llama.cpp.chat.json"
# one capture per engine whose answer misplaces text: what the chips must say
PER_ENGINE = {
    "vllm": "stripped-control-tokens.chat.json",  # the chain of thought returned as content
    "llama.cpp": "builtin-python-call.chat.json",  # the builtin call's body as content
    "sglang": "doubled-channel.chat.json",  # a doubled header's chain of thought as content
    "gpt-oss": "seed-001.responses.json",  # the preamble dropped
}


def _capture(engine: str, name: str) -> str:
    return next(p for p in lens.shipped_captures(engine) if Path(p).name == name)


def _open(page, source, tmp_path: Path):  # noqa: ANN001, ANN202
    saved = save_html(source, tmp_path / "fates.html")
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
    page.goto(saved.as_uri())
    page.wait_for_selector("[data-hv=token]")
    return page


def _chips(page) -> dict[int, tuple[str | None, bool]]:  # noqa: ANN001
    got = page.eval_on_selector_all("[data-hv=token]", "els => els.map(e => [+e.dataset.i, e.dataset.fate ?? null, e.dataset.fateMismatch === 'true'])")
    return {i: (fate, mismatch) for i, fate, mismatch in got}


def _want(result, offset: int = 0) -> dict[int, tuple[str | None, bool]]:  # noqa: ANN001
    f = result_fates(result)
    return {offset + t: (FATES[a] or None, a != b) for t, (a, b) in enumerate(zip(f.fate, f.expected))}


@pytest.mark.parametrize("engine", sorted(PER_ENGINE))
def test_each_chip_carries_its_fate_and_the_misplaced_ones_are_marked(page, tmp_path: Path, engine: str) -> None:  # noqa: ANN001
    path = _capture(engine, PER_ENGINE[engine])
    run = load_capture(path)
    result = capture_result(run)
    _open(page, path, tmp_path)
    want = _want(result, len(run.prompt_token_ids))
    got = _chips(page)
    assert set(want) <= set(got)  # the whole completion is drawn
    assert {i: got[i] for i in want} == want
    assert any(m for _, m in want.values())  # this answer misplaces something, and the chips say where
    # the misplaced chips lie on the spans the lens reports
    spans = [d.where for d in result.discrepancies if d.where is not None]
    assert all(any(s.start <= i - len(run.prompt_token_ids) < s.end for s in spans) for i, (_, m) in got.items() if m)
    assert page.errors == []


def test_the_engine_selector_and_the_api_pick_whose_fates_show(page, tmp_path: Path) -> None:  # noqa: ANN001
    results = [r for e in ("vllm", "llama.cpp", "sglang") for r in check_captures(lens.shipped_captures(e)) if lens.stream_name(r) == "doubled-channel"]
    _open(page, results, tmp_path)
    page.select_option("[data-hv=colour]", "server")
    page.click("[data-hv=api-tab-server]")
    page.wait_for_selector("[data-hv=engine-select]")

    def shown(engine: str, api: str) -> None:
        r = next(r for r in results if r.engine == engine and r.api == api)
        assert _chips(page) == _want(r), (engine, api)
        assert page.inner_text("[data-hv=legend-check]") == f"{engine} {api}"

    shown("vllm", "chat")  # the doubled header's chain of thought dropped
    assert {f for f, m in _chips(page).values() if m} == {"dropped"}
    page.click("[data-hv=server-api][data-api=responses]")
    shown("vllm", "responses")  # read as a call's arguments
    assert {f for f, m in _chips(page).values() if m} == {"call-arguments"}
    page.select_option("[data-hv=engine-select]", "sglang")
    shown("sglang", "chat")  # shown as content
    assert {f for f, m in _chips(page).values() if m} == {"content"}
    page.select_option("[data-hv=engine-select]", "llama.cpp")
    shown("llama.cpp", "chat")  # read right: no mismatch
    assert not any(m for _, m in _chips(page).values())
    # the card says the same fate, for the check on show
    t = next(i for i, (f, _) in _chips(page).items() if f == "reasoning")
    page.hover(f"[data-hv=token][data-i='{t}']")
    fate = page.locator("[data-hv=token-card] [data-hv=card-fate]")
    assert fate.get_attribute("data-fate") == "reasoning" and fate.get_attribute("data-mismatch") == "false"
    assert "llama.cpp chat" in fate.inner_text()
    assert page.errors == []


def _colour(page, i: int) -> tuple[str, str]:  # noqa: ANN001
    return page.eval_on_selector(f"[data-hv=token][data-i='{i}']", "e => { const s = getComputedStyle(e); return [s.borderBottomColor, s.backgroundImage]; }")


def test_the_server_and_surprise_colour_modes_paint_the_chips(page, tmp_path: Path) -> None:  # noqa: ANN001
    _open(page, str(ALTERNATIVES), tmp_path)
    assert page.eval_on_selector_all("[data-hv=colour] option", "els => els.map(e => e.value)") == ["channel", "role", "server", "surprise"]
    chips = _chips(page)
    content = next(i for i, (f, m) in chips.items() if f == "content" and not m)
    reasoning = next(i for i, (f, m) in chips.items() if f == "reasoning" and not m)
    wrong = next(i for i, (_, m) in chips.items() if m)  # the call the answer does not make (no tools were sent)
    by_channel = {i: _colour(page, i) for i in (content, reasoning, wrong)}
    page.select_option("[data-hv=colour]", "server")
    assert _colour(page, content)[0] == "rgb(0, 158, 115)" and _colour(page, reasoning)[0] == "rgb(86, 180, 233)"
    assert _colour(page, wrong)[0] == "rgb(213, 94, 0)" and "repeating-linear-gradient" in _colour(page, wrong)[1]  # loud: hatched
    assert _colour(page, content)[1] == "none"
    assert "differs from the format" in page.inner_text("[data-hv=legend]")
    page.select_option("[data-hv=colour]", "surprise")
    surprise = page.eval_on_selector_all("[data-hv=token][data-surprise]", "els => els.map(e => [+e.dataset.i, +e.dataset.surprise, +e.dataset.logprob])")
    run = load_capture(ALTERNATIVES)
    lp = capture_logprobs(run)
    assert {i for i, _, _ in surprise} == {i for i in chips if i >= len(run.prompt_token_ids)}  # every completion chip, no prompt chip
    for i, b, value in surprise:
        assert value == pytest.approx(float(lp.value[i]), abs=0.02)
        assert b == 5  # the tiny random model: every token near -12 nats
    assert _colour(page, content)[0] == "rgb(166, 54, 3)"
    assert {_colour(page, i)[0] for i in (content, reasoning, wrong)} != {c[0] for c in by_channel.values()}
    page.select_option("[data-hv=colour]", "channel")
    assert {i: _colour(page, i) for i in (content, reasoning, wrong)} == by_channel
    assert page.errors == []


def test_the_card_lists_the_models_alternatives_with_their_probabilities(page, tmp_path: Path) -> None:  # noqa: ANN001
    run = load_capture(ALTERNATIVES)
    lp = capture_logprobs(run)
    _open(page, str(ALTERNATIVES), tmp_path)
    t = len(run.prompt_token_ids) + 5
    page.hover(f"[data-hv=token][data-i='{t}']")
    card = page.locator("[data-hv=token-card]")
    alts = card.locator("[data-hv=alternatives] > *")
    assert alts.count() == 5
    rows = alts.evaluate_all("els => els.map(e => [+e.dataset.id, +e.dataset.p, e.innerText])")
    assert [i for i, _, _ in rows] == [i for i, _ in lp.alternatives(t)]
    for (_, p, text), (_, value) in zip(rows, lp.alternatives(t)):
        assert p == pytest.approx(math.exp(value), rel=0.01) and "p " in text
    assert float(card.locator("[data-hv=card-logprob]").get_attribute("data-logprob")) == pytest.approx(float(lp.value[t]), abs=0.02)
    assert card.locator("[data-hv=no-logprobs]").count() == 0
    # special tokens among the alternatives are named: the zoo's top-1 llama.cpp capture offers <|channel|> for `analysis`
    zoo = _capture("llama.cpp", "seed-001.chat.json")
    zlp = capture_logprobs(load_capture(zoo))
    _open(page, zoo, tmp_path)
    t, literal = next((t, "<|channel|>") for t in range(zlp.n) if any(i == 200005 for i, _ in zlp.alternatives(t)))
    page.hover(f"[data-hv=token][data-i='{t}']")
    special = page.locator("[data-hv=token-card] [data-hv=alternative][data-special]")
    assert special.count() == 1 and special.get_attribute("data-special") == literal and literal in special.inner_text()
    assert page.errors == []


def test_a_stream_without_log_probs_says_so_once(page, tmp_path: Path) -> None:  # noqa: ANN001
    _open(page, _capture("vllm", "seed-001.chat.json"), tmp_path)
    assert "surprise" not in page.eval_on_selector_all("[data-hv=colour] option", "els => els.map(e => e.value)")
    assert page.locator("[data-hv=token][data-logprob]").count() == 0
    for i in (130, 140):
        page.hover(f"[data-hv=token][data-i='{i}']")
        card = page.locator("[data-hv=token-card]")
        assert card.locator("[data-hv=no-logprobs]").count() == 1
        assert card.locator("[data-hv=no-logprobs][data-scope=stream]").inner_text().startswith("no log-probs")
        assert card.locator("[data-hv=alternatives]").count() == 0
    assert page.errors == []


def test_picture_for_the_readme(page, tmp_path: Path) -> None:  # noqa: ANN001
    """The reference server's Responses answer to seed-001 in the "server" mode: its preamble dropped, the card of one of its tokens pinned."""
    page.set_viewport_size({"width": 1800, "height": 900})
    path = _capture("gpt-oss", "seed-001.responses.json")
    _open(page, path, tmp_path)
    page.select_option("[data-hv=colour]", "server")
    chips = _chips(page)
    dropped = [i for i, (f, m) in chips.items() if m and f == "dropped"]
    assert dropped
    page.click(f"[data-hv=token][data-i='{dropped[0]}']")
    page.mouse.move(1, 1)
    card = page.locator("[data-hv=token-card][data-pinned=true]")
    assert card.locator("[data-hv=card-fate][data-mismatch=true]").count() == 1
    top = page.locator("[data-hv=root] .hv-bar").first.bounding_box()
    tokens = page.locator("[data-hv=tokens]").bounding_box()
    findings = page.locator("[data-hv-panel=findings]").bounding_box()
    bottom = max(tokens["y"] + tokens["height"], card.bounding_box()["y"] + card.bounding_box()["height"], findings["y"] + findings["height"])
    right = findings["x"] + findings["width"]
    PICTURE.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(PICTURE), clip={"x": top["x"] - 4, "y": top["y"] - 4, "width": right - top["x"] + 8, "height": bottom - top["y"] + 8})
    assert PICTURE.stat().st_size > 20_000
    assert page.errors == []
