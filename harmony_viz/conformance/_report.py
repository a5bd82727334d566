"""The reports of a run: counts, the JSON report (``--json``), JUnit XML (``--junit``), a failure said in words; and reading a saved report back.

A JSON report, format 1, is ``{"format", "summary", "engines", "results"}``: each result the
object ``server-check --json`` (or ``prompt-check --json``) prints, with its ``status``,
``case``, ``family``, ``kind`` and ``codes``. :func:`read_report` reads one (gzipped too) for
``--merge``; a report that cannot be joined is a :class:`MergeError` of one line.
"""

from __future__ import annotations

import gzip
import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harmony_viz.conformance._case import FORMAT, load_suite
from harmony_viz.conformance._records import FAILING, STATUSES, Known, Outcome
from harmony_viz.conformance._rules import LEVELS
from harmony_viz.conformance._run import Target


class MergeError(ValueError):
    """A report that cannot be joined: one line, ``PATH: what is wrong``."""


def conformance_summary(outcomes: Sequence[Outcome]) -> dict[str, int]:
    """``{"passed", "failed", "known", "fixed", "not_served", "errors", "total"}``."""
    count = {s: sum(1 for o in outcomes if o.status == s) for s in STATUSES}
    return {"passed": count["pass"], "failed": count["fail"], "known": count["known"], "fixed": count["fixed"],
            "not_served": count["not-served"], "errors": count["error"], "total": len(outcomes)}


def summary_line(outcomes: Sequence[Outcome]) -> str:
    """The counts in words, the ones that are not zero: ``3 passed, 1 failed of 4``."""
    counts = conformance_summary(outcomes)
    return ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items() if k != "total" and v) + f" of {counts['total']}"


def _rate(statuses: Sequence[str]) -> dict[str, Any]:
    """Passing (pass, fixed) of the results served (all but not-served), and the rate (None when nothing is served)."""
    served = [s for s in statuses if s != "not-served"]
    passing = sum(1 for s in served if s in ("pass", "fixed"))
    return {"passing": passing, "served": len(served), "rate": round(passing / len(served), 4) if served else None}


