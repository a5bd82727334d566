"""The API view's server tab (server lens) in a saved page, in headless chromium, from vLLM 0.32 captures."""

from __future__ import annotations

from pathlib import Path

import pytest
from _page import open_tab

from harmony_viz.servers import lens
from harmony_viz.servers.core import check_answer, expected_for, read_stream

pytestmark = pytest.mark.browser


def _results(stream: str) -> list:
    return [r for r in lens.check_captures(lens.shipped_captures()) if lens.stream_name(r) == stream]


def _open(page, source, tmp_path: Path):  # noqa: ANN001, ANN202
    return open_tab(page, source, tmp_path / "lens.html", "api-tab-server", "[data-hv=discrepancies]")


def test_the_server_tab_shows_both_answers_and_jumps_to_the_tokens(page, tmp_path: Path) -> None:  # noqa: ANN001
    results = _results("stripped-control-tokens")
    _open(page, results, tmp_path)
    assert page.eval_on_selector_all("[data-hv=server-api]", "els => els.map(e => e.dataset.api)") == [r.api for r in results]
    server_side = page.inner_text("[data-hv=server-answer]")
    ours = page.inner_text("[data-hv=server-expected]")
    assert "analysisThe user asks for 2+2.assistantfinalThe answer is 4." in server_side.replace("\n", "")
    assert "The user asks for 2+2." in ours and "reasoning_content" in ours
    rows = page.locator("[data-hv=discrepancy][data-code=reasoning-in-content]")
    assert rows.count() == 1
    where = next(d.where for d in results[0].discrepancies if d.code == "reasoning-in-content")
    rows.click()
    # with one token per step, the span [start, end) has been read at step `end`
    assert int(page.get_attribute("[data-hv=step]", "data-step")) == where.end
    lit = page.eval_on_selector_all("[data-hv=token].hv-hl", "els => els.map(e => +e.dataset.i).sort((a, b) => a - b)")
    assert lit == list(range(where.start, where.end))
    assert page.errors == []


def test_picking_another_api_shows_its_answer(page, tmp_path: Path) -> None:  # noqa: ANN001
    results = _results("glued-channel")
    _open(page, results, tmp_path)
    page.click("[data-hv=server-api][data-api=responses]")
    assert "Unknown channel" in page.inner_text("[data-hv=server-error]")
    page.click("[data-hv=server-api][data-api=chat]")
    codes = page.eval_on_selector_all("[data-hv=discrepancy]", "els => els.map(e => e.dataset.code)")
    assert codes == [d.code for d in next(r for r in results if r.api == "chat").discrepancies]
    assert page.errors == []


def test_an_empty_list_says_there_are_no_discrepancies(page, tmp_path: Path) -> None:  # noqa: ANN001
    ids = read_stream(str(lens.DATA / "streams" / "seed-001.txt"))
    clean = check_answer("ours", "chat", ids, expected_for("chat", ids))
    assert clean.discrepancies == ()
    _open(page, clean, tmp_path)
    assert page.inner_text("[data-hv=discrepancies]").strip() == "no discrepancies"
    assert page.locator("[data-hv=discrepancy]").count() == 0
    assert page.errors == []


def test_an_engine_selector_switches_between_engines_answers(page, tmp_path: Path) -> None:  # noqa: ANN001
    results = [r for engine in ("vllm", "llama.cpp", "sglang") for r in lens.check_captures(lens.shipped_captures(engine))
               if lens.stream_name(r) == "doubled-channel"]
    _open(page, results, tmp_path)
    options = page.eval_on_selector_all("[data-hv=engine-select] option", "els => els.map(e => e.value)")
    assert options == ["vllm", "llama.cpp", "sglang"]
    # vLLM first: its chat answer drops the doubled header's chain of thought
    assert page.eval_on_selector_all("[data-hv=server-api]", "els => els.map(e => e.dataset.api)") == ["chat", "chat-stream", "responses", "responses-stream"]
    assert page.locator("[data-hv=discrepancy][data-code=text-dropped]").count() == 1
    page.select_option("[data-hv=engine-select]", "sglang")
    assert page.eval_on_selector_all("[data-hv=server-api]", "els => els.map(e => e.dataset.api)") == ["chat", "chat-stream"]
    assert "Doubled header thoughts." in page.inner_text("[data-hv=server-answer] .hv-srv-content")  # shown as content
    assert page.locator("[data-hv=discrepancy][data-code=reasoning-in-content]").count() == 1
    assert "run offline" in page.inner_text("[data-hv=server-note]")
    page.select_option("[data-hv=engine-select]", "llama.cpp")
    assert page.locator("[data-hv=no-discrepancies]").count() == 1  # llama.cpp reads it right
    assert "tools not sent" in page.inner_text("[data-hv=server-panel]")
    assert page.errors == []


def test_one_engine_shows_no_selector(page, tmp_path: Path) -> None:  # noqa: ANN001
    _open(page, _results("seed-001"), tmp_path)
    assert page.locator("[data-hv=engine-select]").count() == 0
    assert page.errors == []
