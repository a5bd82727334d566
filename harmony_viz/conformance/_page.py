"""The conformance matrix: ``conformance --html`` (one run) and ``conformance --merge`` (reports joined on a version axis).

One self-contained page (nothing fetched): a row per case, grouped by family (the case's
description as its tooltip), a column per engine, version and API. Each cell is a result:
coloured by its status and worst severity, and saying so in text too (a symbol, the codes).
The page is drawn by the bundle (``js/matrixpage.ts``, built into ``static/matrix_page.js``
and ``matrix_page.css``, which takes its colours from the palette's variables); this module
gives it its data, a JSON island: the results as the reports say them (one per case, engine,
version and API), the engines and each one's versions in order, the APIs' order, the cases'
families and descriptions, the links to the replays and each result's lines for its tooltip.
The bundle lays out the columns, marks the cells that changed across versions and filters.

In a live run each answer case's results make one replay page (``_replays``); a cell links to
it, opened at its engine and API. Merged reports are joined by engine, version and API; walking
one engine's versions in order, a cell whose result differs from the previous version's is
marked *fixed in X* (it failed, now passes), *broke in X* (it passed, now fails) or *changed in X*.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from harmony_viz import __version__
from harmony_viz._replay import script_json
from harmony_viz._static import asset_text
from harmony_viz.conformance._case import load_suite
from harmony_viz.conformance._replays import Key
from harmony_viz.conformance._report import check_report, result_known_kind, result_level
from harmony_viz.conformance._rules import LEVELS
from harmony_viz.conformance._run import PROMPT_API
from harmony_viz.servers import APIS, engines

SEVERITIES = ("error", "warning", "info")

# The cell classes, in the legend's order: (class, symbol, label, what it means).
MATRIX_CLASSES: tuple[tuple[str, str, str, str], ...] = (
    ("pass", "✓", "pass", "no finding of warning or above"),
    ("fail-error", "✗", "fail (error)", "fails, its worst finding an error"),
    ("fail-warning", "!", "fail (warning)", "fails, its worst finding a warning"),
    ("known", "≈", "known", "a listed known divergence, failing with the same codes"),
    ("fixed", "★", "fixed", "listed as a known divergence, and it now passes"),
    ("not-served", "–", "not served", "the engine has no such API, or cannot show such a prompt"),
    ("error", "⚠", "error", "the engine could not be asked at all"),
)
# A failure's triage (a known divergence's kind), in the legend's order: (kind, label, what it means).
KNOWN_KIND_LABELS: tuple[tuple[str, str, str], ...] = (
    ("bug", "bug", "a known divergence reported upstream (or drafted as a report): the engine's to fix"),
    ("intentional", "intentional", "a known divergence that is the engine's documented choice"),
    ("research-needed", "research needed", "a known divergence nobody has traced yet"),
)
UNKNOWN_VERSION = "?"
DETAIL_FINDINGS = 4  # findings a cell's tooltip names, the rest counted
DETAIL_CHARS = 180  # a finding's message in a tooltip, cut to this


# --- ordering -------------------------------------------------------------------------------

def version_key(version: str | None) -> tuple[Any, ...]:
    """Sorts versions numerically: ``0.16.0 < 0.32.0``, ``0.3.9 < 0.3.17``, ``b999 < b1234``; unknown last.

    >>> sorted(["0.32.0", "0.16.0", "0.3.17", "b1234", "b999", None, "0.3.9"], key=version_key)
    ['0.3.9', '0.3.17', '0.16.0', '0.32.0', 'b999', 'b1234', None]
    """
    if version is None or version == UNKNOWN_VERSION:
        return (1,)
    v = version[1:] if re.match(r"v\d", version) else version
    return (0, tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.findall(r"\d+|\D+", v)))


def _engine_order() -> list[str]:
    try:
        return [e.name for e in engines.engines()]
    except Exception:  # noqa: BLE001 - the order is cosmetic; a registry that cannot load leaves first-seen order
        return []


def _api_order() -> list[str]:
    return [*APIS, PROMPT_API]


def _ordered(seen: Iterable[str], preferred: Sequence[str]) -> list[str]:
    seen = list(dict.fromkeys(seen))
    return [x for x in preferred if x in seen] + [x for x in seen if x not in preferred]


@lru_cache(maxsize=1)
def _shipped_descriptions() -> dict[str, str]:
    try:
        return {c.id: c.description for c in load_suite()}
    except Exception:  # noqa: BLE001 - a description is a tooltip: without the suite a row shows its id alone
        return {}


@lru_cache(maxsize=1)
def _shipped_levels() -> dict[str, str]:
    try:
        return {c.id: c.level for c in load_suite()}
    except Exception:  # noqa: BLE001 - a level is a label: without the suite an old result is unrated
        return {}


def _version_labels(reports: Sequence[Mapping[str, Any]], sources: Sequence[str | Path] | None) -> tuple[dict[tuple[int, str], str], dict]:
    """The version each report's engine gets a column under: ``{(report index, engine): label}``."""
    told: dict[tuple[int, str], str] = {}
    keys: dict[tuple[int, str], set[tuple[str, str]]] = {}
    for i, rep in enumerate(reports):
        versions_of = {e.get("name"): e.get("version") for e in rep.get("engines", []) if isinstance(e, Mapping)}
        for r in rep["results"]:
            told.setdefault((i, r["engine"]), str(r.get("engine_version") or versions_of.get(r["engine"]) or UNKNOWN_VERSION))
            keys.setdefault((i, r["engine"]), set()).add((r["case"], r["api"]))
    labels = dict(told)
    groups: dict[tuple[str, str], list[int]] = {}
    for (i, engine), v in told.items():
        groups.setdefault((engine, v), []).append(i)
    for (engine, v), idx in groups.items():
        overlap = any(keys[(a, engine)] & keys[(b, engine)] for k, a in enumerate(idx) for b in idx[k + 1:])
        if len(idx) < 2 or not overlap:
            continue
        names = [Path(str(sources[i])).name if sources is not None and i < len(sources) else "" for i in idx]
        from_name = []
        for name in names:
            m = re.fullmatch(re.escape(engine) + r"-(.+?)\.json(?:\.gz)?", name)
            from_name.append(m.group(1) if m else "")
        if all(from_name) and len(set(from_name)) == len(idx):
            chosen = from_name
        elif all(names) and len(set(names)) == len(idx):
            chosen = [f"{v} ({n})" for n in names]
        else:
            chosen = [f"{v} #{k + 1}" for k in range(len(idx))]
        for i, label in zip(idx, chosen):
            labels[(i, engine)] = label
    return labels, told


