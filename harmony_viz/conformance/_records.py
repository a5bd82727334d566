"""The records the runner and the known-divergence files share: a result (:class:`Outcome`) and a known divergence (:class:`Known`).

They sit below both ``_run`` and ``_known`` so that neither imports the other for them; so do the rules that turn a
result's failing codes and its known divergence into a status (:func:`failing_codes`, :func:`status_of`), which every
family's runner uses.
A known divergence is triaged (issue 34): its ``kind`` is ``bug`` (with the ``link`` of the
upstream report, or a ``draft`` of the report where none exists yet), ``intentional`` (the
engine's documented choice, its ``reason`` saying which) or ``research-needed``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from harmony_viz.conformance._case import FORMAT, Case

Status = Literal["pass", "fail", "known", "fixed", "not-served", "error"]
STATUSES: tuple[Status, ...] = ("pass", "fail", "known", "fixed", "not-served", "error")
KnownKey = tuple[str, str, str]  # (case id, engine, api)
KnownKind = Literal["bug", "intentional", "research-needed"]
KNOWN_KINDS: tuple[KnownKind, ...] = ("bug", "intentional", "research-needed")
FAILING = ("warning", "error")  # the severities that fail a case


@dataclass(frozen=True)
class Known:
    """One recorded divergence: this case, through this engine's api, fails with exactly these codes; and what kind of divergence it is."""

    case: str
    engine: str
    api: str
    codes: frozenset[str]
    reason: str = ""
    link: str = ""
    kind: KnownKind = "research-needed"
    draft: str = ""  # a bug's report, written out, where no upstream report exists yet

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"case": self.case, "engine": self.engine, "api": self.api, "codes": sorted(self.codes), "kind": self.kind,
                               "reason": self.reason, "link": self.link}
        if self.draft:
            out["draft"] = self.draft
        return out


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
    known_kind: str = ""  # a known divergence's kind (bug, intentional, research-needed); "" for any other result
    seconds: float = 0.0  # our own work on this result (projection, comparison), not the server's
    server_seconds: float = 0.0

    @property
    def key(self) -> KnownKey:
        return (self.case.id, self.engine, self.api)

    def to_json(self) -> dict[str, Any]:
        """The object ``server-check --json`` (or ``prompt-check --json``) prints, with ``status``, ``case`` and the format."""
        base = dict(self.check.to_json()) if self.check is not None else {"file": self.case.source, "engine": self.engine, "api": self.api}
        base.update(engine=self.engine, api=self.api, engine_version=self.engine_version, status=self.status, case=self.case.id,
                    family=self.case.family, kind=self.case.kind, level=self.case.level, rules=list(self.case.rules), format=FORMAT,
                    codes=list(self.codes))
        if self.reason:
            base["reason"] = self.reason
        if self.link:
            base["link"] = self.link
        if self.known_kind:
            base["known_kind"] = self.known_kind
        return base


def failing_codes(findings: Iterable[Any]) -> tuple[str, ...]:
    """The codes of the findings that fail a result (warning and above), sorted, each once."""
    return tuple(sorted({d.code for d in findings if d.severity in FAILING}))


def status_of(codes: tuple[str, ...], known: Known | None) -> tuple[Status, str, str, str]:
    """(status, reason, link, the known divergence's kind) of a result failing with ``codes``."""
    if known is None:
        return ("fail" if codes else "pass"), "", "", ""
    if not codes:
        return "fixed", known.reason, known.link, known.kind
    if frozenset(codes) == known.codes:
        return "known", known.reason, known.link, known.kind
    return "fail", f"listed as known with {', '.join(sorted(known.codes))}, fails with {', '.join(codes)}", known.link, known.kind
