"""``conformance --html`` and ``--merge``: the matrix page, built from reports the runner made for real.

The page is drawn by its script (js/matrixpage.ts) from the data in it: every page here is read
as chromium draws it (``_drawn.drawn``), its DOM's HTML once the script ran.

The reports come from real runs: SGLang's own parser (offline, ``.venv-sglang``) and, in the
tests marked ``server``, the reference server (``gpt_oss_server``). No engine here exists in two
versions, so the version axis is tested on a real report paired with copies of it whose
``engine_version`` the test rewrites and some of whose results it flips (said at that test).
"""

from __future__ import annotations

import copy
import gzip
import json
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from _drawn import drawn

from harmony_viz.cli import main
from harmony_viz.conformance import MATRIX_CLASSES, MergeError, check_report, conformance_page, load_suite, read_report, version_key

ROOT = Path(__file__).resolve().parents[1]
SELECT = ["header/*", "clean/final-only", "stop/continues-after-call", "prompt/two-step"]
SYMBOLS = {cls: sym for cls, sym, _, _ in MATRIX_CLASSES}


def _sglang_or_skip() -> None:
    import _server

    if not (ROOT / ".venv-sglang" / "bin" / "python").is_file():
        _server._unavailable("no SGLang parser venv: run scripts/install-sglang-parser.sh")


def _select_args() -> list[str]:
    return [a for pattern in SELECT for a in ("--select", pattern)]


class _Page(HTMLParser):
    """Every element with a data-hv (or data-filter) attribute: its tag, attributes, text and the href of a link inside it."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[dict] = []
        self._open: list[dict] = []
        self.feed(text if 'data-hv="matrix"' in text else drawn(text))  # a page not drawn yet is drawn first

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = {k: (v if v is not None else "") for k, v in attrs}
        if "data-hv" in a or "data-filter" in a:
            el = {"tag": tag, "attrs": a, "text": "", "href": None}
            self.elements.append(el)
            if tag in ("td", "th", "tr", "p", "span"):
                self._open.append(el)
        if tag == "a" and self._open:
            self._open[-1]["href"] = a.get("href")

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1]["tag"] == tag:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        for el in self._open:
            el["text"] += data

    def all(self, hv: str) -> list[dict]:
        return [e for e in self.elements if e["attrs"].get("data-hv") == hv]

    def filters(self, name: str) -> list[dict]:
        return [e for e in self.elements if e["attrs"].get("data-filter") == name]


def _expected_class(r: dict) -> str:
    """What a cell's class must be, computed here from the result alone."""
    severities = {d["severity"] for d in (r.get("discrepancies") or r.get("differences") or [])}
    if r["status"] == "fail":
        return "fail-error" if "error" in severities else "fail-warning"
    return r["status"]


def _key(attrs: dict) -> tuple[str, str, str, str]:
    return (attrs["data-case"], attrs["data-engine"], attrs["data-version"], attrs["data-api"])


@pytest.fixture(scope="module")
def sglang_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One real run through SGLang's parser: its JSON report, the page and the replays folder the CLI wrote."""
    _sglang_or_skip()
    out = tmp_path_factory.mktemp("sglang")
    js, page = out / "r.json", out / "r.html"
    assert main(["conformance", "--sglang", *_select_args(), "--json", str(js), "--html", str(page)]) == 1  # the zoo's headers fail
    return {"report": json.loads(js.read_text()), "json": js, "html": drawn(page), "path": page, "replays": out / "r.replays"}


# --- one run's page ---------------------------------------------------------------------------

def test_one_cell_per_result_with_its_status_severity_and_codes(sglang_run: dict) -> None:
    results = sglang_run["report"]["results"]
    cells = _Page(sglang_run["html"]).all("cell")
    assert len(cells) == len(results)
    version = {e["name"]: e["version"] for e in sglang_run["report"]["engines"]}  # a result without one (not served offline) is its engine's
    by_key = {(r["case"], r["engine"], r["engine_version"] or version[r["engine"]], r["api"]): r for r in results}
    assert {_key(c["attrs"]) for c in cells} == set(by_key)
    seen = set()
    for c in cells:
        a, r = c["attrs"], by_key[_key(c["attrs"])]
        assert a["data-status"] == r["status"]
        assert a["data-codes"].split() == sorted(r["codes"])
        assert a["data-class"] == _expected_class(r)
        # not by colour alone: the cell says its status with a symbol and a word, and names its codes
        assert SYMBOLS[a["data-class"]] in c["text"]
        assert all(code in c["text"] for code in r["codes"])
        assert "data-change" not in a  # one version: nothing to compare with
        seen.add(a["data-class"])
    assert {"pass", "fail-error", "not-served"} <= seen  # a real run's mix, not a page of one colour


