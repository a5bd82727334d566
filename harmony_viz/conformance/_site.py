"""The published site (``conformance --merge REPORT... --site DIR``): saved reports as static pages an engine team can link to.

``DIR/index.html``: engines x versions, each one's pass rate per level and per family, its
``must`` failures linked to their cases; ``DIR/engine/SLUG.html``: one engine and version, every
case through every API; ``DIR/case/SLUG.html``: one case (its rules, its stream, each engine's
answer and codes, the replay of its stream); ``DIR/rules.html``: the rules and the cases citing
each; ``DIR/badges/SLUG.svg``: a badge of the ``must`` pass rate that a README can embed;
``DIR/replay/SLUG.html``: each answer case's stream as a replay page.

Every page is drawn by the bundle (``js/sitepage.ts``, built to ``static/site_page.js`` and
``site_page.css``, copied to ``DIR/assets/``) from its JSON island; this module gives each page
its data and writes the badges (SVG through ``xml.etree``). A rate is passing (pass, fixed) of
the results served (every status but not-served), as the matrix counts a column.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harmony_viz import __version__
from harmony_viz._replay import script_json
from harmony_viz._static import asset
from harmony_viz.conformance._case import Case, load_suite
from harmony_viz.conformance._page import KNOWN_KIND_LABELS, _engine_order, _ordered, _version_labels, version_key
from harmony_viz.conformance._report import read_report, result_known_kind, result_level, shipped_known_of
from harmony_viz.conformance._rules import LEVELS, rules

_SLUG = re.compile(r"[^A-Za-z0-9._-]+")
BADGE_LABEL = "harmony must"  # what a badge says on its left


class SiteError(ValueError):
    """A site that cannot be written: one line, ``PATH: why``."""


def page_slug(text: str) -> str:
    """A file name for a case id or an engine and version: ``header/no-channel`` -> ``header--no-channel``."""
    return _SLUG.sub("-", text.replace("/", "--")).strip("-") or "x"


def _rate(statuses: Sequence[str]) -> dict[str, Any]:
    served = [s for s in statuses if s != "not-served"]
    passing = sum(1 for s in served if s in ("pass", "fixed"))
    return {"passing": passing, "served": len(served), "rate": round(passing / len(served), 4) if served else None}


def _stream_text(case: Case) -> str:
    if case.text is not None:
        return case.text
    if case.ids is None:
        return ""
    from harmony_viz.tokens import encoding

    return encoding().decode(list(case.ids))


# --- the data of each page ------------------------------------------------------------------

def _columns(reports: Sequence[Mapping[str, Any]], sources: Sequence[str]) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """Every result once, with its engine's version label (as the matrix labels them); and the (engine, version) pairs in order."""
    labels, _ = _version_labels(reports, sources)
    out: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for i, rep in enumerate(reports):
        for r in rep["results"]:
            version = str(labels[(i, r["engine"])])
            known = shipped_known_of(r) if not r.get("reason") else None  # a saved failure the shipped known files triage
            out[(r["case"], r["engine"], version, r["api"])] = {
                "case": r["case"], "engine": r["engine"], "version": version, "api": r["api"], "status": r["status"],
                "codes": sorted(set(r.get("codes") or ())), "level": result_level(r), "knownKind": result_known_kind(r),
                "family": str(r.get("family") or r["case"].split("/", 1)[0]),
                "reason": str(r.get("reason") or (known.reason if known else "")), "link": str(r.get("link") or (known.link if known else "")),
                "draft": known.draft if known else "", "error": " ".join(str(r.get("error") or "").split())[:300]}
    results = list(out.values())
    engines = _ordered((r["engine"] for r in results), _engine_order())
    pairs = [(e, v) for e in engines for v in sorted({r["version"] for r in results if r["engine"] == e}, key=version_key)]
    return results, pairs


def _summary(mine: Sequence[Mapping[str, Any]], levels: Sequence[str], families: Sequence[str]) -> dict[str, Any]:
    return {"levels": {lv: _rate([r["status"] for r in mine if r["level"] == lv]) for lv in levels},
            "families": {f: _rate([r["status"] for r in mine if r["family"] == f]) for f in families},
            "all": _rate([r["status"] for r in mine]),
            "kinds": {k: sum(1 for r in mine if r["knownKind"] == k) for k, _, _ in KNOWN_KIND_LABELS}}


