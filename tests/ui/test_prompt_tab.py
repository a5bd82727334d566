"""The API view's prompt tab (prompt lens) in a saved page, in headless chromium, from shipped vLLM 0.32 prompt captures."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from _page import open_tab

from harmony_viz import save_html
from harmony_viz.servers import check_file, lens

pytestmark = pytest.mark.browser


def _capture(name: str) -> str:
    (path,) = [p for p in lens.shipped_prompt_captures("vllm") if p.endswith(f"/{name}.json")]
    return path


def _open(page, source, tmp_path: Path):  # noqa: ANN001, ANN202
    return open_tab(page, source, tmp_path / "prompt.html", "api-tab-prompt", "[data-hv=prompt-differences]")


def test_the_prompt_tab_names_each_difference_and_scrolls_to_its_tokens(page, tmp_path: Path) -> None:  # noqa: ANN001
    path = _capture("two-step-2")
    check = check_file(path)
    _open(page, lens.load_capture(path), tmp_path)
    assert page.inner_text("[data-hv=diff-summary]").startswith(f"{len(check.differences)} differences between the format and the server's prompt")
    assert page.eval_on_selector_all("[data-hv=prompt-difference]", "els => els.map(e => e.dataset.code)") == list(check.codes)
    chips = page.eval_on_selector_all("[data-hv=diff-server] [data-hv=diff-code]", "els => els.map(e => e.textContent)")
    assert "preamble-moved" in chips and "recipient-layout" in chips
    (moved,) = [d for d in check.differences if d.code == "preamble-moved"]
    page.click("[data-hv=prompt-difference][data-code=preamble-moved]")
    lit = page.eval_on_selector_all("[data-hv=diff-server] .hv-pg-focus", "els => els.map(e => +e.dataset.i)")
    assert lit == list(range(moved.where.theirs.start, moved.where.theirs.end))
    lit = page.eval_on_selector_all("[data-hv=diff-reference] .hv-pg-focus", "els => els.map(e => +e.dataset.i)")
    assert lit == list(range(moved.where.ours.start, moved.where.ours.end))
    assert page.errors == []


def test_identical_prompts_say_so(page, tmp_path: Path) -> None:  # noqa: ANN001
    path = _capture("two-step-1")
    run = lens.load_capture(path)
    ours = check_file(path).ours
    # the same capture, as a server that fed the model exactly the format's prompt would have made it
    faithful = dataclasses.replace(run, prompt_token_ids=ours)
    _open(page, faithful, tmp_path)
    assert page.inner_text("[data-hv=prompt-identical]") == "the prompts are identical"
    assert page.inner_text("[data-hv=diff-summary]").startswith("identical: the server fed the model the prompt the format gives")
    assert page.locator("[data-hv=prompt-difference]").count() == 0
    assert page.errors == []


def test_a_capture_without_prompt_ids_has_no_prompt_tab(page, tmp_path: Path) -> None:  # noqa: ANN001
    run = dataclasses.replace(lens.load_capture(_capture("two-step-1")), prompt_token_ids=())
    path = save_html(run, tmp_path / "none.html")
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
    page.goto(path.as_uri())
    page.wait_for_selector("[data-hv=api-tab-server]")
    assert page.locator("[data-hv=api-tab-prompt]").count() == 0


def test_a_prompt_check_replays_with_its_prompt_tab(page, tmp_path: Path) -> None:  # noqa: ANN001
    from harmony_viz.servers import prompt_check

    run = lens.load_capture(_capture("two-step-2"))
    check = prompt_check(run.metadata.extra["server"]["request"], prompt_ids=run.prompt_token_ids)
    _open(page, check, tmp_path)
    assert page.locator("[data-hv=api-tab-server]").count() == 0
    assert page.eval_on_selector_all("[data-hv=prompt-difference]", "els => els.map(e => e.dataset.code)") == list(check.codes)
    # the replayed stream is the server's prompt
    assert page.locator("[data-hv=token]").count() == len(check.server)
    assert page.errors == []
