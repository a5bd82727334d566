"""The replay widget in a real JupyterLab: run the notebook, step in the browser, read the traits in the kernel.

Also writes docs/replay.png, the screenshot the README shows.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _lab import lab_notebook, wait_for_kernel
from _replay_streams import XSS_TEXT
from playwright.sync_api import expect

from harmony_viz.cli import REPLAY_SAMPLE, replay_tokens
from harmony_viz.tokens import encode
from harmony_viz.trace import Trace

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "docs" / "replay.png"
SHOT_SAMPLE = REPLAY_SAMPLE  # a clean tool-calling transcript, the one `harmony-viz demo` replays


@pytest.fixture(scope="module")
def lab_page(browser, jupyter_lab, corpus_dir):
    """A JupyterLab tab with a notebook of two replay widgets, all cells run."""
    root: Path = jupyter_lab["root"]
    (root / "xss.txt").write_text(XSS_TEXT, encoding="utf-8")
    cells = [
        "from harmony_viz import replay\nw = replay(open('xss.txt').read(), chunking='every:2')\nw",
        "print('PY', w.step, w.selected, w.chunking, w.n_steps)",
        "w.step = 5",
        # the screenshot: demo's real tool-calling run (get_weather for three cities), at its last call
        "from harmony_viz.data import sample_path\nfrom harmony_viz.runs import load_file\n"
        f"shot = replay(load_file(sample_path({SHOT_SAMPLE!r}))[-1], chunking='every:2')\n"
        "shot.step = [m for m in shot.trace.messages if m.kind == 'tool_call'][-1].step_ended\nshot",
    ]
    ready = ("() => document.querySelectorAll('.hv-root').length === 2 &&"
             " document.querySelectorAll('.hv-root [data-hv=step]')[0].dataset.step === '5'")
    yield from lab_notebook(browser, jupyter_lab, "hv_replay_widget.ipynb", cells, ready=ready, viewport=(1500, 1500))


def _py_state(page, until: str = "return true") -> list[str]:
    text = wait_for_kernel(page, until, cell=1)
    return re.search(r"PY (.+)", text).group(1).split()


def test_python_sets_the_step_and_the_browser_follows(lab_page) -> None:
    widget = lab_page.locator(".hv-root").first
    assert widget.locator("[data-hv=step]").get_attribute("data-step") == "5"
    n = len(encode(XSS_TEXT))
    # steps 1..5 of every:2 fed 10 tokens: exactly those chips are not dimmed
    assert widget.locator("[data-hv=token]:not(.hv-dim)").count() == 10
    assert widget.locator("[data-hv=token]").count() == n


def test_browser_steps_and_clicks_reach_the_kernel(lab_page) -> None:
    widget = lab_page.locator(".hv-root").first
    widget.locator("[data-hv=next]").click()
    widget.locator("[data-hv=next]").click()
    widget.locator("[data-hv=token][data-i='3']").click()
    # the clicks reach the kernel after a round trip: wait for the state, not for a time
    step, selected, chunking, n_steps = _py_state(lab_page, until="return /PY 7 3 /.test(out)")
    assert (step, selected, chunking) == ("7", "3", "every:2")
    assert int(n_steps) == -(-len(encode(XSS_TEXT)) // 2) + 2


def test_changing_chunking_in_the_browser_recomputes_in_python(lab_page) -> None:
    widget = lab_page.locator(".hv-root").first
    widget.locator("[data-hv=chunking]").select_option("token")
    n = len(encode(XSS_TEXT))
    lab_page.wait_for_function(f"() => document.querySelector('.hv-root [data-hv=step]').textContent.includes(' of {n + 1} ')", timeout=30_000)
    step, _, chunking, n_steps = _py_state(lab_page)
    assert chunking == "token" and int(n_steps) == n + 2
    assert step == "14"  # every:2 step 7 had fed 14 tokens; token chunking keeps the place


def test_panels_and_markup_in_jupyterlab(lab_page) -> None:
    widget = lab_page.locator(".hv-root").first
    widget.locator("[data-hv=last]").click()
    convo = widget.locator("[data-hv=conversation]").inner_text()
    assert "Literal: <script>window.__hv_xss=6</script> &amp;" in convo
    assert lab_page.evaluate("window.__hv_xss") is None
    assert widget.locator("img, script, svg, iframe").count() == 0
    # the API view is drawn just after the step (off its critical path) once the kernel sends it
    widget.locator("[data-hv=api] .hv-json").wait_for()
    assert '"object": "chat.completion"' in widget.locator("[data-hv=api]").inner_text()
    # the last step is the end-of-stream flush: <|return|> already closed the final message
    assert widget.locator("[data-hv=events]").inner_text() == "no events this step"
    log = widget.locator("[data-hv=log]").inner_text()
    assert "ToolCallEnd" in log and "terminator=<|return|>" in log
    assert lab_page.errors == []


def test_screenshot_for_the_readme(lab_page) -> None:
    shot = lab_page.locator(".hv-root").nth(1)
    # the notebook scrolls inside its panel: bring the widget's top to the top of that panel
    shot.evaluate("el => el.scrollIntoView({block: 'start'})")
    trace = Trace.build(replay_tokens(), "every:2")
    call = [m for m in trace.messages if m.kind == "tool_call"][-1]
    assert shot.locator("[data-hv=step]").get_attribute("data-step") == str(call.step_ended)
    card = shot.locator(f"[data-hv=conversation] .hv-card[data-message='{call.index}']")
    # The card is drawn just after the step (the text may land a frame later): wait for it, not for a time.
    expect(card).to_contain_text("get_weather", timeout=30_000)
    # the API view holds the call as a client has it once <|call|> arrived
    expect(shot.locator("[data-hv=api] .hv-json")).to_contain_text('"finish_reason": null', timeout=30_000)
    expect(shot.locator("[data-hv=api] .hv-json")).to_contain_text('"name": "get_weather"', timeout=30_000)
    assert card.is_visible()
    shot.locator("[data-hv=token].hv-cur").first.hover()
    lab_page.locator("[data-hv=tooltip]:visible").wait_for()  # the tip lives on <body>
    SCREENSHOT.parent.mkdir(exist_ok=True)
    shot.screenshot(path=str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 20_000
