"""``conformance``: every case of a suite through every engine and API it serves, each result a status.

Answer cases go through ``server-check``'s comparison, prompt cases through ``prompt-check``'s.
A result is **pass** (no finding of warning or above), **fail** (its codes), **known** (a listed
divergence with the same codes), **fixed** (listed, and it now passes), **not-served** (the engine
has no such API, or cannot show such a prompt) or **error** (the engine could not be asked at all).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from harmony_viz.conformance import FORMAT, Case

Status = Literal["pass", "fail", "known", "fixed", "not-served", "error"]
STATUSES: tuple[Status, ...] = ("pass", "fail", "known", "fixed", "not-served", "error")
FAILING = ("warning", "error")  # the severities that fail a case
PROMPT_API = "prompt"  # the API column of a prompt case: the prompt the engine rendered for the request


class KnownError(ValueError):
    """A known-divergence file that cannot be used: one line naming the file and line."""


@dataclass(frozen=True)
class Known:
    """One recorded divergence: this case, through this engine's api, fails with exactly these codes."""

    case: str
    engine: str
    api: str
    codes: frozenset[str]
    reason: str = ""
    link: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"case": self.case, "engine": self.engine, "api": self.api, "codes": sorted(self.codes), "reason": self.reason, "link": self.link}


@dataclass(frozen=True)
class Outcome:
    """One case through one engine's api: its status, the codes that decided it, and the check behind it."""

    case: Case
    engine: str
    api: str
    status: Status
    codes: tuple[str, ...] = ()
    engine_version: str | None = None
    check: Any = None  # a servers.CheckResult (answer case) or servers.PromptCheck (prompt case); None for an error
    reason: str = ""  # a known divergence's reason, why it is not served, or the error's line
    link: str = ""
    seconds: float = 0.0  # our own work on this result (projection, comparison), not the server's
    server_seconds: float = 0.0

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.case.id, self.engine, self.api)

    def to_json(self) -> dict[str, Any]:
        """The object ``server-check --json`` (or ``prompt-check --json``) prints, with ``status``, ``case`` and the format."""
        base = dict(self.check.to_json()) if self.check is not None else {"file": self.case.source, "engine": self.engine, "api": self.api}
        base.update(engine=self.engine, api=self.api, engine_version=self.engine_version, status=self.status, case=self.case.id,
                    family=self.case.family, kind=self.case.kind, format=FORMAT, codes=list(self.codes))
        if self.reason:
            base["reason"] = self.reason
        if self.link:
            base["link"] = self.link
        return base


@dataclass(frozen=True)
class Target:
    """An engine to run the suite through: its registry name, and its URL (None for one that runs offline)."""

    engine: str
    url: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


def read_known(path: str | Path) -> dict[tuple[str, str, str], Known]:
    """The divergences in a JSON-lines file (``case``, ``engine``, ``api``, ``codes``, ``reason``, ``link``); KnownError in one line."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KnownError(f"{path}: cannot read the known-divergence file: {exc}") from None
    out: dict[tuple[str, str, str], Known] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise KnownError(f"{path}:{n}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise KnownError(f"{path}:{n}: a divergence is an object with case, engine, api, codes, reason and link")
        missing = [k for k in ("case", "engine", "api", "codes") if k not in obj]
        if missing:
            raise KnownError(f"{path}:{n}: missing {', '.join(missing)}")
        codes = obj["codes"]
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes) or not all(isinstance(obj[k], str) for k in ("case", "engine", "api")):
            raise KnownError(f"{path}:{n}: case, engine and api are strings, codes a list of strings")
        known = Known(obj["case"], obj["engine"], obj["api"], frozenset(codes), str(obj.get("reason") or ""), str(obj.get("link") or ""))
        if known.case and (known.case, known.engine, known.api) in out:
            raise KnownError(f"{path}:{n}: {known.case} through {known.engine} {known.api} is listed twice")
        out[(known.case, known.engine, known.api)] = known
    return out


def write_known(outcomes: Iterable[Outcome], path: str | Path, *, reason: str = "", link: str = "") -> int:
    """Today's failures as a known-divergence file; the number written."""
    lines = [json.dumps(Known(o.case.id, o.engine, o.api, frozenset(o.codes), reason or "recorded by --write-known", link).to_json())
             for o in outcomes if o.status in ("fail", "known")]
    Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def failing_codes(findings: Iterable[Any]) -> tuple[str, ...]:
    return tuple(sorted({d.code for d in findings if d.severity in FAILING}))