def _findings(r: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = r.get("discrepancies") or r.get("differences") or []
    return [d for d in found if isinstance(d, Mapping)]


def _worst(r: Mapping[str, Any]) -> str:
    severities = {d.get("severity") for d in _findings(r)}
    return next((s for s in SEVERITIES if s in severities), "")


def _cut(text: Any) -> str:
    line = " ".join(str(text).split())
    return line[:DETAIL_CHARS] + "…" if len(line) > DETAIL_CHARS else line


def _details(r: Mapping[str, Any]) -> list[str]:
    """A result's lines for its cell's tooltip: the reason, its worst findings, the server's error, the link."""
    lines = [str(r["reason"])] if r.get("reason") else []
    findings = sorted(_findings(r), key=lambda d: SEVERITIES.index(d.get("severity")) if d.get("severity") in SEVERITIES else 9)
    lines += [f"[{d.get('severity')}] {d.get('code')}: {_cut(d.get('message', ''))}" for d in findings[:DETAIL_FINDINGS]]
    if len(findings) > DETAIL_FINDINGS:
        lines.append(f"… and {len(findings) - DETAIL_FINDINGS} more")
    if r.get("error") and r["status"] != "error":
        lines.append(f"server error: {' '.join(str(r['error']).split())[:DETAIL_CHARS]}")
    if r.get("link"):
        lines.append(f"link: {r['link']}")
    return lines


def _engine_lines(reports: Sequence[Mapping[str, Any]], labels: Mapping[tuple[int, str], str]) -> list[str]:
    lines = []
    for i, rep in enumerate(reports):
        for e in rep.get("engines", []):
            if isinstance(e, Mapping) and e.get("name"):
                where = f" at {e['url']}" if e.get("url") else " (offline)"
                label = labels.get((i, e["name"]), e.get("version") or UNKNOWN_VERSION)
                told = e.get("version") or UNKNOWN_VERSION
                lines.append(f"{e['name']} {label}{where}" + (f" (it says {told})" if told != label else ""))
    return list(dict.fromkeys(lines))


def _version_titles(labels: Mapping[tuple[int, str], str], said: Mapping[tuple[int, str], str],
                    sources: Sequence[str | Path] | None) -> dict[str, dict[str, str]]:
    """For each engine and version column: where its results come from (the reports' files, the version each told)."""
    whence: dict[str, dict[str, list[str]]] = {}
    for (i, engine), label in labels.items():
        src = f" in {Path(str(sources[i])).name}" if sources is not None and i < len(sources) else f" in report {i + 1}"
        told = said[(i, engine)]
        whence.setdefault(engine, {}).setdefault(label, []).append(f"{engine} {told}{src}" + (f" (shown as {label})" if label != told else ""))
    return {e: {v: "; ".join(lines) for v, lines in of.items()} for e, of in whence.items()}


def _results(reports: Sequence[Mapping[str, Any]], labels: Mapping[tuple[int, str], str],
             hrefs: Mapping[Key, str]) -> tuple[list[dict[str, Any]], int]:
    """Every result once, as the page reads it; a result given twice (same case, engine, version, api) keeps the later report's."""
    out: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    twice = 0
    for i, rep in enumerate(reports):
        for r in rep["results"]:
            version = str(labels[(i, r["engine"])])
            key = (r["case"], r["engine"], version, r["api"])
            twice += key in out
            out[key] = {"case": r["case"], "engine": r["engine"], "version": version, "api": r["api"], "status": r["status"],
                        "family": str(r.get("family") or r["case"].split("/", 1)[0]), "kind": str(r.get("kind") or ""),
                        "codes": sorted(set(r.get("codes") or ())), "severity": _worst(r), "level": result_level(r), "knownKind": result_known_kind(r),
                        "href": hrefs.get((r["case"], r["engine"], r["api"], r.get("engine_version")), ""), "details": _details(r)}
    return list(out.values()), twice


def matrix_data(reports: Sequence[Mapping[str, Any]], *, sources: Sequence[str | Path] | None = None, outcomes: Sequence[Any] | None = None,
                links: Mapping[Key, str] | None = None, notes: Sequence[str] = (), title: str | None = None) -> dict[str, Any]:
    """What the matrix page draws (its JSON island); ``conformance_page`` takes the same arguments."""
    reports = [check_report(r, f"report {i + 1}") for i, r in enumerate(reports)]
    descriptions = dict(_shipped_descriptions())
    levels = dict(_shipped_levels())
    for o in outcomes or ():
        descriptions[o.case.id] = o.case.description
        levels[o.case.id] = o.case.level
    labels, said = _version_labels(reports, sources)
    results, twice = _results(reports, labels, dict(links or {}))
    first_seen: dict[str, dict[str, str]] = {}
    for r in results:
        first_seen.setdefault(r["case"], {"id": r["case"], "family": r["family"], "kind": r["kind"], "description": descriptions.get(r["case"], ""),
                                          "level": r["level"] or levels.get(r["case"], "")})
    names = _ordered((r["engine"] for r in results), _engine_order())
    return {
        "title": title or "Harmony conformance matrix", "reports": len(reports), "engineLines": _engine_lines(reports, labels),
        "notes": list(notes), "live": outcomes is not None,
        "classes": [{"cls": c, "symbol": s, "label": label, "what": what} for c, s, label, what in MATRIX_CLASSES],
        "engines": names, "versions": {e: sorted({r["version"] for r in results if r["engine"] == e}, key=version_key) for e in names},
        "versionTitles": _version_titles(labels, said, sources), "apis": _api_order(), "cases": list(first_seen.values()),
        "results": [{k: v for k, v in r.items() if k not in ("family", "kind")} for r in results], "twice": twice,
        "levels": list(LEVELS), "knownKinds": [{"kind": k, "label": label, "what": what} for k, label, what in KNOWN_KIND_LABELS],
    }


def conformance_page(reports: Sequence[Mapping[str, Any]], *, sources: Sequence[str | Path] | None = None, outcomes: Sequence[Any] | None = None,
                     links: Mapping[Key, str] | None = None, notes: Sequence[str] = (), title: str | None = None) -> str:
    """The matrix page of ``reports`` (``conformance --json``'s objects; several: a version axis), as one self-contained HTML text.

    ``outcomes`` are the runner's (``run_suite``) behind a live run's report: they give each row
    its case's description (without them, the shipped suite's: a report holds none). ``links``
    maps a result's ``(case, engine, api, engine_version)`` to the href its cell opens: the replay
    pages of :func:`replay_pages`, as ``conformance --html`` writes them. ``notes`` are lines
    said under the summary (e.g. a replay that could not be written).

    ``sources`` are the reports' file names (``--merge`` gives them): when two reports of one
    engine say the same version and overlap (llama.cpp builds without a build number both say
    ``b0-unknown``), they are two runs, not one, and each is told apart by the version its file
    name gives (``llama.cpp-0.3.17.json.gz``), else by its file name, else by its place.
    Reports of one engine and version that do not overlap (shards of one run) are joined.
    """
    data = matrix_data(reports, sources=sources, outcomes=outcomes, links=links, notes=notes, title=title)
    css = asset_text("matrix_page.css").replace("</", "<\\/")
    js = asset_text("matrix_page.js").replace("</script", "<\\/script")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"generator\" content=\"harmony-viz {html.escape(__version__)}\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
            f"<title>{html.escape(data['title'])}</title>\n<style>{css}</style>\n</head>\n<body>\n<main id=\"hv-app\"></main>\n"
            f"<script type=\"application/json\" id=\"hv-data\">{script_json(data)}</script>\n<script>{js}</script>\n</body>\n</html>\n")
