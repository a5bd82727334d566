"""The saved chat-template page in headless chromium: codes on the chips, no network, no errors."""

from __future__ import annotations

import json
import re

import pytest
from _templates import TEMPLATE_PATH, WEATHER, call, real_template, request

from harmony_viz.cli import main

pytestmark = pytest.mark.browser

# Text a page must never turn into markup.
HOSTILE = '</script><img src=x onerror="window.pwned=1">'


def test_template_page_shows_codes_on_chips(page, tmp_path):
    pytest.importorskip("transformers")
    real_template()
    req = request({"role": "user", "content": HOSTILE},
                  {"role": "assistant", "content": "Checking.", "tool_calls": [call("c1", "get_weather", '{"city": "Paris"}'), call("c2", "get_weather", '{"city": "Lyon"}')]},
                  tools=[WEATHER])
    (tmp_path / "request.json").write_text(json.dumps(req))
    out = tmp_path / "page.html"
    assert main(["html", "--template", str(TEMPLATE_PATH), str(tmp_path / "request.json"), "-o", str(out)]) == 0
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
    page.goto(out.as_uri())
    page.wait_for_selector("[data-hv=diff-summary]")
    assert page.inner_text("[data-hv=diff-summary]").startswith("4 differences between the format and the chat template")
    listed = page.eval_on_selector_all("[data-hv=template-difference]", "els => els.map(e => e.dataset.code)")
    assert listed == ["preamble-as-analysis", "constrain-missing", "arguments-double-encoded", "parallel-calls-dropped"]
    # every code sits on chips of the side(s) it quotes
    ours = set(page.eval_on_selector_all("[data-hv=diff-reference] [data-codes]", "els => els.flatMap(e => e.dataset.codes.split(' '))"))
    theirs = set(page.eval_on_selector_all("[data-hv=diff-template] [data-codes]", "els => els.flatMap(e => e.dataset.codes.split(' '))"))
    assert ours == set(listed) and theirs == set(listed) - {"parallel-calls-dropped"}
    # the dropped call's tokens are on our side only, badged
    badged = page.eval_on_selector_all("[data-hv=diff-reference] [data-codes~=parallel-calls-dropped]", "els => els.map(e => e.textContent).join('')")
    assert "Lyon" in badged
    assert page.evaluate("window.pwned") is None and page.locator("img").count() == 0
    assert page.errors == []
