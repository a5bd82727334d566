"""The conformance matrix page in headless chromium: its filters hide and show rows and columns, a cell opens its replay.

Also writes docs/images/conformance-matrix.png, the README's picture: the shipped reports of old
and new engine releases (docs/conformance/reports/) merged into one matrix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harmony_viz.cli import main

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "docs" / "conformance" / "reports"
# two releases each of vLLM and llama.cpp, and SGLang's parser and the reference server at whatever version they ship
SHIPPED = ("vllm-0.16.0.json.gz", "vllm-0.32.0.json.gz", "llama.cpp-0.3.17.json.gz", "llama.cpp-0.3.36.json.gz", "sglang*.json.gz", "gpt-oss*.json.gz")
PICTURE = ROOT / "docs" / "images" / "conformance-matrix.png"
# a few families and the two unstreamed APIs: a picture one can read (the page itself has them all)
PICTURE_FAMILIES = ("preamble", "header")  # preamble: vLLM 0.16.0 hides them in Responses, 0.32.0 does not (PR #32114)
PICTURE_APIS = ("chat", "responses")


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A page from a real run through SGLang's parser, with its replays."""
    import _server

    if not (ROOT / ".venv-sglang" / "bin" / "python").is_file():
        _server._unavailable("no SGLang parser venv: run scripts/install-sglang-parser.sh")
    out = tmp_path_factory.mktemp("matrix") / "m.html"
    assert main(["conformance", "--sglang", "--select", "header/*", "--select", "clean/*", "--select", "prompt/two-step", "--html", str(out)]) == 1
    return out


def _open(page, path: Path):  # noqa: ANN001, ANN202
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())  # nothing but the files themselves
    page.goto(path.as_uri())
    page.wait_for_selector("[data-hv=matrix]")
    return page


def _visible_cases(page) -> list[str]:  # noqa: ANN001
    return page.eval_on_selector_all("tr[data-hv=case]", "rs => rs.filter(r => r.offsetParent !== null).map(r => r.dataset.case)")


def _visible_columns(page) -> list[str]:  # noqa: ANN001
    return page.eval_on_selector_all("th[data-hv=column]", "hs => hs.filter(h => h.offsetParent !== null).map(h => h.dataset.api)")


