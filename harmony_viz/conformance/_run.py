"""The runner: every case of a suite through every engine and API it serves, each result a status.

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
from typing import Any

from harmony_viz.conformance._case import Case, load_suite, select

# FAILING and _status stay importable from here for the family runners that still read them here (_roundtrip, _structured)
from harmony_viz.conformance._records import FAILING, Known, KnownKey, Outcome, failing_codes  # noqa: F401
from harmony_viz.conformance._records import status_of as _status
from harmony_viz.servers import APIS, LaunchError, PromptUnavailable, ServerError, check_named, engines, prompt_check
from harmony_viz.templates import LensError

PROMPT_API = "prompt"  # the API column of a prompt case: the prompt the engine rendered for the request


@dataclass(frozen=True)
class Target:
    """An engine to run the suite through: its registry name, and its URL (None for one that runs offline)."""

    engine: str
    url: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


class NoCaseError(ValueError):
    """No case of the suite matches the patterns given: one line."""


def load_cases(paths: Sequence[str | Path] | None, patterns: Sequence[str] | None, levels: Sequence[str] | None = None) -> list[Case]:
    """The suite at ``paths`` (the shipped one for None), only the cases matching ``patterns`` and at one of ``levels``.

    A case file that cannot be used is a SuiteError, no case left a NoCaseError: one line each.
    """
    cases = load_suite(paths)
    if patterns:
        cases = select(cases, patterns)
    if levels:
        cases = [c for c in cases if c.level in levels]
    if not cases:
        asked = [*(patterns or []), *(f"level {lv}" for lv in levels or [])]
        raise NoCaseError(f"no case matches {', '.join(asked)}")
    return cases


def apis_of(case: Case) -> tuple[str, ...]:
    """The API columns a case has: every API for an answer case, the prompt for a prompt case, one column for a roundtrip or structured case."""
    return tuple(APIS) if case.kind == "answer" else (PROMPT_API,) if case.kind == "prompt" else (case.kind,)


def _answer_outcomes(case_by_name: Mapping[str, Case], results: Iterable[Any], engine: str, known: Mapping[KnownKey, Known]) -> list[Outcome]:
    out = []
    for r in results:
        case = case_by_name[r.file]
        if not r.served:
            out.append(Outcome(case=case, engine=engine, api=r.api, status="not-served", engine_version=r.engine_version, check=r,
                               reason=r.notes[0] if r.notes else "not served"))
            continue
        codes = failing_codes(r.discrepancies)
        status, reason, link, kind = _status(codes, known.get((case.id, engine, r.api)))
        out.append(Outcome(case=case, engine=engine, api=r.api, status=status, codes=codes, engine_version=r.engine_version, check=r,
                           reason=reason, link=link, known_kind=kind, seconds=r.check_seconds, server_seconds=r.server_seconds))
    return out


def _answers(cases: Sequence[Case], target: Target, known: Mapping[KnownKey, Known], timeout: float) -> list[Outcome]:
    # One batch per request (an offline engine starts one process per batch), cases kept in suite order.
    groups: dict[str, list[Case]] = {}
    for c in cases:
        groups.setdefault(json.dumps(c.request, sort_keys=True), []).append(c)
    by_name = {c.id: c for c in cases}
    out: list[Outcome] = []
    for batch in groups.values():
        named = [(c.id, list(c.ids or ())) for c in batch]
        results = check_named(target.engine, named, base_url=target.url, request=batch[0].request or {}, apis=APIS,
                              options=dict(target.options), timeout=timeout)
        out += _answer_outcomes(by_name, results, target.engine, known)
    order = {c.id: i for i, c in enumerate(cases)}
    return sorted(out, key=lambda o: order[o.case.id])


def _prompts(cases: Sequence[Case], target: Target, known: Mapping[KnownKey, Known]) -> list[Outcome]:
    found = engines.get(target.engine)
    if found.offline:
        return [Outcome(case=c, engine=target.engine, api=PROMPT_API, status="not-served", reason=f"{found.name} runs offline: no server, no prompt")
                for c in cases]
    version = found.version(engines.Probe(target.url or ""))
    out = []
    for c in cases:
        t0 = time.perf_counter()
        try:
            check = prompt_check(c.request, base_url=target.url, engine=found.name, file=c.id)
        except PromptUnavailable as exc:
            out.append(Outcome(case=c, engine=target.engine, api=PROMPT_API, status="not-served", engine_version=version, reason=str(exc)))
            continue
        ours = time.perf_counter() - t0 - check.seconds
        codes = failing_codes(check.differences)
        status, reason, link, kind = _status(codes, known.get((c.id, target.engine, PROMPT_API)))
        out.append(Outcome(case=c, engine=target.engine, api=PROMPT_API, status=status, codes=codes, engine_version=version, check=check,
                           reason=reason, link=link, known_kind=kind, seconds=ours, server_seconds=check.seconds))
    return out


def _generated(cases: Sequence[Case], target: Target, known: Mapping[KnownKey, Known], timeout: float) -> list[Outcome]:
    """The roundtrip and structured cases through one target (``_roundtrip``, ``_structured``: families of their own)."""
    from harmony_viz.conformance._roundtrip import roundtrip_outcomes
    from harmony_viz.conformance._structured import structured_outcomes

    trips, structured = [c for c in cases if c.kind == "roundtrip"], [c for c in cases if c.kind == "structured"]
    got = roundtrip_outcomes(trips, target.engine, target.url, known, timeout=timeout) if trips else []
    return got + (structured_outcomes(structured, target.engine, target.url, known, timeout=timeout) if structured else [])


def run_suite(cases: Sequence[Case], targets: Sequence[Target], *, known: Mapping[KnownKey, Known] | None = None,
              timeout: float = 120.0) -> list[Outcome]:
    """Every case through every target, for every API its engine serves (the others are ``not-served``).

    An engine that cannot be asked at all (unreachable, not installed) gives one ``error``
    outcome per case and API, all with the same one-line reason.
    """
    known = known or {}
    answers = [c for c in cases if c.kind == "answer"]
    prompts = [c for c in cases if c.kind == "prompt"]
    out: list[Outcome] = []
    for target in targets:
        engines.get(target.engine)  # an unknown name is bad input, before any engine is asked
        try:
            got = _answers(answers, target, known, timeout) if answers else []
            got += _prompts(prompts, target, known) if prompts else []
            got += _generated(cases, target, known, timeout)
        except (ServerError, LaunchError, LensError, OSError) as exc:
            line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            got = [Outcome(case=c, engine=target.engine, api=api, status="error", reason=line) for c in cases for api in apis_of(c)]
        out += got
    return out


def exit_status(outcomes: Sequence[Outcome], *, allow_fixed: bool = False) -> int:
    """0 when every result is pass, known or not served (and fixed, with ``allow_fixed``); 1 otherwise."""
    ok = {"pass", "known", "not-served"} | ({"fixed"} if allow_fixed else set())
    return 0 if all(o.status in ok for o in outcomes) else 1


class EngineRuns:
    """A suite's run, one engine at a time, each when first asked (the pytest plugin's tests ask case by case).

    ``wanted`` narrows an engine's cases to the ids still selected; an engine whose run raised
    is ``broken``, with the one line every one of its results then says.
    """

    def __init__(self, cases: Sequence[Case], targets: Sequence[Target], known: Mapping[KnownKey, Known], timeout: float) -> None:
        self.cases = list(cases)
        self.targets = list(targets)
        self.known = known
        self.timeout = timeout
        self.wanted: dict[str, set[str]] = {}
        self.outcomes: dict[str, dict[KnownKey, Outcome]] = {}
        self.broken: dict[str, str] = {}

    def run(self, engine: str) -> None:
        if engine in self.outcomes or engine in self.broken:
            return
        target = next(t for t in self.targets if t.engine == engine)
        wanted = self.wanted.get(engine)
        cases = [c for c in self.cases if wanted is None or c.id in wanted]
        try:
            got = run_suite(cases, [target], known=self.known, timeout=self.timeout) if cases else []
        except Exception as exc:  # noqa: BLE001 - an engine's own failure, not a case's: each of its results says it once
            first = str(exc).splitlines()[0] if str(exc) else ""
            self.broken[engine] = f"{engine} could not be asked: {type(exc).__name__}: {first}".rstrip(": ")
            return
        self.outcomes[engine] = {o.key: o for o in got}

    def outcome(self, engine: str, key: KnownKey) -> Outcome | str:
        """This case's outcome through this engine's API, or the one line why the engine's run broke."""
        self.run(engine)
        if engine in self.broken:
            return self.broken[engine]
        found = self.outcomes[engine].get(key)
        return found if found is not None else f"the run gave no result for {key[0]} through {engine} {key[2]}"