def _status(codes: tuple[str, ...], known: Known | None) -> tuple[Status, str, str]:
    if known is None:
        return ("fail" if codes else "pass"), "", ""
    if not codes:
        return "fixed", known.reason, known.link
    if frozenset(codes) == known.codes:
        return "known", known.reason, known.link
    return "fail", f"listed as known with {', '.join(sorted(known.codes))}, fails with {', '.join(codes)}", known.link


def _answer_outcomes(case_by_name: Mapping[str, Case], results: Iterable[Any], engine: str,
                     known: Mapping[tuple[str, str, str], Known]) -> list[Outcome]:
    out = []
    for r in results:
        case = case_by_name[r.file]
        if not r.served:
            out.append(Outcome(case, engine, r.api, "not-served", (), r.engine_version, r, r.notes[0] if r.notes else "not served"))
            continue
        codes = failing_codes(r.discrepancies)
        status, reason, link = _status(codes, known.get((case.id, engine, r.api)))
        out.append(Outcome(case, engine, r.api, status, codes, r.engine_version, r, reason, link, r.check_seconds, r.server_seconds))
    return out


def _answers(cases: Sequence[Case], target: Target, apis: Sequence[str], known: Mapping[tuple[str, str, str], Known],
             timeout: float) -> list[Outcome]:
    from harmony_viz.servers._check import check_named

    # One batch per request (an offline engine starts one process per batch), cases kept in suite order.
    groups: dict[str, list[Case]] = {}
    for c in cases:
        groups.setdefault(json.dumps(c.request, sort_keys=True), []).append(c)
    by_name = {c.id: c for c in cases}
    out: list[Outcome] = []
    for batch in groups.values():
        named = [(c.id, list(c.ids or ())) for c in batch]
        results = check_named(target.engine, named, base_url=target.url, request=batch[0].request or {}, apis=apis,
                              options=dict(target.options), timeout=timeout)
        out += _answer_outcomes(by_name, results, target.engine, known)
    order = {c.id: i for i, c in enumerate(cases)}
    return sorted(out, key=lambda o: order[o.case.id])


def _prompts(cases: Sequence[Case], target: Target, known: Mapping[tuple[str, str, str], Known]) -> list[Outcome]:
    from harmony_viz.servers import engines
    from harmony_viz.servers._prompt import PromptUnavailable
    from harmony_viz.servers._prompt_check import prompt_check

    found = engines.get(target.engine)
    if found.offline:
        return [Outcome(c, target.engine, PROMPT_API, "not-served", reason=f"{found.name} runs offline: no server, no prompt") for c in cases]
    version = found.version(engines.Probe(target.url or ""))
    out = []
    for c in cases:
        t0 = time.perf_counter()
        try:
            check = prompt_check(c.request, base_url=target.url, engine=found.name, file=c.id)
        except PromptUnavailable as exc:
            out.append(Outcome(c, target.engine, PROMPT_API, "not-served", (), version, reason=str(exc)))
            continue
        ours = time.perf_counter() - t0 - check.seconds
        codes = failing_codes(check.differences)
        status, reason, link = _status(codes, known.get((c.id, target.engine, PROMPT_API)))
        out.append(Outcome(c, target.engine, PROMPT_API, status, codes, version, check, reason, link, ours, check.seconds))
    return out