def level_rates(results: Sequence[Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """The pass rate per engine and level: ``{engine: {level: {"passing", "served", "rate"}}}``.

    ``results`` are outcomes or a report's result objects (their ``level`` read by :func:`result_level`).
    """
    out: dict[str, dict[str, list[str]]] = {}
    for r in results:
        if isinstance(r, Outcome):
            engine, level, status = r.engine, r.case.level, r.status
        else:
            engine, level, status = r["engine"], result_level(r), r["status"]
        out.setdefault(engine, {}).setdefault(level, []).append(status)
    order = [*LEVELS, ""]
    return {e: {lv: _rate(of[lv]) for lv in sorted(of, key=lambda x: order.index(x) if x in order else 9)} for e, of in out.items()}


def level_line(outcomes: Sequence[Outcome]) -> str:
    """The pass rate per level in words: ``must 40/52 (77%), should 10/41 (24%)``."""
    parts = []
    for engine_rates in level_rates(outcomes).values():
        for level, r in engine_rates.items():
            pct = f" ({r['rate']:.0%})" if r["rate"] is not None else ""
            parts.append(f"{level or 'unrated'} {r['passing']}/{r['served']}{pct}")
    return ", ".join(parts)


_SHIPPED_LEVELS: dict[str, str] | None = None


def result_level(r: Mapping[str, Any]) -> str:
    """A saved result's level: its own ``level``, or, for a report from before levels (issue 34), its case's level in the shipped suite
    found by the case id; "" when neither says."""
    global _SHIPPED_LEVELS
    if isinstance(r.get("level"), str) and r["level"]:
        return str(r["level"])
    if _SHIPPED_LEVELS is None:
        try:
            _SHIPPED_LEVELS = {c.id: c.level for c in load_suite()}
        except Exception:  # noqa: BLE001 - a level is a label: without the suite an old result is unrated
            _SHIPPED_LEVELS = {}
    return _SHIPPED_LEVELS.get(str(r.get("case")), "")


def shipped_known_of(r: Mapping[str, Any]) -> Known | None:
    """The shipped known divergence (``known/``) a saved failure matches: the same case, engine and API, failing with the same codes."""
    from harmony_viz.conformance._known import shipped_known

    if r.get("status") not in ("fail", "known"):
        return None
    known = shipped_known().get((str(r.get("case")), str(r.get("engine")), str(r.get("api"))))
    return known if known is not None and known.codes == frozenset(r.get("codes") or ()) else None


def result_known_kind(r: Mapping[str, Any]) -> str:
    """A saved result's triage: its own ``known_kind``, else the kind of the shipped known divergence it matches
    (:func:`shipped_known_of`; reports made without ``--known`` say none); "" for none."""
    if isinstance(r.get("known_kind"), str) and r["known_kind"]:
        return str(r["known_kind"])
    known = shipped_known_of(r)
    return known.kind if known is not None else ""


def engines_of(outcomes: Sequence[Outcome], targets: Sequence[Target]) -> list[dict[str, Any]]:
    """One entry per target: its name, URL, version (as it told it) and the APIs seen."""
    out = []
    for t in targets:
        mine = [o for o in outcomes if o.engine == t.engine]
        version = next((o.engine_version for o in mine if o.engine_version), None)
        out.append({"name": t.engine, "url": t.url, "version": version, "apis": list(dict.fromkeys(o.api for o in mine))})
    return out


def conformance_report(outcomes: Sequence[Outcome], targets: Sequence[Target]) -> dict[str, Any]:
    """The ``--json`` report: ``{"format", "summary", "engines", "results"}``."""
    return {"format": FORMAT, "summary": conformance_summary(outcomes), "levels": level_rates(outcomes), "engines": engines_of(outcomes, targets),
            "results": [o.to_json() for o in outcomes]}


def findings_of(o: Outcome) -> tuple[Any, ...]:
    """The findings behind an outcome: an answer check's discrepancies or a prompt check's differences."""
    if o.check is None:
        return ()
    return tuple(getattr(o.check, "discrepancies", None) or getattr(o.check, "differences", None) or ())


def _junit_case(suite: ET.Element, o: Outcome) -> None:
    case = ET.SubElement(suite, "testcase", classname=o.case.family, name=f"{o.case.name}[{o.engine}-{o.api}]",
                         time=f"{o.seconds + o.server_seconds:.3f}")
    props = ET.SubElement(case, "properties")
    for key, value in (("engine", o.engine), ("engine_version", o.engine_version or ""), ("api", o.api), ("case", o.case.id), ("format", str(FORMAT)),
                       ("level", o.case.level), ("rules", " ".join(o.case.rules)), *((("known_kind", o.known_kind),) if o.known_kind else ())):
        ET.SubElement(props, "property", name=key, value=value)
    if o.status == "fail":
        lines = [f"[{d.severity}] {d.code}: {d.message}" for d in findings_of(o) if d.severity in FAILING]
        failure = ET.SubElement(case, "failure", message=", ".join(o.codes), type="divergence")
        failure.text = "\n".join(([o.reason] if o.reason else []) + lines)
    elif o.status == "fixed":
        failure = ET.SubElement(case, "failure", message="listed as a known divergence, and it now passes", type="fixed")
        failure.text = f"remove it from the known divergences ({o.reason})" if o.reason else "remove it from the known divergences"
    elif o.status == "error":
        ET.SubElement(case, "error", message=o.reason, type="engine-error")
    elif o.status in ("known", "not-served"):
        ET.SubElement(case, "skipped", message=(f"known divergence: {o.reason}" if o.status == "known" else f"not served: {o.reason}"))


def junit_xml(outcomes: Sequence[Outcome]) -> str:
    """One ``testcase`` per case x engine x API, ``classname`` the family; known and not served are ``skipped``."""
    counts = conformance_summary(outcomes)
    suite = ET.Element("testsuite", name="harmony-conformance", tests=str(counts["total"]), failures=str(counts["failed"] + counts["fixed"]),
                       errors=str(counts["errors"]), skipped=str(counts["known"] + counts["not_served"]),
                       time=f"{sum(o.seconds + o.server_seconds for o in outcomes):.3f}")
    for o in outcomes:
        _junit_case(suite, o)
    ET.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"


def failure_text(o: Outcome) -> str:
    """A failing outcome in words: its codes first (a summary's one line), then where, each finding that decided it, the case."""
    lines = [", ".join(o.codes) or o.reason, f"{o.case.id} through {o.engine}" + (f" {o.engine_version}" if o.engine_version else "") + f" {o.api}"]
    if o.reason and o.codes:
        lines.append(o.reason)
    lines += [f"  [{d.severity}] {d.code}: {d.message}" for d in findings_of(o) if d.code in o.codes]
    error = getattr(o.check, "error", None)
    if error and not any(str(error).splitlines()[0] in line for line in lines):
        lines.append(f"  server: {str(error).splitlines()[0]}")
    if o.case.description:
        lines.append(f"  case: {o.case.description} ({o.case.source})")
    return "\n".join(lines)


# --- reading reports back ---------------------------------------------------------------------

def read_report(path: str | Path) -> dict[str, Any]:
    """The report in ``path`` (``conformance --json``'s, or it gzipped: ``.json.gz``), its shape checked; MergeError in one line."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise MergeError(f"{path}: cannot read the report: {exc.strerror or exc}") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise MergeError(f"{path}: not a readable gzip file ({' '.join(str(exc).split()) or type(exc).__name__})") from None
    elif p.name.endswith(".gz"):
        raise MergeError(f"{path}: named .gz but not gzipped")
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise MergeError(f"{path}: not UTF-8 text: a report is conformance --json's JSON") from None
    except json.JSONDecodeError as exc:
        raise MergeError(f"{path}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    return check_report(obj, str(path))


def _check_result(r: Any, where: str) -> None:
    if not isinstance(r, dict):
        raise MergeError(f"{where} is not an object")
    absent = [k for k in ("case", "engine", "api", "status", "engine_version") if k not in r]
    if absent:
        raise MergeError(f"{where} has no {', '.join(absent)}")
    for k in ("case", "engine", "api"):
        if not isinstance(r[k], str) or not r[k]:
            raise MergeError(f"{where}.{k} must be a non-empty string")
    if r["status"] not in STATUSES:
        raise MergeError(f"{where}.status is {json.dumps(r['status'])}, not one of {', '.join(STATUSES)}")
    if r["engine_version"] is not None and not isinstance(r["engine_version"], str):
        raise MergeError(f"{where}.engine_version must be a string or null")
    codes = r.get("codes", [])
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
        raise MergeError(f"{where}.codes must be an array of strings")


def check_report(obj: Any, name: str = "report") -> dict[str, Any]:
    """``obj`` when it has a report's shape (format 1, summary, results with case, engine, api, status, engine_version); MergeError naming ``name``."""
    if not isinstance(obj, dict):
        raise MergeError(f"{name}: a report is a JSON object with format, summary, engines and results")
    missing = [k for k in ("format", "summary", "results") if k not in obj]
    if missing:
        raise MergeError(f"{name}: not a conformance report: no {', '.join(missing)} (write one with conformance --json)")
    if obj["format"] != FORMAT:
        raise MergeError(f"{name}: report format {json.dumps(obj['format'])}, this harmony-viz reads format {FORMAT}")
    if not isinstance(obj["summary"], dict):
        raise MergeError(f"{name}: summary must be an object of counts")
    if not isinstance(obj["results"], list):
        raise MergeError(f"{name}: results must be an array of result objects")
    if not isinstance(obj.get("engines", []), list):
        raise MergeError(f"{name}: engines must be an array")
    for i, r in enumerate(obj["results"]):
        _check_result(r, f"{name}: results[{i}]")
    return obj