def test_rows_are_cases_grouped_by_family_with_the_description_as_tooltip(sglang_run: dict) -> None:
    page = _Page(sglang_run["html"])
    rows = page.all("case")
    results = sglang_run["report"]["results"]
    in_order = list(dict.fromkeys(r["case"] for r in results))  # the suite's order, which interleaves families
    families = list(dict.fromkeys(c.split("/")[0] for c in in_order))
    assert [f["attrs"]["data-family"] for f in page.all("family")] == families == ["clean", "header", "stop", "prompt"]
    assert [r["attrs"]["data-case"] for r in rows] == [c for f in families for c in in_order if c.split("/")[0] == f]
    assert all(r["attrs"]["data-family"] == r["attrs"]["data-case"].split("/")[0] for r in rows)
    descriptions = {c.id: c.description for c in load_suite()}
    for case in {r["case"] for r in results}:  # the row's first cell holds the case's description
        m = re.search(r'<tr data-hv="case" data-case="' + re.escape(case) + r'"[^>]*><th class="case" title="([^"]*)" data-description="([^"]*)"',
                      sglang_run["html"])
        assert m, case
        assert unescape(m.group(2)) == descriptions[case]
        assert unescape(m.group(1)) == f"{case}: {descriptions[case]}"


def test_columns_filters_and_the_summary(sglang_run: dict) -> None:
    page = _Page(sglang_run["html"])
    report = sglang_run["report"]
    heads = page.all("column")
    assert [(h["attrs"]["data-engine"], h["attrs"]["data-version"], h["attrs"]["data-api"]) for h in heads] == [
        ("sglang", "0.5.23", api) for api in ("chat", "chat-stream", "responses", "responses-stream", "prompt")]
    # SGLang serves Chat Completions only: the other columns are marked, and hidden by the default filter
    assert [h["attrs"]["data-served"] for h in heads] == ["1", "1", "0", "0", "0"]
    assert [e["text"].strip() for e in page.all("engine-head")] == ["sglang 0.5.23"]  # one report: the version is in the header
    assert [f["attrs"]["value"] for f in page.filters("family")] == ["clean", "header", "stop", "prompt"]
    assert [f["attrs"]["value"] for f in page.filters("status")] == [c for c, *_ in MATRIX_CLASSES]
    assert [f["attrs"]["value"] for f in page.filters("engine")] == ["sglang"]
    assert [f["attrs"]["value"] for f in page.filters("api")] == ["chat", "chat-stream", "responses", "responses-stream", "prompt"]
    assert page.filters("text") and page.filters("unserved") and page.filters("codes")
    assert not page.filters("changes")  # no version axis in one run
    (summary,) = page.all("summary")
    s, a = report["summary"], summary["attrs"]
    assert int(a["data-results"]) == s["total"]
    assert int(a["data-pass"]) == s["passed"]
    assert int(a["data-fail-error"]) + int(a["data-fail-warning"]) == s["failed"]
    assert (int(a["data-known"]), int(a["data-fixed"]), int(a["data-not-served"]), int(a["data-error"])) == (s["known"], s["fixed"], s["not_served"], s["errors"])
    assert f"{s['total']} results" in summary["text"] and f"{s['passed']} pass" in summary["text"]


def _replay_checks(path: Path) -> list[dict]:
    text = path.read_text()
    assert "<title>" in text and "Harmony replay" in text and '<div id="hv-app">' in text  # the existing replay page
    data = json.loads(re.search(r'<script type="application/json" id="hv-data">(.*?)</script>', text, re.S).group(1))
    return data["meta"]["server"]["checks"]