def run_suite(cases: Sequence[Case], targets: Sequence[Target], *, known: Mapping[tuple[str, str, str], Known] | None = None,
              timeout: float = 120.0) -> list[Outcome]:
    """Every case through every target, for every API its engine serves (the others are ``not-served``).

    An engine that cannot be asked at all (unreachable, not installed) gives one ``error``
    outcome per case and API, all with the same one-line reason.
    """
    from harmony_viz.servers import APIS, ServerError, engines
    from harmony_viz.servers._launch import LaunchError
    from harmony_viz.templates import LensError

    known = known or {}
    answers = [c for c in cases if c.kind == "answer"]
    prompts = [c for c in cases if c.kind == "prompt"]
    out: list[Outcome] = []
    for target in targets:
        engines.get(target.engine)  # an unknown name is bad input, before any engine is asked
        try:
            got = _answers(answers, target, APIS, known, timeout) if answers else []
            got += _prompts(prompts, target, known) if prompts else []
        except (ServerError, LaunchError, LensError, OSError) as exc:
            line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            got = [Outcome(c, target.engine, api, "error", reason=line) for c in answers for api in APIS]
            got += [Outcome(c, target.engine, PROMPT_API, "error", reason=line) for c in prompts]
        out += got
    return out


def conformance_summary(outcomes: Sequence[Outcome]) -> dict[str, int]:
    """``{"passed", "failed", "known", "fixed", "not_served", "errors", "total"}``."""
    count = {s: sum(1 for o in outcomes if o.status == s) for s in STATUSES}
    return {"passed": count["pass"], "failed": count["fail"], "known": count["known"], "fixed": count["fixed"],
            "not_served": count["not-served"], "errors": count["error"], "total": len(outcomes)}


def exit_status(outcomes: Sequence[Outcome], *, allow_fixed: bool = False) -> int:
    """0 when every result is pass, known or not served (and fixed, with ``allow_fixed``); 1 otherwise."""
    ok = {"pass", "known", "not-served"} | ({"fixed"} if allow_fixed else set())
    return 0 if all(o.status in ok for o in outcomes) else 1


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
    return {"format": FORMAT, "summary": conformance_summary(outcomes), "engines": engines_of(outcomes, targets), "results": [o.to_json() for o in outcomes]}


def junit_xml(outcomes: Sequence[Outcome]) -> str:
    """One ``testcase`` per case x engine x API, ``classname`` the family; known and not served are ``skipped``."""
    import xml.etree.ElementTree as ET

    counts = conformance_summary(outcomes)
    suite = ET.Element("testsuite", name="harmony-conformance", tests=str(counts["total"]), failures=str(counts["failed"] + counts["fixed"]),
                       errors=str(counts["errors"]), skipped=str(counts["known"] + counts["not_served"]),
                       time=f"{sum(o.seconds + o.server_seconds for o in outcomes):.3f}")
    for o in outcomes:
        case = ET.SubElement(suite, "testcase", classname=o.case.family, name=f"{o.case.name}[{o.engine}-{o.api}]",
                             time=f"{o.seconds + o.server_seconds:.3f}")
        ET.SubElement(case, "properties")
        props = case[-1]
        for key, value in (("engine", o.engine), ("engine_version", o.engine_version or ""), ("api", o.api), ("case", o.case.id), ("format", str(FORMAT))):
            ET.SubElement(props, "property", name=key, value=value)
        if o.status == "fail":
            lines = [f"[{d.severity}] {d.code}: {d.message}" for d in _findings(o) if d.severity in FAILING]
            failure = ET.SubElement(case, "failure", message=", ".join(o.codes), type="divergence")
            failure.text = "\n".join(([o.reason] if o.reason else []) + lines)
        elif o.status == "fixed":
            failure = ET.SubElement(case, "failure", message="listed as a known divergence, and it now passes", type="fixed")
            failure.text = f"remove it from the known divergences ({o.reason})" if o.reason else "remove it from the known divergences"
        elif o.status == "error":
            ET.SubElement(case, "error", message=o.reason, type="engine-error")
        elif o.status in ("known", "not-served"):
            ET.SubElement(case, "skipped", message=(f"known divergence: {o.reason}" if o.status == "known" else f"not served: {o.reason}"))
    ET.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"


def _findings(o: Outcome) -> tuple[Any, ...]:
    if o.check is None:
        return ()
    return tuple(getattr(o.check, "discrepancies", None) or getattr(o.check, "differences", None) or ())
