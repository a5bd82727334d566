"""The server tab in the live widget, in a real JupyterLab: a click on a discrepancy moves the kernel's step."""

from __future__ import annotations

import re

import pytest
from _lab import lab_notebook, wait_for_kernel

from harmony_viz.servers import lens

pytestmark = pytest.mark.browser

STREAM = "stripped-control-tokens"


@pytest.fixture(scope="module")
def lab_page(browser, jupyter_lab):  # noqa: ANN001, ANN201
    cells = [
        "from harmony_viz import replay\nfrom harmony_viz.servers import lens\n"
        f"rs = [r for r in lens.check_captures(lens.shipped_captures()) if lens.stream_name(r) == {STREAM!r}]\n"
        "w = replay(rs)\nw",
        "print('PY', w.step)",
    ]
    ready = "() => document.querySelectorAll('.hv-root [data-hv=token]').length > 0"
    yield from lab_notebook(browser, jupyter_lab, "hv_server_tab.ipynb", cells, ready=ready)


def test_a_discrepancy_click_reaches_the_kernel(lab_page) -> None:  # noqa: ANN001
    result = next(r for r in lens.check_captures(lens.shipped_captures()) if lens.stream_name(r) == STREAM)
    where = next(d.where for d in result.discrepancies if d.code == "reasoning-in-content")
    widget = lab_page.locator(".hv-root").first
    widget.locator("[data-hv=api-tab-server]").click()
    assert widget.locator("[data-hv=discrepancies]").is_visible()
    widget.locator("[data-hv=discrepancy][data-code=reasoning-in-content]").click()
    assert widget.locator("[data-hv=step]").get_attribute("data-step") == str(where.end)
    out = wait_for_kernel(lab_page, f"return out.includes('PY {where.end}')", cell=1)
    assert re.search(rf"PY {where.end}\b", out)
    lit = widget.locator("[data-hv=token].hv-hl").count()
    assert lit == where.end - where.start
    assert [e for e in lab_page.errors if "hv" in e or "server" in e] == []


def test_the_chips_carry_each_checks_fates_in_jupyterlab(lab_page) -> None:  # noqa: ANN001
    """The same notebook: the chips say what vLLM's chat answer made of each token; the server tab's api picks another check's."""
    from harmony_viz.servers.core import FATES, result_fates

    results = [r for r in lens.check_captures(lens.shipped_captures()) if lens.stream_name(r) == STREAM]
    widget = lab_page.locator(".hv-root").first
    widget.locator("[data-hv=colour]").select_option("server")

    def chips() -> dict:
        got = widget.locator("[data-hv=token]").evaluate_all("els => els.map(e => [+e.dataset.i, e.dataset.fate ?? null, e.dataset.fateMismatch === 'true'])")
        return {i: (f, m) for i, f, m in got}

    def want(r) -> dict:  # noqa: ANN001
        f = result_fates(r)
        return {t: (FATES[a] or None, a != b) for t, (a, b) in enumerate(zip(f.fate, f.expected))}

    assert chips() == want(results[0])
    assert {f for f, m in chips().values() if m} == {"content"}  # the chain of thought returned as content
    widget.locator("[data-hv=api-tab-server]").click()
    widget.locator("[data-hv=server-api][data-api=responses]").click()
    assert chips() == want(next(r for r in results if r.api == "responses"))
    assert [e for e in lab_page.errors if "hv" in e or "fate" in e] == []
