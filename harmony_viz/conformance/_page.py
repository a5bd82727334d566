"""The conformance matrix: ``conformance --html`` (one run) and ``conformance --merge`` (reports joined on a version axis).

One self-contained page (inline CSS and JS, nothing fetched): a row per case, grouped by family
(the case's description as its tooltip), a column per engine, version and API. Each cell is a
result: coloured by its status and worst severity, and saying so in text too (a symbol, the
codes). Plain JS in the page filters rows by family, status and case id and columns by engine;
every row, column and cell carries ``data-`` attributes a script (or a test) can drive.

In a live run (the runner's outcomes at hand), each answer case's results make one replay page,
the existing one (``harmony_viz.save_html``), every engine's answer in its server tab; a cell
links to it, opened at its engine and API. A prompt case's cell links to the replay of that
engine's prompt check (its prompt tab: the render diff). This module plans those pages
(:func:`replay_pages`); the command writes them, the replay page being a layer above it.

Merged reports (``read_report``) are joined by engine, version and API; walking one engine's
versions in order, a cell whose result differs from the previous version's is marked *fixed in
X* (it failed, now passes), *broke in X* (it passed, now fails) or *changed in X*.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from harmony_viz.conformance._case import load_suite
from harmony_viz.conformance._replays import Key
from harmony_viz.conformance._report import check_report
from harmony_viz.conformance._run import PROMPT_API
from harmony_viz.servers import APIS, engines

SEVERITIES = ("error", "warning", "info")
PASSING = ("pass", "fixed")
FAILING = ("fail", "known")

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
_SYMBOL = {c: s for c, s, _, _ in MATRIX_CLASSES}
_LABEL = {c: label for c, _, label, _ in MATRIX_CLASSES}
CHANGES = {"fixed": ("▲", "fixed in"), "broke": ("▼", "broke in"), "changed": ("◆", "changed in")}
UNKNOWN_VERSION = "?"


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


# --- the cells --------------------------------------------------------------------------------

@dataclass
class _Cell:
    result: Mapping[str, Any]
    case: str
    engine: str
    version: str
    api: str
    status: str
    codes: tuple[str, ...]
    severity: str  # the worst finding's severity, "" for none
    cls: str  # one of MATRIX_CLASSES
    col: int = -1
    href: str = ""
    change: str = ""  # "fixed", "broke", "changed" or ""
    was: str = ""  # the previous version's result, when it changed


def _findings(r: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = r.get("discrepancies") or r.get("differences") or []
    return [d for d in found if isinstance(d, Mapping)]


def _worst(r: Mapping[str, Any]) -> str:
    severities = {d.get("severity") for d in _findings(r)}
    return next((s for s in SEVERITIES if s in severities), "")


def _cell_class(status: str, severity: str) -> str:
    if status == "fail":
        return "fail-error" if severity == "error" else "fail-warning"
    return status


def _bucket(status: str) -> str:
    return "pass" if status in PASSING else "fail" if status in FAILING else status


def _describe(c: _Cell) -> str:
    return f"{_LABEL[c.cls]}{' (' + ', '.join(c.codes) + ')' if c.codes else ''}"


def _mark_changes(cells: Sequence[_Cell], versions: Mapping[str, Sequence[str]]) -> None:
    by: dict[tuple[str, str, str], dict[str, _Cell]] = {}
    for c in cells:
        by.setdefault((c.case, c.engine, c.api), {})[c.version] = c
    for (_, engine, _), of in by.items():
        prev: _Cell | None = None
        for v in versions[engine]:
            now = of.get(v)
            if now is None:
                continue
            if prev is not None and (_bucket(prev.status), prev.codes) != (_bucket(now.status), now.codes):
                before, after = _bucket(prev.status), _bucket(now.status)
                now.change = "fixed" if (before, after) == ("fail", "pass") else "broke" if (before, after) == ("pass", "fail") else "changed"
                now.was = f"{prev.version}: {_describe(prev)}"
            prev = now


# --- the page ---------------------------------------------------------------------------------

def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _tooltip(c: _Cell) -> str:
    r = c.result
    lines = [f"{c.case} · {c.engine} {c.version} · {c.api}", _describe(c)]
    if c.change:
        lines.append(f"{CHANGES[c.change][1]} {c.version}; was {c.was}")
    if r.get("reason"):
        lines.append(str(r["reason"]))
    findings = sorted(_findings(r), key=lambda d: SEVERITIES.index(d.get("severity")) if d.get("severity") in SEVERITIES else 9)
    for d in findings[:4]:
        msg = " ".join(str(d.get("message", "")).split())
        lines.append(f"[{d.get('severity')}] {d.get('code')}: {msg[:180] + '…' if len(msg) > 180 else msg}")
    if len(findings) > 4:
        lines.append(f"… and {len(findings) - 4} more")
    if r.get("error") and c.status != "error":
        lines.append(f"server error: {' '.join(str(r['error']).split())[:180]}")
    if r.get("link"):
        lines.append(f"link: {r['link']}")
    if c.href:
        lines.append("click: the replay, at this engine and API" if c.api != "prompt" else "click: the replay of this prompt check")
    return "\n".join(lines)


def _cell_html(c: _Cell) -> str:
    attrs = {"data-hv": "cell", "data-col": c.col, "data-case": c.case, "data-engine": c.engine, "data-version": c.version, "data-api": c.api,
             "data-status": c.status, "data-severity": c.severity, "data-class": c.cls, "data-codes": " ".join(c.codes)}
    if c.change:
        attrs["data-change"] = c.change
    inner = f'<span class="sym" aria-hidden="true">{_SYMBOL[c.cls]}</span><span class="lbl">{_e(_LABEL[c.cls])}</span>'
    if c.codes:
        inner += '<span class="codes">' + "".join(f"<span>{_e(code)}</span>" for code in c.codes) + "</span>"
    if c.change:
        sym, words = CHANGES[c.change]
        inner += f'<span class="chg chg-{c.change}" data-hv="change">{sym} {_e(words)} {_e(c.version)}</span>'
    if c.href:
        inner = f'<a href="{_e(c.href)}" data-hv="replay-link">{inner}</a>'
    return f'<td class="c c-{c.cls}" title="{_e(_tooltip(c))}" ' + " ".join(f'{k}="{_e(v)}"' for k, v in attrs.items()) + f">{inner}</td>"


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
    reports = [check_report(r, f"report {i + 1}") for i, r in enumerate(reports)]
    descriptions = dict(_shipped_descriptions())
    for o in outcomes or ():
        descriptions[o.case.id] = o.case.description
    hrefs = dict(links or {})
    problems = list(notes)

    labels, said = _version_labels(reports, sources)

    # Every result a cell; a result given twice (same case, engine, version, api) keeps the later report's.
    cells: dict[tuple[str, str, str, str], _Cell] = {}
    cases: dict[str, tuple[str, str]] = {}  # id -> (family, kind)
    twice = 0
    engine_lines = []
    for i, rep in enumerate(reports):
        for e in rep.get("engines", []):
            if isinstance(e, Mapping) and e.get("name"):
                where = f" at {e['url']}" if e.get("url") else " (offline)"
                label = labels.get((i, e["name"]), e.get("version") or UNKNOWN_VERSION)
                told = e.get("version") or UNKNOWN_VERSION
                engine_lines.append(f"{e['name']} {label}{where}" + (f" (it says {told})" if told != label else ""))
        for r in rep["results"]:
            raw_version = r.get("engine_version")
            version = labels[(i, r["engine"])]
            case = r["case"]
            cases.setdefault(case, (str(r.get("family") or case.split("/", 1)[0]), str(r.get("kind") or "")))
            severity = _worst(r)
            codes = tuple(sorted(set(r.get("codes") or ())))
            cell = _Cell(r, case, r["engine"], str(version), r["api"], r["status"], codes, severity, _cell_class(r["status"], severity),
                         href=hrefs.get((case, r["engine"], r["api"], raw_version), ""))
            key = (case, cell.engine, cell.version, cell.api)
            twice += key in cells
            cells[key] = cell

    engines = _ordered((c.engine for c in cells.values()), _engine_order())
    versions = {e: sorted({c.version for c in cells.values() if c.engine == e}, key=version_key) for e in engines}
    apis_of: dict[tuple[str, str], list[str]] = {}
    for c in cells.values():
        apis_of.setdefault((c.engine, c.version), []).append(c.api)
    columns = [(e, v, a) for e in engines for v in versions[e] for a in _ordered(apis_of[(e, v)], _api_order())]
    col_index = {k: i for i, k in enumerate(columns)}
    for c in cells.values():
        c.col = col_index[(c.engine, c.version, c.api)]
    _mark_changes(list(cells.values()), versions)
    multi_version = any(len(vs) > 1 for vs in versions.values())

    by_row: dict[str, dict[int, _Cell]] = {}
    for c in cells.values():
        by_row.setdefault(c.case, {})[c.col] = c
    families = list(dict.fromkeys(f for f, _ in cases.values()))
    served = {i: any(c.status != "not-served" for c in cells.values() if c.col == i) for i in range(len(columns))}
    count = {cls: sum(1 for c in cells.values() if c.cls == cls) for cls, *_ in MATRIX_CLASSES}
    changes = {k: sum(1 for c in cells.values() if c.change == k) for k in CHANGES}

    out: list[str] = []
    w = out.append
    heading = title or "Harmony conformance matrix"
    from harmony_viz import __version__

    w("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
    w(f"<meta name=\"generator\" content=\"harmony-viz {_e(__version__)}\">\n")
    w("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n")
    w(f"<title>{_e(heading)}</title>\n<style>{_CSS}</style>\n<style id=\"hv-cols\"></style>\n</head>\n<body>\n")
    w(f"<h1 data-hv=\"page-title\">{_e(heading)}</h1>\n")
    w(f"<p class=\"line\" data-hv=\"engines\">{len(reports)} report{'s' if len(reports) != 1 else ''}: "
      + _e(", ".join(dict.fromkeys(engine_lines)) or "no engine") + ".</p>\n")
    n_results = len(cells)
    summary = (f"{n_results} results, {len(cases)} cases × {len(columns)} columns: "
               + ", ".join(f"{count[cls]} {_LABEL[cls]}" for cls, *_ in MATRIX_CLASSES))
    if multi_version:
        summary += "; across versions: " + ", ".join(f"{changes[k]} {CHANGES[k][1].split()[0]}" for k in CHANGES)
    if twice:
        summary += f"; {twice} result{'s' if twice != 1 else ''} given twice (the later report's kept)"
    attrs = " ".join(f'data-{cls}="{count[cls]}"' for cls, *_ in MATRIX_CLASSES) + "".join(f' data-changes-{k}="{changes[k]}"' for k in CHANGES)
    w(f"<p class=\"line summary\" data-hv=\"summary\" data-results=\"{n_results}\" data-cases=\"{len(cases)}\" {attrs}>{_e(summary)}.</p>\n")
    for p in problems:
        w(f"<p class=\"line\" data-hv=\"replay-problem\">{_e(p)}</p>\n")

    # filters
    w("<form class=\"filters\" data-hv=\"filters\" onsubmit=\"return false\">\n")
    w("<fieldset data-filter-group=\"family\"><legend>family</legend>")
    for f in families:
        n = sum(1 for fam, _ in cases.values() if fam == f)
        w(f"<label><input type=\"checkbox\" data-filter=\"family\" value=\"{_e(f)}\" checked> {_e(f)} <small>({n})</small></label>")
    w(_all_none("family") + "</fieldset>\n<fieldset data-filter-group=\"status\"><legend>status</legend>")
    for cls, sym, label, what in MATRIX_CLASSES:
        w(f"<label title=\"{_e(what)}\"><input type=\"checkbox\" data-filter=\"status\" value=\"{cls}\" checked> "
          f"<span class=\"c c-{cls} chip\">{sym}</span> {_e(label)} <small>({count[cls]})</small></label>")
    w(_all_none("status") + "</fieldset>\n<fieldset data-filter-group=\"engine\"><legend>engine</legend>")
    for e in engines:
        w(f"<label><input type=\"checkbox\" data-filter=\"engine\" value=\"{_e(e)}\" checked> {_e(e)}</label>")
    w("</fieldset>\n<fieldset data-filter-group=\"api\"><legend>API</legend>")
    for a in _ordered((a for _, _, a in columns), _api_order()):
        w(f"<label><input type=\"checkbox\" data-filter=\"api\" value=\"{_e(a)}\" checked> {_e(a)}</label>")
    w("</fieldset>\n<fieldset data-filter-group=\"more\"><legend>show</legend>")
    w("<label title=\"columns with no served result in the rows shown (the engine has no such API, or the cases shown do not ask it)\">"
      "<input type=\"checkbox\" data-filter=\"unserved\" checked> hide columns nothing is served in</label>")
    w("<label title=\"off: symbols only, the codes in each cell's tooltip\"><input type=\"checkbox\" data-filter=\"codes\" checked> codes</label>")
    if multi_version:
        w("<label><input type=\"checkbox\" data-filter=\"changes\"> only rows that changed across versions</label>")
    w("<label>case <input type=\"search\" data-filter=\"text\" placeholder=\"id contains…\" size=\"16\"></label>")
    w(f"</fieldset>\n<span class=\"shown\" data-hv=\"shown\">{len(cases)} of {len(cases)} cases shown</span>\n</form>\n")

    # the table: engine / version / API headers
    w("<div class=\"wrap\"><table data-hv=\"matrix\">\n<thead>\n")
    groups_e: dict[str, list[int]] = {}
    groups_v: dict[tuple[str, str], list[int]] = {}
    for i, (e, v, _) in enumerate(columns):
        groups_e.setdefault(e, []).append(i)
        groups_v.setdefault((e, v), []).append(i)
    rows = 3 if multi_version else 2
    w(f"<tr><th class=\"corner\" rowspan=\"{rows}\">case</th>")
    for e, cols in groups_e.items():
        label = e if multi_version else f"{e} {versions[e][0]}"
        w(f"<th class=\"grp\" colspan=\"{len(cols)}\" data-hv=\"engine-head\" data-engine=\"{_e(e)}\" data-cols=\"{' '.join(map(str, cols))}\">{_e(label)}</th>")
    w("</tr>\n")
    if multi_version:
        w("<tr>")
        for (e, v), cols in groups_v.items():
            whence = []
            for (i, engine), label in labels.items():
                if (engine, label) == (e, v):
                    src = f" in {Path(str(sources[i])).name}" if sources is not None and i < len(sources) else f" in report {i + 1}"
                    whence.append(f"{e} {said[(i, engine)]}{src}" + (f" (shown as {label})" if label != said[(i, engine)] else ""))
            w(f"<th class=\"grp ver\" colspan=\"{len(cols)}\" data-hv=\"version-head\" data-engine=\"{_e(e)}\" data-version=\"{_e(v)}\" "
              f"data-cols=\"{' '.join(map(str, cols))}\" title=\"{_e('; '.join(whence))}\">{_e(v)}</th>")
        w("</tr>\n")
    w("<tr>")
    for i, (e, v, a) in enumerate(columns):
        w(f"<th class=\"api\" data-hv=\"column\" data-col=\"{i}\" data-engine=\"{_e(e)}\" data-version=\"{_e(v)}\" data-api=\"{_e(a)}\" "
          f"data-served=\"{int(served[i])}\" title=\"{_e(f'{e} {v} · {a}')}\">{_e(a)}</th>")
    w("</tr>\n</thead>\n")

    # the rows, by family
    for f in families:
        ids = [cid for cid, (fam, _) in cases.items() if fam == f]
        w(f"<tbody data-family=\"{_e(f)}\">\n<tr class=\"fam\" data-hv=\"family\" data-family=\"{_e(f)}\"><th colspan=\"{len(columns) + 1}\">"
          f"{_e(f)} <small>· {len(ids)} case{'s' if len(ids) != 1 else ''}</small></th></tr>\n")
        for cid in ids:
            mine = by_row.get(cid, {})
            kind = cases[cid][1]
            desc = descriptions.get(cid, "")
            n_changes = sum(1 for c in mine.values() if c.change)
            w(f"<tr data-hv=\"case\" data-case=\"{_e(cid)}\" data-family=\"{_e(f)}\" data-kind=\"{_e(kind)}\" data-changes=\"{n_changes}\">"
              f"<th class=\"case\" title=\"{_e(cid + (': ' + desc if desc else ''))}\" data-description=\"{_e(desc)}\">{_e(cid.split('/', 1)[-1])}"
              + (" <small class=\"kind\">prompt</small>" if kind == "prompt" else "") + "</th>")
            for i in range(len(columns)):
                c = mine.get(i)
                w(_cell_html(c) if c is not None else f"<td class=\"c c-absent\" data-hv=\"absent\" data-col=\"{i}\" title=\"not in this report\"></td>")
            w("</tr>\n")
        w("</tbody>\n")

    # per column: passing of served
    w("<tfoot><tr><th class=\"case\" title=\"passing (pass, fixed) of the results served, in the rows shown\">passing / served</th>")
    for i in range(len(columns)):
        mine = [c for c in cells.values() if c.col == i and c.status != "not-served"]
        ok = sum(1 for c in mine if c.status in PASSING)
        w(f"<td data-hv=\"column-total\" data-col=\"{i}\" data-passing=\"{ok}\" data-served=\"{len(mine)}\">{ok}/{len(mine)}</td>")
    w("</tr></tfoot>\n</table></div>\n")

    # legend
    w("<section class=\"legend\" data-hv=\"legend\"><h2>Legend</h2><ul>")
    for cls, sym, label, what in MATRIX_CLASSES:
        w(f"<li><span class=\"c c-{cls} chip\">{sym}</span> <b>{_e(label)}</b>: {_e(what)}</li>")
    w("</ul><p>A cell shows its symbol and the codes of its failing findings (warning or above); its tooltip gives the findings' messages. "
      "A row's tooltip is the case's description.</p>")
    if multi_version:
        w("<p>Versions: each engine's versions are ordered numerically; a cell that differs from the same engine and API's previous version is marked "
          "<span class=\"chg chg-fixed\">▲ fixed in X</span> (it failed there, it passes here), <span class=\"chg chg-broke\">▼ broke in X</span> "
          "(it passed, it fails) or <span class=\"chg chg-changed\">◆ changed in X</span> (other codes, or served/not served/error).</p>")
    if hrefs:
        w("<p>Links: an answer case's cell opens the case's replay page, every engine's answers in its server tab, at that engine and API; "
          "a prompt case's cell opens the replay of that engine's prompt check, its prompt tab showing the server's render against ours. "
          "Not-served and error cells link nothing.</p>")
    else:
        w("<p>No cell links to a replay: " + ("these are saved reports (a live run writes replays: conformance --html)." if outcomes is None
                                              else "none was written.") + "</p>")
    w("</section>\n")
    w(f"<script>{_JS}</script>\n</body>\n</html>\n")
    return "".join(out)


def _all_none(group: str) -> str:
    return (f" <button type=\"button\" data-filter-all=\"{group}\">all</button>"
            f"<button type=\"button\" data-filter-none=\"{group}\">none</button>")


_CSS = """
body{margin:12px;font:13px system-ui,sans-serif;background:#fff;color:#222}
h1{font-size:18px;margin:0 0 4px}h2{font-size:14px;margin:10px 0 4px}
.line{margin:0 0 6px;color:#555}.summary{color:#222;font-weight:600}
.filters{display:flex;flex-wrap:wrap;gap:6px 10px;align-items:flex-start;margin:6px 0 8px}
.filters fieldset{border:1px solid #ccc;border-radius:4px;padding:2px 8px 4px;margin:0}
.filters legend{font-size:11px;color:#666;padding:0 3px}.filters label{margin-right:8px;white-space:nowrap}
.filters button{font-size:11px;padding:0 4px;margin-left:2px}.shown{align-self:center;color:#555}
.wrap{display:inline-block;max-width:calc(100% - 2px);overflow:auto;max-height:calc(100vh - 40px);border:1px solid #ddd}
table{border-collapse:separate;border-spacing:0;font-size:11px}
th,td{border-right:1px solid #e2e2e2;border-bottom:1px solid #e2e2e2;padding:2px 4px;vertical-align:top}
thead th{position:sticky;background:#f6f6f6;z-index:2;text-align:center}
thead tr:nth-child(1) th{top:0}thead tr:nth-child(2) th{top:19px}thead tr:nth-child(3) th{top:38px}
th.corner{left:0;z-index:3;text-align:left}
th.grp{font-size:12px;border-bottom:1px solid #ccc}th.ver{font-weight:600;color:#333}th.api{font-weight:500;white-space:nowrap}
th.case{position:sticky;left:0;background:#fafafa;text-align:left;font-weight:500;white-space:nowrap;z-index:1;max-width:260px;overflow:hidden;text-overflow:ellipsis}
tr.fam th{position:sticky;left:0;background:#eef1f5;text-align:left;font-size:12px;padding:4px}
small.kind{color:#777;font-weight:400;border:1px solid #bbb;border-radius:3px;padding:0 2px}
td.c{min-width:34px;max-width:150px}td.c a{color:inherit;text-decoration:none;display:block}td.c a:hover{text-decoration:underline}
.sym{font-weight:700;font-size:13px;margin-right:3px}.lbl{position:absolute;left:-9999px}
.codes{display:block}.codes span{display:block;word-break:break-word;line-height:1.2}
.c-pass{background:#d8f0d8;color:#14521a}.c-fail-error{background:#f7c9c6;color:#7b1212}.c-fail-warning{background:#fbe5b6;color:#6a4300}
.c-known{background:#e0dcf5;color:#3b2f78}.c-fixed{background:#c7ebf2;color:#0b4d5a}.c-not-served{background:#f3f3f3;color:#999}
.c-error{background:#555;color:#fff}.c-absent{background:#fff}
.chip{display:inline-block;min-width:14px;text-align:center;border-radius:3px;padding:0 2px;border:1px solid rgba(0,0,0,.15)}
.chg{display:block;font-weight:700;margin-top:2px;white-space:nowrap}.chg-fixed{color:#0a6b1f}.chg-broke{color:#b00000}.chg-changed{color:#5a3d8a}
td[data-change=broke]{box-shadow:inset 0 0 0 2px #b00000}td[data-change=fixed]{box-shadow:inset 0 0 0 2px #0a8a28}td[data-change=changed]{box-shadow:inset 0 0 0 2px #7a5ab0}
td[data-match="0"]{opacity:.22}
tfoot td,tfoot th{background:#f6f6f6;font-weight:600;text-align:center}
.legend .chg{display:inline}.legend ul{list-style:none;padding:0;margin:0;columns:2}.legend li{margin:2px 0}.legend p{margin:4px 0;color:#444;max-width:110ch}
@media (prefers-color-scheme: dark){body{background:#111;color:#ddd}.line,.shown{color:#aaa}.summary{color:#eee}
thead th,tfoot td,tfoot th{background:#222}th.case{background:#1a1a1a}tr.fam th{background:#1f2630}th,td{border-color:#333}.c-absent{background:#111}
.legend p{color:#bbb}a{color:#8ab4f8}}
"""

_JS = r"""
(function(){
  var form=document.querySelector('[data-hv=filters]');
  var table=document.querySelector('[data-hv=matrix]');
  var colStyle=document.getElementById('hv-cols');
  var heads=[].slice.call(table.querySelectorAll('th[data-hv=column]'));
  var rows=[].slice.call(table.querySelectorAll('tr[data-hv=case]'));
  var fams=[].slice.call(table.querySelectorAll('tr[data-hv=family]'));
  var groups=[].slice.call(table.querySelectorAll('th[data-cols]'));
  var totals=[].slice.call(table.querySelectorAll('td[data-hv=column-total]'));
  var cellsOf=rows.map(function(r){return [].slice.call(r.querySelectorAll('td[data-hv=cell]'));});
  function checked(name){var s={};[].forEach.call(form.querySelectorAll('input[data-filter='+name+']'),function(i){if(i.checked)s[i.value]=1;});return s;}
  function flag(name){var i=form.querySelector('input[data-filter='+name+']');return !!(i&&i.checked);}
  function apply(){
    var fam=checked('family'),st=checked('status'),eng=checked('engine'),api=checked('api'),unserved=flag('unserved'),changes=flag('changes');
    var textInput=form.querySelector('input[data-filter=text]'),text=(textInput&&textInput.value||'').trim().toLowerCase();
    var col={};
    heads.forEach(function(h){col[h.getAttribute('data-col')]=!!eng[h.getAttribute('data-engine')]&&!!api[h.getAttribute('data-api')]&&!(unserved&&h.getAttribute('data-served')==='0');});
    var show=[];
    function pickRows(){show=rows.map(function(r,k){
      if(!fam[r.getAttribute('data-family')])return false;
      if(text&&r.getAttribute('data-case').toLowerCase().indexOf(text)<0)return false;
      var any=false,changed=false;
      cellsOf[k].forEach(function(c){if(!col[c.getAttribute('data-col')])return;if(st[c.getAttribute('data-class')])any=true;if(c.hasAttribute('data-change'))changed=true;});
      return any&&(!changes||changed);});}
    pickRows();
    if(unserved){  // a column with nothing served in the rows shown goes too (then the rows are picked again)
      for(var pass=0;pass<3;pass++){var used={};
        rows.forEach(function(r,k){if(show[k])cellsOf[k].forEach(function(c){if(c.getAttribute('data-status')!=='not-served')used[c.getAttribute('data-col')]=1;});});
        var dropped=false;Object.keys(col).forEach(function(i){if(col[i]&&!used[i]){col[i]=false;dropped=true;}});
        if(!dropped)break;pickRows();}
    }
    var hidden=[],nCols=0;Object.keys(col).forEach(function(i){if(col[i])nCols++;else hidden.push('[data-col="'+i+'"]');});
    colStyle.textContent=(hidden.length?hidden.join(',')+'{display:none}':'')+(flag('codes')?'':'.codes{display:none}');
    groups.forEach(function(g){var n=g.getAttribute('data-cols').split(' ').filter(function(i){return col[i];}).length;g.colSpan=Math.max(n,1);g.hidden=n===0;});
    var shown=0,famShown={};
    rows.forEach(function(r,k){
      cellsOf[k].forEach(function(c){c.setAttribute('data-match',st[c.getAttribute('data-class')]?'1':'0');});
      r.hidden=!show[k];r.setAttribute('data-shown',show[k]?'1':'0');if(show[k]){shown++;famShown[r.getAttribute('data-family')]=1;}});
    fams.forEach(function(f){f.hidden=!famShown[f.getAttribute('data-family')];f.firstElementChild.colSpan=nCols+1;});
    var tally={};rows.forEach(function(r,k){if(show[k])cellsOf[k].forEach(function(c){var i=c.getAttribute('data-col'),st=c.getAttribute('data-status'),t=tally[i]||(tally[i]=[0,0]);
      if(st!=='not-served'){t[1]++;if(st==='pass'||st==='fixed')t[0]++;}});});
    totals.forEach(function(td){var t=tally[td.getAttribute('data-col')]||[0,0];td.textContent=t[0]+'/'+t[1];td.setAttribute('data-passing',t[0]);td.setAttribute('data-served',t[1]);});
    var out=document.querySelector('[data-hv=shown]');out.textContent=shown+' of '+rows.length+' cases shown';out.setAttribute('data-shown',shown);
  }
  form.addEventListener('input',apply);form.addEventListener('change',apply);
  form.addEventListener('click',function(ev){var b=ev.target.closest('button');if(!b)return;
    var all=b.getAttribute('data-filter-all'),none=b.getAttribute('data-filter-none'),g=all||none;if(!g)return;
    [].forEach.call(form.querySelectorAll('input[data-filter='+g+']'),function(i){i.checked=!!all;});apply();});
  window.harmonyVizMatrix={apply:apply};
  apply();
})();
"""