def test_filters_hide_and_show_rows_and_columns(page, matrix: Path) -> None:  # noqa: ANN001
    _open(page, matrix)
    rows = page.eval_on_selector_all("tr[data-hv=case]", "rs => rs.map(r => r.dataset.case)")
    # SGLang serves Chat Completions only: by default the columns nothing is served in are hidden, and
    # with them the prompt case, whose one result (not served: SGLang runs offline) sits in such a column
    every = [c for c in rows if c != "prompt/two-step"]
    assert _visible_cases(page) == every and len(every) > 10
    assert page.inner_text("[data-hv=shown]") == f"{len(every)} of {len(rows)} cases shown"
    assert _visible_columns(page) == ["chat", "chat-stream"]
    assert not page.is_visible("tr[data-hv=family][data-family=prompt]")
    page.uncheck("input[data-filter=unserved]")
    assert _visible_columns(page) == ["chat", "chat-stream", "responses", "responses-stream", "prompt"]
    assert _visible_cases(page) == rows
    page.check("input[data-filter=unserved]")

    # family: header off, its rows and its family row go
    page.uncheck("input[data-filter=family][value=header]")
    shown = _visible_cases(page)
    assert shown == [c for c in every if not c.startswith("header/")]
    assert not page.is_visible("tr[data-hv=family][data-family=header]") and page.is_visible("tr[data-hv=family][data-family=clean]")
    assert page.inner_text("[data-hv=shown]") == f"{len(shown)} of {len(rows)} cases shown"
    page.check("input[data-filter=family][value=header]")
    assert _visible_cases(page) == every

    # status: only failures with an error; the rows left have one, the other cells are dimmed
    page.click("button[data-filter-none=status]")
    assert _visible_cases(page) == []
    page.check("input[data-filter=status][value=fail-error]")
    want = page.eval_on_selector_all("tr[data-hv=case]", """rs => rs.filter(r => [...r.querySelectorAll('td[data-hv=cell]')]
        .some(c => c.dataset.class === 'fail-error' && ['chat', 'chat-stream'].includes(c.dataset.api))).map(r => r.dataset.case)""")
    assert _visible_cases(page) == want and 0 < len(want) < len(every)
    dims = page.eval_on_selector_all("td[data-hv=cell]", "cs => cs.map(c => [c.dataset.class, c.dataset.match])")
    assert all((m == "1") == (cls == "fail-error") for cls, m in dims)
    page.click("button[data-filter-all=status]")
    assert _visible_cases(page) == every

    # the case id search
    page.fill("input[data-filter=text]", "glued")
    assert _visible_cases(page) == ["header/glued-channel"]
    page.fill("input[data-filter=text]", "")

    # API: chat-stream off, its column goes; codes off, the cells keep their symbols
    page.uncheck("input[data-filter=api][value=chat-stream]")
    assert _visible_columns(page) == ["chat"] and _visible_cases(page) == every
    page.check("input[data-filter=api][value=chat-stream]")
    page.uncheck("input[data-filter=codes]")
    assert not page.is_visible("td[data-hv=cell] .codes >> nth=0") and page.is_visible("td[data-hv=cell] .sym >> nth=0")
    page.check("input[data-filter=codes]")

    # engine: SGLang off, no column is left, and no row
    page.uncheck("input[data-filter=engine][value=sglang]")
    assert _visible_columns(page) == [] and _visible_cases(page) == []
    page.check("input[data-filter=engine][value=sglang]")
    assert _visible_cases(page) == every
    assert page.errors == []


@contextmanager
def _replay_of_cell(page, cell: str, replay: str, api: str) -> Iterator[None]:  # noqa: ANN001
    """Click the matrix cell ``cell``: its replay page ``replay`` opens on the server tab at ``api``; the block checks
    more, then the page's link leads back to the matrix, with no error on either page."""
    page.click(cell)
    page.wait_for_selector("[data-hv=server-panel]")
    assert page.url.split("#")[0].endswith(replay)
    assert page.get_attribute("[data-hv=api-tab-server]", "class").split() == ["hv-tab", "hv-tab-on"]
    assert page.eval_on_selector("[data-hv=server-api].hv-tab-on", "b => b.dataset.api") == api
    yield
    page.click("[data-hv=page-link]")  # back to the matrix
    page.wait_for_selector("[data-hv=matrix]")
    assert page.errors == []


def test_a_cell_opens_its_case_replay_at_its_engine_and_api(page, matrix: Path) -> None:  # noqa: ANN001
    _open(page, matrix)
    with _replay_of_cell(page, "td[data-hv=cell][data-case='header/glued-channel'][data-api=chat-stream] a", "m.replays/header--glued-channel.html", "chat-stream"):
        assert "reasoning-in-content" in page.eval_on_selector_all("[data-hv=discrepancy]", "ds => ds.map(d => d.dataset.code)")