def site_data(reports: Sequence[Mapping[str, Any]], sources: Sequence[str]) -> dict[str, Any]:
    """What every page of the site is drawn from: the engines and versions with their rates, the cases, the rules."""
    results, pairs = _columns(reports, sources)
    suite = {c.id: c for c in load_suite()}
    families = list(dict.fromkeys(r["family"] for r in results))
    case_ids = list(dict.fromkeys([*(c for c in suite if any(r["case"] == c for r in results)), *(r["case"] for r in results)]))
    engines = []
    for engine, version in pairs:
        mine = [r for r in results if r["engine"] == engine and r["version"] == version]
        name = page_slug(f"{engine}-{version}")
        engines.append({"engine": engine, "version": version, "slug": name, "apis": list(dict.fromkeys(r["api"] for r in mine)),
                        **_summary(mine, LEVELS, families)})
    cases = []
    for cid in case_ids:
        c = suite.get(cid)
        level = c.level if c is not None else next((r["level"] for r in results if r["case"] == cid), "")
        cases.append({"id": cid, "slug": page_slug(cid), "family": cid.split("/", 1)[0], "level": level,
                      "kind": c.kind if c is not None else "", "description": c.description if c is not None else "",
                      "rules": list(c.rules) if c is not None else [], "provenance": c.provenance if c is not None else "",
                      "stream": _stream_text(c) if c is not None and c.kind == "answer" else "",
                      "request": c.request if c is not None else {}, "replay": c is not None and c.kind == "answer"})
    return {"generator": f"harmony-viz {__version__}", "levels": list(LEVELS), "families": families, "engines": engines, "cases": cases,
            "results": results, "rules": [r.to_json() for r in rules()], "sources": [Path(s).name for s in sources],
            "knownKinds": [{"kind": k, "label": label, "what": what} for k, label, what in KNOWN_KIND_LABELS]}


# --- badges ---------------------------------------------------------------------------------

def _text_width(text: str) -> int:
    return 7 * len(text) + 10  # 11px sans-serif: about 7px a character, 5px padding a side


