"""The playground in a real JupyterLab: edit in the browser, see the tokens change, read the result in the kernel."""

from __future__ import annotations

import json
import re

import pytest
from _lab import lab_notebook, wait_for_kernel

from harmony_viz._playground import playground
from harmony_viz.render import Conversation, RenderOptions, render_conversation_for_training

pytestmark = pytest.mark.browser

XSS = "<img src=x onerror=\"window.__hv_pg_xss=1\"> &amp;"


@pytest.fixture(scope="module")
def lab_page(browser, jupyter_lab):
    """A JupyterLab tab with a playground on the tool-call preset, its cells run."""
    cells = [
        "from harmony_viz import playground\nw = playground(preset='tool-call')\nw",
        "import json\nprint('PY', json.dumps({'n': len(w.tokens), 'origin': w.origin, "
        "'texts': [getattr(m.content[0], 'text', None) for m in w.conversation.messages], "
        "'replay': w.replay_widget is not None}))",
    ]
    yield from lab_notebook(browser, jupyter_lab, "playground.ipynb", cells,
                            ready="() => document.querySelectorAll('.hv-pg [data-hv=token]').length > 0")


def _kernel_state(page, until: str = "return true") -> dict:
    """Run the second cell again (until its output satisfies ``until``) and read what the kernel holds."""
    text = wait_for_kernel(page, until, cell=1)
    return json.loads(re.search(r"PY (.+)", text).group(1))


def test_editing_a_message_changes_the_tokens(lab_page) -> None:
    pg = lab_page.locator(".hv-pg").first
    start = playground(preset="tool-call")
    assert pg.locator("[data-hv=token]").count() == len(start.tokens)
    assert pg.locator("[data-hv=card]").count() == len(start.messages)
    edited = [dict(m) for m in start.messages]
    edited[2] = {**edited[2], "content": [{"type": "text", "text": "What is the weather in Reykjavik, Iceland? " + XSS}]}
    expected = render_conversation_for_training(Conversation.from_dict({"messages": edited}), options=RenderOptions(drop_analysis=False))
    pg.locator("[data-hv=card][data-message='2'] [data-hv=content]").fill(edited[2]["content"][0]["text"])
    lab_page.wait_for_function(f"() => document.querySelectorAll('.hv-pg [data-hv=token]').length === {len(expected)}", timeout=30_000)
    ids = [int(x) for x in pg.locator("[data-hv=token]").evaluate_all("els => els.map(e => e.dataset.id)")]
    assert ids == expected
    assert "Reykjavik" in pg.locator("[data-hv=tokens]").inner_text()
    state = _kernel_state(lab_page)
    assert state["n"] == len(expected) and state["origin"] == "messages"
    assert state["texts"][2] == edited[2]["content"][0]["text"]
    # text is text: the markup typed into the card is shown, never run
    assert pg.locator("img, script, iframe").count() == 0
    assert lab_page.evaluate("window.__hv_pg_xss") is None


def test_typing_keystroke_by_keystroke_loses_nothing(lab_page) -> None:
    pg = lab_page.locator(".hv-pg").first
    box = pg.locator("[data-hv=card][data-message='2'] [data-hv=content]")
    before = box.input_value()
    box.click()
    box.press("End")
    box.press_sequentially(" Thanks, truly!", delay=60)  # replies to earlier keystrokes arrive mid-typing
    box.blur()
    lab_page.wait_for_function("() => document.querySelector('.hv-pg [data-hv=tokens]').innerText.includes('truly!')", timeout=30_000)
    assert box.input_value() == before + " Thanks, truly!"
    assert _kernel_state(lab_page, until="return out.includes('truly!')")["texts"][2] == before + " Thanks, truly!"


def test_hover_explains_control_tokens_and_finds_the_card(lab_page) -> None:
    pg = lab_page.locator(".hv-pg").first
    chip = pg.locator("[data-hv=token][data-id='200012']").first
    chip.hover()
    tip = lab_page.locator("[data-hv=tooltip]")
    tip.wait_for(state="visible")
    assert "<|call|> (200012, stop)" in tip.inner_text() and "tool call" in tip.inner_text()
    index = chip.get_attribute("data-i")
    assert "hv-pg-hover" in pg.locator(f"[data-hv=alt-token][data-i='{index}']").get_attribute("class")
    message = chip.get_attribute("data-message")
    assert "hv-pg-card-hl" in pg.locator(f"[data-hv=card][data-message='{message}']").get_attribute("class")


def test_render_diff_and_replay(lab_page) -> None:
    pg = lab_page.locator(".hv-pg").first
    pg.locator("[data-hv=diff-toggle]").click()
    summary = pg.locator("[data-hv=diff-summary]")
    summary.wait_for(state="visible")
    assert summary.inner_text() == "2 differences (difflib opcodes)"
    assert pg.locator("[data-hv=diff-model] .hv-pg-d-insert").count() > 0
    pg.locator("[data-hv=replay]").click()
    lab_page.wait_for_function("() => document.querySelector('.hv-pg [data-hv=replay-view] .hv-root [data-hv=token]') !== null", timeout=30_000)
    assert _kernel_state(lab_page)["replay"] is True


def test_editing_the_raw_ids_rescans(lab_page) -> None:
    pg = lab_page.locator(".hv-pg").first
    if pg.locator("[data-hv=replay-close]").count():
        pg.locator("[data-hv=replay-close]").click()  # the replay's own chips would count too
        lab_page.wait_for_function("() => !document.querySelector('.hv-pg [data-hv=replay-view] .hv-root')", timeout=30_000)
    pg.locator("[data-hv=mode]").click()
    pg.locator("[data-hv=raw]").fill("[200006, 173781, 200005, 17196, 12194, 200006, 1428, 200008, 12194, 200007]")
    pg.locator("[data-hv=apply]").click()
    lab_page.wait_for_function("() => document.querySelectorAll('.hv-pg [data-hv=tokens] [data-hv=token]').length === 10", timeout=30_000)
    assert pg.locator("[data-hv=token]").first.inner_text() == "200006"  # ids mode shows ids
    assert "kept as given" in pg.locator("[data-hv=origin]").inner_text()
    assert pg.locator("[data-hv=card]").count() == 2
    assert "missing-message" in pg.locator("[data-hv=diagnostics]").inner_text()
    assert pg.locator("[data-hv=token].hv-pg-diag-error").count() > 0
    state = _kernel_state(lab_page)
    assert state["n"] == 10 and state["origin"] == "tokens"
    assert lab_page.errors == []