def test_a_cell_of_shipped_captures_opens_their_replay_at_its_engine_and_api(page, tmp_path: Path) -> None:  # noqa: ANN001
    # No engine here: the shipped captures of one stream (vLLM's, llama.cpp's and SGLang's answers, checked for
    # real) stand in for a run's results of one case, so the replay and its opener are tested without SGLang.
    from harmony_viz.conformance import Outcome, Target, conformance_page, conformance_report, load_suite, write_replays
    from harmony_viz.servers import lens

    case = next(c for c in load_suite() if c.id == "clean/final-only")
    checks = [r for e in ("vllm", "llama.cpp", "sglang") for r in lens.check_captures(lens.shipped_captures(e)) if lens.stream_name(r) == "clean-final"]
    outcomes = [Outcome(case=case, engine=r.engine, api=r.api, status="pass", check=r) for r in checks]
    out = tmp_path / "m.html"
    links, problems = write_replays(outcomes, out)
    out.write_text(conformance_page([conformance_report(outcomes, [Target(e) for e in ("vllm", "llama.cpp", "sglang")])], outcomes=outcomes,
                                    links=links, notes=problems), encoding="utf-8")
    assert problems == [] and sorted(p.name for p in (tmp_path / "m.replays").iterdir()) == ["clean--final-only.html"]  # one page, every engine
    _open(page, out)
    with _replay_of_cell(page, "td[data-hv=cell][data-engine='llama.cpp'][data-api=responses-stream] a", "m.replays/clean--final-only.html", "responses-stream"):
        assert page.eval_on_selector("[data-hv=engine-select]", "s => s.value") == "llama.cpp"


def test_the_readme_picture_of_the_shipped_reports_merged(page, tmp_path: Path) -> None:  # noqa: ANN001
    found = {pattern: sorted(REPORTS.glob(pattern)) if REPORTS.is_dir() else [] for pattern in SHIPPED}
    missing = [pattern for pattern, paths in found.items() if not paths]
    if missing:
        pytest.skip(f"the shipped reports are not all there yet (docs/conformance/reports/ has no {', '.join(missing)}): "
                    "the picture is of them, so none is made")
    out = tmp_path / "axis.html"
    assert main(["conformance", "--merge", *(str(p) for paths in found.values() for p in paths), "--html", str(out)]) == 0
    page.set_viewport_size({"width": 1800, "height": 1200})
    _open(page, out)
    for family in page.eval_on_selector_all("input[data-filter=family]", "is => is.map(i => i.value)"):
        if family not in PICTURE_FAMILIES:
            page.uncheck(f"input[data-filter=family][value='{family}']")
    for api in page.eval_on_selector_all("input[data-filter=api]", "is => is.map(i => i.value)"):
        if api not in PICTURE_APIS:
            page.uncheck(f"input[data-filter=api][value='{api}']")
    assert set(c.split("/")[0] for c in _visible_cases(page)) == set(PICTURE_FAMILIES)
    assert set(_visible_columns(page)) == set(PICTURE_APIS)
    versions = page.eval_on_selector_all("th[data-hv=version-head]", "hs => hs.map(h => h.dataset.engine + ' ' + h.dataset.version)")
    # llama.cpp's trees say b0-unknown for a build: their version is the tree's, "0.3.17 (b0-unknown)"
    assert {"vllm 0.16.0", "vllm 0.32.0", "llama.cpp 0.3.17", "llama.cpp 0.3.36"} <= {v.split(" (")[0] for v in versions}
    marks = page.eval_on_selector_all("td[data-change]", "cs => cs.filter(c => c.offsetParent !== null).map(c => c.dataset.change)")
    assert {"fixed", "broke"} <= set(marks)  # the picture shows the version axis at work
    # the whole table, no scroll bars: the page as wide as what is shown, cut below the table
    page.evaluate("document.querySelector('.wrap').style.maxHeight = 'none'; document.querySelector('.wrap').style.maxWidth = 'none'")
    width = page.evaluate("Math.ceil(Math.max(...[...document.querySelectorAll('.wrap, .filters > *')].map(e => e.getBoundingClientRect().right))) + 12")
    page.set_viewport_size({"width": max(width, 900), "height": 800})
    bottom = page.evaluate("Math.ceil(document.querySelector('.wrap').getBoundingClientRect().bottom + window.scrollY) + 8")
    PICTURE.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(PICTURE), full_page=True, clip={"x": 0, "y": 0, "width": max(width, 900), "height": bottom})
    assert PICTURE.stat().st_size > 10_000
    assert page.errors == []
