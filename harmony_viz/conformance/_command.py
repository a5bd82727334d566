"""What ``harmony-viz conformance`` does once its arguments are read: run the suite, say the counts, write the reports; or join saved reports.

The command line (``harmony_viz.cli._conformance``) only parses; each step here raises an error
of one line (a case file, a known-divergence file, a report, a file it cannot write), which
the command prints as bad input.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO
from urllib.parse import quote

from harmony_viz._replay import save_html
from harmony_viz.conformance._case import Case
from harmony_viz.conformance._known import Known, KnownKey, write_known
from harmony_viz.conformance._page import conformance_page
from harmony_viz.conformance._records import KNOWN_KINDS
from harmony_viz.conformance._replays import Key, replay_pages, with_opener
from harmony_viz.conformance._report import conformance_report, junit_xml, level_line, read_report, summary_line
from harmony_viz.conformance._run import Outcome, Target, exit_status, run_suite
from harmony_viz.inputs import InputError


class OutputError(ValueError):
    """A report or page that cannot be written: one line, ``PATH: why``."""


@dataclass(frozen=True)
class Outputs:
    """Where a run's reports go (None: not written)."""

    json: str | None = None
    junit: str | None = None
    html: str | None = None
    known: str | None = None  # today's failures as a known-divergence file


def _write(path: str | Path, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None


def write_replays(outcomes: Sequence[Outcome], page_path: Path) -> tuple[dict[Key, str], list[str]]:
    """The replay pages the matrix at ``page_path`` links to, written beside it into ``OUT.replays``: (links by result, problems)."""
    folder = page_path.with_suffix(".replays")
    links: dict[Key, str] = {}
    problems: list[str] = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for page in replay_pages(outcomes):
            path = folder / page.file
            try:
                save_html(page.source, path, step=-1, name=page.name, links=[("the conformance matrix", f"../{quote(page_path.name)}")])
            except (InputError, ValueError) as exc:
                problems.append(f"{page.name}: no replay ({' '.join(str(exc).split())})")
                continue
            path.write_text(with_opener(path.read_text(encoding="utf-8")), encoding="utf-8")
            for key, fragment in page.fragments.items():
                links[key] = f"{quote(folder.name)}/{quote(page.file)}#{fragment}"
    except OSError as exc:
        raise OutputError(f"{folder}: cannot write the replays: {exc.strerror or exc}") from None
    return links, problems


def _say(outcomes: Sequence[Outcome], targets: Sequence[Target], out: TextIO, err: TextIO) -> None:
    said = set()
    for o in outcomes:
        if o.status == "error" and (o.engine, o.reason) not in said:
            print(f"harmony-viz conformance: {o.engine}: could not be asked: {o.reason}", file=err)
            said.add((o.engine, o.reason))
    for t in targets:
        mine = [o for o in outcomes if o.engine == t.engine]
        print(f"{t.engine}: " + summary_line(mine), file=out)
        if mine:
            print(f"{t.engine} pass rate by level: " + level_line(mine), file=out)
        kinds = {k: sum(1 for o in mine if o.known_kind == k and o.status == "known") for k in KNOWN_KINDS}
        if any(kinds.values()):
            print(f"{t.engine} known divergences by kind: " + ", ".join(f"{n} {k}" for k, n in kinds.items() if n), file=out)
    for o in outcomes:
        if o.status in ("fail", "fixed"):
            print(f"  {o.status.upper()} {o.case.id} [{o.engine} {o.api}]: {', '.join(o.codes) or o.reason}", file=out)
    counts = conformance_report(outcomes, targets)["summary"]
    print("total: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items() if k != "total") + f" of {counts['total']}", file=out)


def run_and_report(cases: Sequence[Case], targets: Sequence[Target], *, known: Mapping[KnownKey, Known] | None = None, timeout: float = 120.0,
                   outputs: Outputs = Outputs(), allow_fixed: bool = False, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The suite through the targets, its counts said on ``out`` (an engine that could not be asked on ``err``), the reports written; the exit status."""
    out, err = out or sys.stdout, err or sys.stderr
    outcomes = run_suite(cases, targets, known=known, timeout=timeout)
    _say(outcomes, targets, out, err)
    report = conformance_report(outcomes, targets) if outputs.json or outputs.html else None
    if outputs.json:
        _write(outputs.json, json.dumps(report, ensure_ascii=False, indent=1) + "\n")
    if outputs.junit:
        _write(outputs.junit, junit_xml(outcomes))
    if outputs.html and report is not None:
        links, problems = write_replays(outcomes, Path(outputs.html))
        _write(outputs.html, conformance_page([report], outcomes=outcomes, links=links, notes=problems))
    if outputs.known:
        try:
            n = write_known(outcomes, outputs.known)
        except OSError as exc:
            raise OutputError(f"{outputs.known}: cannot write: {exc.strerror or exc}") from None
        print(f"wrote {n} known divergence(s) to {outputs.known}", file=err)
    return exit_status(outcomes, allow_fixed=allow_fixed)


def merge_reports(paths: Sequence[str], html_path: str) -> int:
    """Saved reports joined into one matrix page at ``html_path`` (a column per engine, version and API); MergeError or OutputError in one line."""
    reports = [read_report(p) for p in paths]
    _write(html_path, conformance_page(reports, sources=paths))
    return 0
