"""``harmony-viz conformance``: a versioned suite of cases through every engine named, with reports CI reads."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harmony_viz.cli._common import CLIError, command
from harmony_viz.cli._engines import add_engine_options, add_engine_targets, engine_options, engine_targets, target_flags

EPILOG = """examples:
  harmony-viz conformance --llama-cpp http://127.0.0.1:8080/v1 --sglang --gpt-oss http://127.0.0.1:8001/v1 --junit out.xml
  harmony-viz conformance --vllm http://127.0.0.1:8000/v1 --known known.jsonl --json report.json --html report.html
  harmony-viz conformance --sglang --select 'header/*' --write-known known.jsonl
  harmony-viz conformance --merge vllm-0.16.json vllm-0.32.json --html axis.html

Each case (docs/conformance.md) goes through every engine named and every API it serves:
answer cases through server-check's comparison, prompt cases through prompt-check's. A result
is pass (no finding of warning or above), fail (its codes), known (listed in --known with the
same codes), fixed (listed, and it now passes: a failure unless --allow-fixed), not-served, or
error (the engine could not be asked). Exit 0 when every result is pass, known or not served;
1 otherwise; 2 on bad input (a case that breaks the format is named with its file and line).
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = command(subparsers, "conformance", run, help="run a conformance suite through engines; JUnit, JSON and HTML reports",
                description="Run the shipped suite (or your own cases) through every engine named and write reports a CI job reads.", epilog=EPILOG)
    add_engine_targets(p)
    add_engine_options(p, "conformance")
    p.add_argument("--suite", action="append", metavar="DIR|FILE", help="a folder of cases, or a .json / .jsonl file (repeatable; default: the shipped suite)")
    p.add_argument("--select", action="append", metavar="PATTERN", help="only the cases whose id matches (fnmatch, e.g. 'header/*'; repeatable)")
    p.add_argument("--known", metavar="FILE", help="known divergences: JSON lines of case, engine, api, codes, reason, link")
    p.add_argument("--write-known", metavar="OUT", help="write today's failures as a known-divergence file")
    p.add_argument("--allow-fixed", action="store_true", help="a known divergence that now passes does not fail the run")
    p.add_argument("--junit", metavar="OUT.xml", help="a JUnit XML report: one testcase per case, engine and API")
    p.add_argument("--json", metavar="OUT.json", help="a JSON report: summary, engines, results")
    p.add_argument("--html", metavar="OUT.html", help="a self-contained HTML matrix of cases by engine and API")
    p.add_argument("--merge", nargs="+", metavar="REPORT.json", help="join JSON reports into one matrix (a column per engine, version and API); no engine is run")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds per request (default 120)")


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CLIError(f"{path}: cannot write: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    from harmony_viz import servers as cf
    from harmony_viz.conformance import SuiteError, load_suite, select
    from harmony_viz.servers import engines

    if args.merge:
        return _merge(args)
    named = engine_targets(args)
    if not named:
        raise CLIError(f"name at least one engine: {target_flags()}")
    try:
        cases = load_suite(args.suite)
        if args.select:
            cases = select(cases, args.select)
        known = cf.read_known(args.known) if args.known else {}
    except (SuiteError, cf.KnownError) as exc:
        raise CLIError(str(exc)) from None
    if not cases:
        raise CLIError(f"no case matches {', '.join(args.select or [])}")
    by_dest = {e.dest: e for e in engines.engines()}
    options = engine_options(args)
    targets = [cf.Target(by_dest[d].name, None if by_dest[d].offline else str(v), options) for d, v in named.items()]
    outcomes = cf.run_suite(cases, targets, known=known, timeout=args.timeout)
    said = set()
    for o in outcomes:
        if o.status == "error" and (o.engine, o.reason) not in said:
            print(f"harmony-viz conformance: {o.engine}: could not be asked: {o.reason}", file=sys.stderr)
            said.add((o.engine, o.reason))
    counts = cf.conformance_summary(outcomes)
    for t in targets:
        mine = cf.conformance_summary([o for o in outcomes if o.engine == t.engine])
        print(f"{t.engine}: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in mine.items() if k != "total" and v) + f" of {mine['total']}")
    for o in outcomes:
        if o.status in ("fail", "fixed"):
            print(f"  {o.status.upper()} {o.case.id} [{o.engine} {o.api}]: {', '.join(o.codes) or o.reason}")
    print("total: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items() if k != "total") + f" of {counts['total']}")
    if args.json:
        _write(args.json, json.dumps(cf.conformance_report(outcomes, targets), ensure_ascii=False, indent=1) + "\n")
    if args.junit:
        _write(args.junit, cf.junit_xml(outcomes))
    if args.html:
        from harmony_viz.servers import conformance_page

        links, problems = _write_replays(outcomes, Path(args.html))
        _write(args.html, conformance_page([cf.conformance_report(outcomes, targets)], outcomes=outcomes, links=links, notes=problems))
    if args.write_known:
        n = cf.write_known(outcomes, args.write_known)
        print(f"wrote {n} known divergence(s) to {args.write_known}", file=sys.stderr)
    return cf.exit_status(outcomes, allow_fixed=args.allow_fixed)


def _write_replays(outcomes: list, page_path: Path) -> tuple[dict, list[str]]:
    """The replay pages the matrix at ``page_path`` links to, written beside it into ``OUT.replays``: (links by result, problems)."""
    from urllib.parse import quote

    from harmony_viz._replay import save_html
    from harmony_viz.inputs import InputError
    from harmony_viz.servers import replay_pages, with_opener

    folder = page_path.with_suffix(".replays")
    links: dict = {}
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
        raise CLIError(f"{folder}: cannot write the replays: {exc.strerror or exc}") from None
    return links, problems


def _merge(args: argparse.Namespace) -> int:
    from harmony_viz.servers import MergeError, conformance_page, read_report

    if not args.html:
        raise CLIError("--merge joins reports into a matrix: give --html OUT.html")
    try:
        reports = [read_report(p) for p in args.merge]
    except MergeError as exc:
        raise CLIError(str(exc)) from None
    _write(args.html, conformance_page(reports, sources=args.merge))
    return 0