def badge_svg(label: str, value: str, colour: str) -> str:
    """A flat badge (label | value) as SVG text: two rectangles and their words, sized by the words' length."""
    left, right = _text_width(label), _text_width(value)
    svg = ET.Element("svg", xmlns="http://www.w3.org/2000/svg", width=str(left + right), height="20", role="img",
                     attrib={"aria-label": f"{label}: {value}"})
    ET.SubElement(svg, "title").text = f"{label}: {value}"
    ET.SubElement(svg, "rect", width=str(left), height="20", fill="#555")
    ET.SubElement(svg, "rect", x=str(left), width=str(right), height="20", fill=colour)
    group = ET.SubElement(svg, "g", fill="#fff", attrib={"font-family": "Verdana,DejaVu Sans,sans-serif", "font-size": "11", "text-anchor": "middle"})
    ET.SubElement(group, "text", x=str(left // 2), y="14").text = label
    ET.SubElement(group, "text", x=str(left + right // 2), y="14").text = value
    return ET.tostring(svg, encoding="unicode") + "\n"


def badge_colour(rate: float | None) -> str:
    """Green at 90 % and above, yellow-green at 75 %, orange at 50 %, red below; grey for nothing served (white text keeps 4.5:1 on each)."""
    if rate is None:
        return "#6e6e6e"
    return "#2b7a0b" if rate >= 0.9 else "#5b6e00" if rate >= 0.75 else "#a64b00" if rate >= 0.5 else "#b31b1b"


def engine_badge(e: Mapping[str, Any]) -> str:
    must = e["levels"].get("must") or {"rate": None, "passing": 0, "served": 0}
    value = f"{must['rate']:.0%} · {e['engine']} {e['version']}" if must["rate"] is not None else f"n/a · {e['engine']} {e['version']}"
    return badge_svg(BADGE_LABEL, value, badge_colour(must["rate"]))


# --- pages ----------------------------------------------------------------------------------

def _page(title: str, root: str, data: Mapping[str, Any]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"generator\" content=\"harmony-viz {html.escape(__version__)}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)}</title>\n<link rel=\"stylesheet\" href=\"{root}assets/site_page.css\">\n</head>\n<body>\n"
            "<main id=\"hv-app\"></main>\n"
            f"<script type=\"application/json\" id=\"hv-data\">{script_json(data)}</script>\n"
            f"<script src=\"{root}assets/site_page.js\"></script>\n</body>\n</html>\n")


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise SiteError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _replays(cases: Sequence[Mapping[str, Any]], out: Path) -> list[str]:
    """Each answer case's stream as a replay page, beside a link back to its case page; the problems (one line each)."""
    from harmony_viz._replay import save_html

    suite = {c.id: c for c in load_suite()}
    problems = []
    for c in cases:
        case = suite.get(c["id"])
        if not c["replay"] or case is None or case.ids is None:
            continue
        path = out / "replay" / f"{c['slug']}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            save_html(list(case.ids), path, role="assistant", name=c["id"], links=[(f"the case {c['id']}", f"../case/{c['slug']}.html")])
        except (ValueError, OSError) as exc:
            problems.append(f"{c['id']}: no replay ({' '.join(str(exc).split())})")
            c["replay"] = False
    return problems


def write_site(paths: Sequence[str], out_dir: str | Path) -> Path:
    """The site of the saved reports at ``paths`` written into ``out_dir`` (made if missing); MergeError or SiteError in one line."""
    reports = [read_report(p) for p in paths]
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SiteError(f"{out}: not a folder")
    if not out.parent.is_dir():
        raise SiteError(f"{out.parent}: no such folder")
    data = site_data(reports, [str(p) for p in paths])
    try:
        (out / "assets").mkdir(parents=True, exist_ok=True)
        for name in ("site_page.js", "site_page.css"):
            shutil.copyfile(asset(name), out / "assets" / name)
    except OSError as exc:
        raise SiteError(f"{out / 'assets'}: cannot write: {exc.strerror or exc}") from None
    notes = _replays(data["cases"], out)
    nav = {"engines": [{k: e[k] for k in ("engine", "version", "slug")} for e in data["engines"]]}
    common = {"generator": data["generator"], "levels": data["levels"], "knownKinds": data["knownKinds"], **nav}
    _write(out / "index.html", _page("Harmony conformance: engines and releases", "",
                                     {**common, "page": "index", "root": "", "families": data["families"], "sources": data["sources"], "notes": notes,
                                      "engineRows": data["engines"], "cases": [{k: c[k] for k in ("id", "slug", "level", "family")} for c in data["cases"]],
                                      "failures": [r for r in data["results"] if r["status"] in ("fail", "known", "error") and r["level"] == "must"]}))
    by_case = {c["id"]: c for c in data["cases"]}
    for e in data["engines"]:
        _write(out / "badges" / f"{e['slug']}.svg", engine_badge(e))
        mine = [r for r in data["results"] if r["engine"] == e["engine"] and r["version"] == e["version"]]
        _write(out / "engine" / f"{e['slug']}.html", _page(f"{e['engine']} {e['version']}: Harmony conformance", "../",
                                                            {**common, "page": "engine", "root": "../", "row": e, "families": data["families"],
                                                             "results": mine, "cases": [{k: by_case[c][k] for k in ("id", "slug", "level", "family", "description")}
                                                                                        for c in dict.fromkeys(r["case"] for r in mine)]}))
    rule_ids = {r["id"] for r in data["rules"]}
    for c in data["cases"]:
        mine = [r for r in data["results"] if r["case"] == c["id"]]
        _write(out / "case" / f"{c['slug']}.html", _page(f"{c['id']}: Harmony conformance", "../",
                                                         {**common, "page": "case", "root": "../", "case": c, "results": mine,
                                                          "rules": [r for r in data["rules"] if r["id"] in c["rules"]],
                                                          "unknownRules": [r for r in c["rules"] if r not in rule_ids]}))
    _write(out / "rules.html", _page("Harmony conformance: the rules", "",
                                     {**common, "page": "rules", "root": "", "rules": data["rules"],
                                      "cases": [{k: c[k] for k in ("id", "slug", "level", "rules")} for c in data["cases"]]}))
    _write(out / "site.json", json.dumps({k: data[k] for k in ("generator", "levels", "engines", "sources")}, ensure_ascii=False, indent=1) + "\n")
    return out
