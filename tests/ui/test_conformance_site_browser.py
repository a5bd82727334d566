"""The published conformance site in headless chromium: built from the shipped reports, every page browsed from the index.

Each site page (index, engines, cases, rules) is opened: it draws with no page error, and every
link on it resolves (a page or badge of the site that exists, its #fragment an element of that
page; an outside link an https address, not fetched: the machine has no network) and every image
loads. Replay pages are linked from the case pages: each exists, and one of them is opened too.
"""

from __future__ import annotations

import re
from collections import deque
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from harmony_viz.cli import main

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
REPORTS = sorted((ROOT / "docs" / "conformance" / "reports").glob("*.json.gz"))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    assert main(["conformance", "--merge", *map(str, REPORTS), "--site", str(out)]) == 0
    return out


def _open(page, path: Path) -> None:  # noqa: ANN001
    page.goto(path.as_uri())
    page.wait_for_selector("html[data-hv-drawn]", state="attached")


def _links(page) -> list[str]:  # noqa: ANN001
    return page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)")


def _ids(page) -> set[str]:  # noqa: ANN001
    return set(page.eval_on_selector_all("[id]", "es => es.map(e => e.id)"))


def test_every_page_draws_and_every_link_and_image_resolves(page, site: Path) -> None:  # noqa: ANN001
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())  # nothing but the site's own files
    seen: set[Path] = set()
    fragments: dict[Path, set[str]] = {}
    wanted: list[tuple[Path, str, Path]] = []  # (page, fragment, the page linking to it)
    replays: set[Path] = set()
    queue = deque([site / "index.html"])
    while queue:
        path = queue.popleft()
        if path in seen:
            continue
        seen.add(path)
        _open(page, path)
        fragments[path] = _ids(page)
        images = page.eval_on_selector_all("img", "is => is.map(i => [i.src, i.complete && i.naturalWidth > 0])")
        for src, loaded in images:
            assert loaded, f"{path.relative_to(site)}: image {src} did not load"
        for href in _links(page):
            url = urlparse(href)
            if url.scheme in ("http", "https"):
                assert url.scheme == "https" and url.netloc, f"{path.relative_to(site)}: {href}"
                continue
            assert url.scheme == "file", f"{path.relative_to(site)}: {href}"
            target = Path(unquote(url.path))
            assert target.is_file(), f"{path.relative_to(site)} links to {href}, which is not there"
            assert site in target.parents, f"{path.relative_to(site)} links outside the site: {href}"
            if "replay" in target.relative_to(site).parts:
                replays.add(target)
                continue
            if url.fragment:
                wanted.append((target, url.fragment, path))
            if target.suffix == ".html":
                queue.append(target)
    assert page.errors == []
    for target, fragment, source in wanted:
        assert fragment in fragments[target], f"{source.relative_to(site)} links to #{fragment} of {target.relative_to(site)}, which has no such id"
    kinds = {p.relative_to(site).parts[0] if len(p.relative_to(site).parts) > 1 else p.name for p in seen}
    assert kinds == {"index.html", "rules.html", "engine", "case"}
    assert seen >= set((site / "case").iterdir()) | set((site / "engine").iterdir())  # every page is reached from the index
    assert replays == set((site / "replay").iterdir())


def test_the_index_shows_rates_by_level_and_family_and_must_failures_open_their_case(page, site: Path) -> None:  # noqa: ANN001
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
    _open(page, site / "index.html")
    rows = page.eval_on_selector_all("tr[data-hv=engine-row]", "rs => rs.map(r => [r.dataset.engine, r.dataset.version])")
    assert len(rows) == len(REPORTS)
    header = page.eval_on_selector_all("table[data-hv=engines] thead th", "ts => ts.map(t => t.textContent)")
    assert header[:6] == ["engine", "badge", "must", "should", "may", "all"] and "preamble" in header
    first = page.locator("details[data-hv=must-failures]").first
    first.locator("summary").click()
    link = first.locator("a").first
    case = link.text_content()
    link.click()
    page.wait_for_selector("html[data-hv-drawn]", state="attached")
    assert page.locator("h1").text_content() == case
    assert page.locator("[data-hv=result]").count() > 0
    assert page.errors == []


def test_a_replay_page_linked_from_a_case_opens(page, site: Path) -> None:  # noqa: ANN001
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
    _open(page, site / "case" / "clean--final-only.html")
    page.locator("a[data-hv=replay-link]").click()
    page.wait_for_load_state("load")
    assert page.url.endswith("/replay/clean--final-only.html")
    page.wait_for_selector("[data-hv=token]")
    assert page.locator("[data-hv=token]").count() == 6  # the stream's six tokens: <|channel|>final<|message|>Hello.<|return|>
    assert page.locator("a", has_text="the case clean/final-only").get_attribute("href") == "../case/clean--final-only.html"
    assert page.errors == []


AXE = ROOT / "js" / "node_modules" / "axe-core" / "axe.min.js"


@pytest.mark.parametrize("where", ["index.html", "rules.html", "engine/llama.cpp-0.3.36.html", "case/header--no-channel.html"])
def test_site_pages_have_no_serious_accessibility_violation(page, site: Path, where: str) -> None:  # noqa: ANN001
    """axe (pinned in js/package.json) on each kind of page, as tests/ui/test_accessibility.py audits the others."""
    if not AXE.is_file():
        pytest.skip(f"{AXE} is missing: run `cd js && npm install`")
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
    _open(page, site / where)
    assert page.errors == []
    page.add_script_tag(path=str(AXE))  # axe then asks for the stylesheet itself, which file:// refuses it: its own console lines, not the page's
    found = page.evaluate("""async () => (await axe.run(document, { resultTypes: ['violations'] })).violations
        .filter(v => ['serious', 'critical'].includes(v.impact)).map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '))""")
    assert found == []