def test_served_cells_link_to_replay_pages_that_hold_their_engine_and_api(sglang_run: dict) -> None:
    cells = _Page(sglang_run["html"]).all("cell")
    folder: Path = sglang_run["replays"]
    linked = 0
    for c in cells:
        a = c["attrs"]
        if a["data-status"] in ("not-served", "error"):
            assert c["href"] is None
            continue
        assert c["href"], a
        url = urlsplit(c["href"])
        target = sglang_run["path"].parent / unquote(url.path)
        assert target.parent == folder and target.is_file()
        want = parse_qs(url.fragment)
        assert want == {"tab": ["server"], "engine": [a["data-engine"]], "api": [a["data-api"]]}
        assert (a["data-engine"], a["data-api"]) in {(k["engine"], k["api"]) for k in _replay_checks(target)}
        assert target.name == a["data-case"].replace("/", "--") + ".html"
        linked += 1
    assert linked == sum(1 for r in sglang_run["report"]["results"] if r["status"] not in ("not-served", "error"))
    # one page per answer case, every API of it together
    assert sorted(p.name for p in folder.iterdir()) == sorted({c["attrs"]["data-case"].replace("/", "--") + ".html" for c in cells if c["href"]})
    assert 'data-hv="replay-problem"' not in sglang_run["html"]  # the drawn DOM; the script itself names the marker


def test_the_page_is_self_contained(sglang_run: dict) -> None:
    text = sglang_run["html"]
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert "<link" not in text and " src=" not in text
    assert not re.search(r'href="(?!r\.replays/)', text)  # every link is a replay beside the page
    assert text.count("<script>") == 1 and text.count("<style") == 2


def test_links_and_notes_given_in_python(sglang_run: dict) -> None:
    report = sglang_run["report"]
    r = _pick(report, "fail")
    key = (r["case"], r["engine"], r["api"], r["engine_version"])
    page = _Page(conformance_page([report], links={key: "elsewhere/x.html#tab=server"}, notes=["a note"]))
    linked = [c for c in page.all("cell") if c["href"]]
    assert [(_key(c["attrs"]), c["href"]) for c in linked] == [((r["case"], r["engine"], r["engine_version"], r["api"]), "elsewhere/x.html#tab=server")]
    assert [p["text"] for p in page.all("replay-problem")] == ["a note"]


# --- reading reports ------------------------------------------------------------------------

def test_a_report_reads_as_json_and_as_gzipped_json(sglang_run: dict, tmp_path: Path) -> None:
    gz = tmp_path / "sglang-0.5.23.json.gz"
    gz.write_bytes(gzip.compress(sglang_run["json"].read_bytes()))
    assert read_report(sglang_run["json"]) == sglang_run["report"] == read_report(gz)


