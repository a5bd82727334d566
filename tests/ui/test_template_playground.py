"""The playground's "chat template" layout in a real JupyterLab: pick it, see the codes on the chips, read it in the kernel."""

from __future__ import annotations

import json
import re

import pytest
from _lab import lab_notebook, wait_for_kernel
from _templates import TEMPLATE_PATH, WEATHER, call, real_template, request

pytestmark = pytest.mark.browser

REQUEST = request(
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "tool_calls": [call("c1", "get_weather", '{"city": "Paris"}')]},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    tools=[WEATHER],
)


@pytest.fixture(scope="module")
def lab_page(browser, jupyter_lab):
    pytest.importorskip("transformers")
    real_template()
    cells = [
        ("import json\nfrom harmony_viz import playground\nfrom harmony_viz.render import conversation_from_chat\n"
         f"w = playground(conversation_from_chat(json.loads({json.dumps(REQUEST)!r})), chat_template={str(TEMPLATE_PATH)!r})\nw"),
        "import json\nprint('PY', json.dumps({'layout': w.diff_layout, 'codes': [d['code'] for d in w._diff.get('differences', [])]}))",
    ]
    yield from lab_notebook(browser, jupyter_lab, "template-playground.ipynb", cells,
                            ready="() => document.querySelectorAll('.hv-pg [data-hv=token]').length > 0")


def test_choosing_the_chat_template_layout(lab_page) -> None:
    pg = lab_page.locator(".hv-pg").first
    pg.locator("[data-hv=diff-toggle]").click()
    pg.locator("[data-hv=diff-summary]").wait_for(state="visible")
    pg.locator("[data-hv=diff-layout]").select_option("template")
    lab_page.wait_for_function("() => (document.querySelector('.hv-pg [data-hv=diff-summary]') || {}).textContent?.startsWith('3 differences')", timeout=30_000)
    listed = pg.locator("[data-hv=template-difference]").evaluate_all("els => els.map(e => e.dataset.code)")
    assert listed == ["constrain-missing", "arguments-double-encoded", "tool-result-double-encoded"]
    badges = pg.locator("[data-hv=diff-template] [data-hv=diff-code]").evaluate_all("els => els.map(e => e.textContent)")
    assert badges == listed
    text = wait_for_kernel(lab_page, "return out.includes('\"layout\": \"template\"')", cell=1)
    state = json.loads(re.search(r"PY (.+)", text).group(1))
    assert state == {"layout": "template", "codes": listed}
