"""The published site, ``conformance --merge REPORT... --site DIR`` (issue 34 item 7), built from the shipped reports.

What it writes (an index, a page per engine and version, per case, the rules, a badge per engine
and version, a replay per answer case) and what each page's data says: the pass rates are the
reports' own, counted again here; badges are valid SVG naming the must pass rate. The pages drawn
in chromium, every link and image followed: tests/ui/test_conformance_site_browser.py.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harmony_viz.cli import main
from harmony_viz.conformance import level_rates, read_report, rules
from harmony_viz.conformance import page_slug as slug

ROOT = Path(__file__).resolve().parents[1]
REPORTS = sorted((ROOT / "docs" / "conformance" / "reports").glob("*.json.gz"))
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    assert len(REPORTS) >= 6
    assert main(["conformance", "--merge", *map(str, REPORTS), "--site", str(out)]) == 0
    return out


def island(page: Path) -> dict:
    text = page.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="hv-data">(.*?)</script>', text, re.S)
    assert found, page
    return json.loads(found.group(1))


def test_the_site_has_every_page_and_badge(site: Path) -> None:
    reports = [read_report(p) for p in REPORTS]
    pairs = {(r["engines"][0]["name"], r["engines"][0]["version"]) for r in reports}
    cases = {res["case"] for r in reports for res in r["results"]}
    assert {p.name for p in (site / "engine").iterdir()} == {f"{slug(f'{e}-{v}')}.html" for e, v in pairs}
    assert {p.name for p in (site / "badges").iterdir()} == {f"{slug(f'{e}-{v}')}.svg" for e, v in pairs}
    assert {p.name for p in (site / "case").iterdir()} == {f"{slug(c)}.html" for c in cases}
    assert (site / "index.html").is_file() and (site / "rules.html").is_file()
    assert {p.name for p in (site / "assets").iterdir()} == {"site_page.js", "site_page.css"}
    answers = {c for r in reports for res in r["results"] if res.get("kind") == "answer" for c in [res["case"]]}
    assert {p.name for p in (site / "replay").iterdir()} == {f"{slug(c)}.html" for c in answers}


def test_the_index_rates_are_the_reports_own(site: Path) -> None:
    data = island(site / "index.html")
    assert data["page"] == "index" and data["levels"] == ["must", "should", "may"]
    rows = {(e["engine"], e["version"]): e for e in data["engineRows"]}
    for path in REPORTS:
        rep = read_report(path)
        engine, version = rep["engines"][0]["name"], rep["engines"][0]["version"]
        assert rows[(engine, version)]["levels"] == level_rates(rep["results"])[engine], path.name
        fam = {}
        for r in rep["results"]:
            fam.setdefault(r["family"], []).append(r["status"])
        for family, statuses in fam.items():
            served = [s for s in statuses if s != "not-served"]
            got = rows[(engine, version)]["families"][family]
            assert (got["passing"], got["served"]) == (sum(s in ("pass", "fixed") for s in served), len(served)), (path.name, family)
    # each must failure on the index names a must case that has a page
    assert data["failures"] and all(f["level"] == "must" and f["status"] in ("fail", "known", "error") for f in data["failures"])
    assert all((site / "case" / f"{slug(f['case'])}.html").is_file() for f in data["failures"])


def test_badges_are_valid_svg_that_say_the_must_rate(site: Path) -> None:
    index = {(e["engine"], e["version"]): e for e in island(site / "index.html")["engineRows"]}
    for (engine, version), e in index.items():
        root = ET.parse(site / "badges" / f"{e['slug']}.svg").getroot()
        assert root.tag == f"{SVG}svg"
        assert int(root.get("width")) > 0 and root.get("height") == "20"
        texts = [t.text for t in root.iter(f"{SVG}text")]
        must = e["levels"]["must"]
        assert texts == ["harmony must", f"{round(100 * must['passing'] / must['served'])}% · {engine} {version}"]
        assert root.find(f"{SVG}title").text == f"harmony must: {texts[1]}"


def test_a_case_page_has_its_rules_stream_and_every_engine_answer(site: Path) -> None:
    data = island(site / "case" / "header--no-channel.html")
    assert data["case"]["id"] == "header/no-channel" and data["case"]["level"] == "should"
    assert [r["id"] for r in data["rules"]] == ["H31"]
    assert data["case"]["stream"] == "<|message|>plain answer<|return|>"
    assert {(r["engine"], r["version"]) for r in data["results"]} == {(e["engine"], e["version"]) for e in data["engines"]}
    bugs = [r for r in data["results"] if r["knownKind"] == "bug"]
    assert bugs and all(r["link"].startswith("https://github.com/") or r["draft"] for r in bugs)
    assert data["case"]["replay"] is True


def test_the_rules_page_lists_every_rule_and_the_cases_citing_it(site: Path) -> None:
    data = island(site / "rules.html")
    assert [r["id"] for r in data["rules"]] == [r.id for r in rules()]
    cited = {r for c in data["cases"] for r in c["rules"]}
    assert "H31" in cited and cited <= {r.id for r in rules()}


def test_a_site_needs_reports_and_a_folder_it_can_make(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "--site", str(tmp_path / "s")]) == 2
    assert capsys.readouterr().err.strip() == "harmony-viz conformance: --site builds from saved reports: give --merge REPORT... --site DIR"
    assert main(["conformance", "--merge", str(REPORTS[0]), "--site", str(tmp_path / "no" / "such" / "s")]) == 2
    assert capsys.readouterr().err.strip() == f"harmony-viz conformance: {tmp_path / 'no' / 'such'}: no such folder"
    assert not (tmp_path / "s").exists()