def _bad_reports(tmp_path: Path, good: dict) -> list[tuple[Path, str]]:
    def write(name: str, data: bytes) -> Path:
        p = tmp_path / name
        p.write_bytes(data)
        return p

    no_status = copy.deepcopy(good)
    del no_status["results"][1]["status"]
    bad_status = copy.deepcopy(good)
    bad_status["results"][0]["status"] = "ok"
    other_format = {**good, "format": 2}
    no_results = {k: v for k, v in good.items() if k != "results"}
    whole = gzip.compress(json.dumps(good).encode())
    return [
        (tmp_path / "missing.json", "cannot read the report"),
        (write("text.json", b"not json\n"), "not JSON"),
        (write("cut.json.gz", whole[: len(whole) // 2]), "not a readable gzip file"),
        (write("plain.json.gz", json.dumps(good).encode()), "named .gz but not gzipped"),
        (write("latin.json", b"\xff\xfe{}"), "not UTF-8"),
        (write("list.json", b"[]"), "a report is a JSON object"),
        (write("format.json", json.dumps(other_format).encode()), "report format 2"),
        (write("noresults.json", json.dumps(no_results).encode()), "no results"),
        (write("nostatus.json", json.dumps(no_status).encode()), "results[1] has no status"),
        (write("badstatus.json", json.dumps(bad_status).encode()), 'results[0].status is "ok"'),
    ]


def test_a_report_that_cannot_be_read_is_one_merge_error_line_and_cli_exit_2(sglang_run: dict, tmp_path: Path,
                                                                              capsys: pytest.CaptureFixture[str]) -> None:
    for path, why in _bad_reports(tmp_path, sglang_run["report"]):
        with pytest.raises(MergeError) as err:
            read_report(path)
        line = str(err.value)
        assert line.startswith(f"{path}: ") and why in line and "\n" not in line, line
        out = tmp_path / "m.html"
        assert main(["conformance", "--merge", str(sglang_run["json"]), str(path), "--html", str(out)]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and why in lines[0], lines
        assert not out.exists()


def test_merge_needs_html_and_exits_0_when_the_reports_read(sglang_run: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "--merge", str(sglang_run["json"])]) == 2
    assert "give --html OUT.html" in capsys.readouterr().err
    out = tmp_path / "m.html"
    assert main(["conformance", "--merge", str(sglang_run["json"]), "--html", str(out)]) == 0
    cells = _Page(out.read_text()).all("cell")
    assert len(cells) == len(sglang_run["report"]["results"])
    assert all(c["href"] is None for c in cells)  # saved reports carry no replays, and the legend says so
    assert "these are saved reports" in drawn(out)


# --- the version axis -----------------------------------------------------------------------

def test_versions_sort_numerically() -> None:
    assert sorted(["0.32.0", "0.16.0", "0.3.36", "0.3.17", "0.10.1", "0.9.2"], key=version_key) == ["0.3.17", "0.3.36", "0.9.2", "0.10.1", "0.16.0", "0.32.0"]
    assert sorted(["b1234", "b999", "b10000"], key=version_key) == ["b999", "b1234", "b10000"]
    assert sorted(["v0.5.10", "0.5.9", None], key=version_key) == ["0.5.9", "v0.5.10", None]


def _as_version(report: dict, version: str) -> dict:
    out = copy.deepcopy(report)
    for e in out["engines"]:
        e["version"] = version
    for r in out["results"]:
        r["engine_version"] = version
    return check_report(out)


def _pick(report: dict, status: str, api: str = "chat") -> dict:
    return next(r for r in report["results"] if r["status"] == status and r["api"] == api)


def test_merged_versions_are_ordered_and_cells_that_changed_are_marked(sglang_run: dict, tmp_path: Path) -> None:
    # The data is a real run's; the versions are not. SGLang's parser here is 0.5.23 only, so the test
    # makes an "older" 0.5.9 (an exact copy) and a "newer" 0.5.100 in which it flips three results by
    # hand: a failure now passes, a pass now fails, a failure fails with other codes. That exercises
    # the change marks; which engine release fixed what is for the shipped reports to say.
    real = sglang_run["report"]
    older = _as_version(real, "0.5.9")
    newer = _as_version(real, "0.5.100")
    fixed, broke, changed = _pick(newer, "fail"), _pick(newer, "pass"), [r for r in newer["results"] if r["status"] == "fail" and r["api"] == "chat"][1]
    fixed.update(status="pass", codes=[], discrepancies=[])
    broke.update(status="fail", codes=["text-dropped"], discrepancies=[{"code": "text-dropped", "severity": "error", "message": "flipped by the test", "where": None}])
    changed.update(codes=["server-error"], discrepancies=[{"code": "server-error", "severity": "error", "message": "flipped by the test", "where": None}])
    page_text = conformance_page([newer, real, older])  # any order: the columns sort by version
    page = _Page(page_text)
    heads = page.all("column")
    assert [h["attrs"]["data-version"] for h in heads] == ["0.5.9"] * 5 + ["0.5.23"] * 5 + ["0.5.100"] * 5  # not string order
    assert [v["text"] for v in page.all("version-head")] == ["0.5.9", "0.5.23", "0.5.100"]
    assert [e["text"] for e in page.all("engine-head")] == ["sglang"]
    cells = page.all("cell")
    assert len(cells) == 3 * len(real["results"])
    marked = {(c["attrs"]["data-case"], c["attrs"]["data-version"], c["attrs"]["data-api"]): c for c in cells if "data-change" in c["attrs"]}
    assert {k: c["attrs"]["data-change"] for k, c in marked.items()} == {
        (fixed["case"], "0.5.100", "chat"): "fixed", (broke["case"], "0.5.100", "chat"): "broke", (changed["case"], "0.5.100", "chat"): "changed"}
    assert "fixed in 0.5.100" in marked[(fixed["case"], "0.5.100", "chat")]["text"]
    assert "broke in 0.5.100" in marked[(broke["case"], "0.5.100", "chat")]["text"]
    assert "changed in 0.5.100" in marked[(changed["case"], "0.5.100", "chat")]["text"]
    rows = {r["attrs"]["data-case"]: int(r["attrs"]["data-changes"]) for r in page.all("case")}
    assert {k for k, v in rows.items() if v} == {fixed["case"], broke["case"], changed["case"]}
    assert page.filters("changes")  # a version axis: the "only rows that changed" filter
    (summary,) = page.all("summary")
    assert (summary["attrs"]["data-changes-fixed"], summary["attrs"]["data-changes-broke"], summary["attrs"]["data-changes-changed"]) == ("1", "1", "1")
    # The same through the CLI, from files (one gzipped, as the shipped reports are)
    a, b = tmp_path / "sglang-0.5.100.json.gz", tmp_path / "sglang-0.5.9.json"
    a.write_bytes(gzip.compress(json.dumps(newer).encode()))
    b.write_text(json.dumps(older))
    out = tmp_path / "axis.html"
    assert main(["conformance", "--merge", str(a), str(sglang_run["json"]), str(b), "--html", str(out)]) == 0
    via_cli = {(c["attrs"]["data-case"], c["attrs"]["data-version"], c["attrs"]["data-api"]): c["attrs"]["data-change"]
               for c in _Page(out.read_text()).all("cell") if "data-change" in c["attrs"]}
    assert via_cli == {k: c["attrs"]["data-change"] for k, c in marked.items()}


def test_two_runs_that_say_the_same_version_are_told_apart_and_shards_are_joined(sglang_run: dict, tmp_path: Path,
                                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # llama.cpp built without a build number says b0-unknown whatever its release: two such reports
    # are two runs. Here a real report and a copy of it with one result flipped, both saying 0.5.23.
    real = sglang_run["report"]
    again = copy.deepcopy(real)
    flipped = _pick(again, "fail")
    flipped.update(status="pass", codes=[], discrepancies=[])
    page = _Page(conformance_page([real, again]))  # no file names: told apart by place
    assert [v["attrs"]["data-version"] for v in page.all("version-head")] == ["0.5.23 #1", "0.5.23 #2"]
    assert len(page.all("cell")) == 2 * len(real["results"])
    marks = [(c["attrs"]["data-case"], c["attrs"]["data-version"], c["attrs"]["data-api"], c["attrs"]["data-change"]) for c in page.all("cell") if "data-change" in c["attrs"]]
    assert marks == [(flipped["case"], "0.5.23 #2", "chat", "fixed")]
    # through --merge, the file names give the versions (ENGINE-VERSION.json[.gz], as the shipped reports are named)
    old_file, new_file = tmp_path / "sglang-0.5.9.json.gz", tmp_path / "sglang-0.5.10.json"
    old_file.write_bytes(gzip.compress(json.dumps(real).encode()))
    new_file.write_text(json.dumps(again))
    out = tmp_path / "m.html"
    assert main(["conformance", "--merge", str(new_file), str(old_file), "--html", str(out)]) == 0
    page = _Page(out.read_text())
    heads = page.all("version-head")
    assert [v["attrs"]["data-version"] for v in heads] == ["0.5.9", "0.5.10"]
    assert heads[0]["attrs"]["title"] == "sglang 0.5.23 in sglang-0.5.9.json.gz (shown as 0.5.9)"
    assert "sglang 0.5.9 (offline) (it says 0.5.23)" in page.all("engines")[0]["text"]
    assert [c["attrs"]["data-version"] for c in page.all("cell") if "data-change" in c["attrs"]] == ["0.5.10"]
    # other names: told apart by file name
    a, b = tmp_path / "run-a.json", tmp_path / "run-b.json"
    a.write_text(json.dumps(real))
    b.write_text(json.dumps(again))
    assert main(["conformance", "--merge", str(a), str(b), "--html", str(out)]) == 0
    assert [v["attrs"]["data-version"] for v in _Page(out.read_text()).all("version-head")] == ["0.5.23 (run-a.json)", "0.5.23 (run-b.json)"]
    # shards of one run (the same version, no result in both) are one column set
    half = len(real["results"]) // 2
    first, second = copy.deepcopy(real), copy.deepcopy(real)
    first["results"], second["results"] = real["results"][:half], real["results"][half:]
    page = _Page(conformance_page([first, second]))
    assert not page.all("version-head") and [e["text"].strip() for e in page.all("engine-head")] == ["sglang 0.5.23"]
    assert {_key(c["attrs"]) for c in page.all("cell")} == {_key(c["attrs"]) for c in _Page(sglang_run["html"]).all("cell")}


SHIPPED = ROOT / "docs" / "conformance" / "reports"


def test_the_shipped_reports_merge_into_a_version_axis(tmp_path: Path) -> None:
    files = sorted(SHIPPED.glob("*.json.gz")) if SHIPPED.is_dir() else []
    if not files:
        pytest.skip("docs/conformance/reports/ holds no report yet")
    reports = [read_report(f) for f in files]
    out = tmp_path / "axis.html"
    assert main(["conformance", "--merge", *map(str, files), "--html", str(out)]) == 0
    page = _Page(out.read_text())
    assert len(page.all("cell")) == sum(len(r["results"]) for r in reports)  # no result lost, none joined with another
    names = [f.name.removesuffix(".json.gz") for f in files]
    for engine in {h["attrs"]["data-engine"] for h in page.all("column")}:
        mine = [n.removeprefix(engine + "-") for n in names if n.startswith(engine + "-")]
        # llama.cpp's "0.3.17 (b0-unknown)": the tree's version, then the build it reports
        shown = list(dict.fromkeys(h["attrs"]["data-version"].split(" (")[0] for h in page.all("column") if h["attrs"]["data-engine"] == engine))
        assert shown == sorted(mine, key=version_key), engine  # each file's version (its engine's, or its name's), in order


# --- two engines, live ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def live_run(gpt_oss_server, sglang_run: dict, tmp_path_factory: pytest.TempPathFactory) -> dict:  # noqa: ANN001
    """SGLang and the reference server in one run (the page and its replays), and the reference server alone (a report to merge)."""
    out = tmp_path_factory.mktemp("live")
    page, alone = out / "both.html", out / "gpt-oss.json"
    assert main(["conformance", "--sglang", "--gpt-oss", gpt_oss_server.url, *_select_args(), "--html", str(page)]) == 1
    assert main(["conformance", "--gpt-oss", gpt_oss_server.url, *_select_args(), "--json", str(alone)]) == 1
    return {"path": page, "html": drawn(page), "replays": out / "both.replays", "gpt-oss": alone}


@pytest.mark.server
def test_two_engines_share_a_case_replay_and_prompt_cases_link_their_prompt_check(live_run: dict) -> None:
    page = _Page(live_run["html"])
    cells = page.all("cell")
    assert [e["text"].strip() for e in page.all("engine-head")] == ["sglang 0.5.23", "gpt-oss 0.0.9"]
    header = [c for c in cells if c["attrs"]["data-case"] == "header/glued-channel" and c["href"]]
    assert {c["attrs"]["data-engine"] for c in header} == {"sglang", "gpt-oss"}
    assert len({urlsplit(c["href"]).path for c in header}) == 1  # one page, both engines
    target = live_run["path"].parent / unquote(urlsplit(header[0]["href"]).path)
    assert {(k["engine"], k["api"]) for k in _replay_checks(target)} == {(c["attrs"]["data-engine"], c["attrs"]["data-api"]) for c in header}
    # a prompt case: the reference server's prompt check, in the replay's prompt tab
    (prompt,) = [c for c in cells if c["attrs"]["data-case"] == "prompt/two-step" and c["attrs"]["data-engine"] == "gpt-oss"]
    url = urlsplit(prompt["href"])
    assert url.fragment == "tab=prompt"
    text = (live_run["path"].parent / unquote(url.path)).read_text()
    assert '"prompt":' in text and "Harmony replay" in text
    (sg,) = [c for c in cells if c["attrs"]["data-case"] == "prompt/two-step" and c["attrs"]["data-engine"] == "sglang"]
    assert sg["attrs"]["data-status"] == "not-served" and sg["href"] is None
    # the reference server stops at <|call|>: it replayed a shorter stream, so it has a page of its own
    stop = {c["attrs"]["data-engine"]: urlsplit(c["href"]).path for c in cells if c["attrs"]["data-case"] == "stop/continues-after-call" and c["href"]}
    assert stop["sglang"].endswith("stop--continues-after-call.html") and stop["gpt-oss"].endswith("stop--continues-after-call.gpt-oss.html")
    assert 'data-hv="replay-problem"' not in live_run["html"]


@pytest.mark.server
def test_merging_two_engines_reports_marks_no_change(live_run: dict, sglang_run: dict, tmp_path: Path) -> None:
    out = tmp_path / "two.html"
    assert main(["conformance", "--merge", str(sglang_run["json"]), str(live_run["gpt-oss"]), "--html", str(out)]) == 0
    page = _Page(out.read_text())
    assert [e["text"].strip() for e in page.all("engine-head")] == ["sglang 0.5.23", "gpt-oss 0.0.9"]
    assert not page.all("version-head")  # one version each: no version row
    cells = page.all("cell")
    n = len(sglang_run["report"]["results"]) + len(json.loads(live_run["gpt-oss"].read_text())["results"])
    assert len(cells) == n
    assert not [c for c in cells if "data-change" in c["attrs"]]  # another engine is not another version
