"""``harmony-viz conformance``: a versioned suite of cases through every engine named, with reports CI reads."""

from __future__ import annotations

import argparse

from harmony_viz.cli._common import CLIError, command
from harmony_viz.cli._engines import add_engine_options, add_engine_targets, engine_options, engine_targets, target_flags

EPILOG = """examples:
  harmony-viz conformance --llama-cpp http://127.0.0.1:8080/v1 --sglang --gpt-oss http://127.0.0.1:8001/v1 --junit out.xml
  harmony-viz conformance --vllm http://127.0.0.1:8000/v1 --known known.jsonl --json report.json --html report.html
  harmony-viz conformance --sglang --select 'header/*' --write-known known.jsonl
  harmony-viz conformance --merge vllm-0.16.json vllm-0.32.json --html axis.html
  harmony-viz conformance --merge docs/conformance/reports/*.json.gz --site site/
  harmony-viz conformance --rules
  harmony-viz conformance --check-suite my-cases/
  harmony-viz conformance --vllm http://127.0.0.1:8000/v1 --level must

Each case (docs/conformance.md) goes through every engine named and every API it serves:
answer cases through server-check's comparison, prompt cases through prompt-check's. A result
is pass (no finding of warning or above), fail (its codes), known (listed in --known with the
same codes), fixed (listed, and it now passes: a failure unless --allow-fixed), not-served, or
error (the engine could not be asked). Exit 0 when every result is pass, known or not served;
1 otherwise; 2 on bad input (a case that breaks the format is named with its file and line).

Every case cites the format's rules (--rules lists them) and has their strictest level: must
(the format decides, on a well-formed stream), should (recovery from malformed output) or may
(our choice where the format leaves it open). --check-suite checks cases before a run: each
problem one line FILE:LINE: what, on stderr, exit 2; exit 0 when there is none.
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = command(subparsers, "conformance", run, help="run a conformance suite through engines; JUnit, JSON and HTML reports",
                description="Run the shipped suite (or your own cases) through every engine named and write reports a CI job reads.", epilog=EPILOG)
    add_engine_targets(p)
    add_engine_options(p, "conformance")
    p.add_argument("--suite", action="append", metavar="DIR|FILE", help="a folder of cases, or a .json / .jsonl file (repeatable; default: the shipped suite)")
    p.add_argument("--select", action="append", metavar="PATTERN", help="only the cases whose id matches (fnmatch, e.g. 'header/*'; repeatable)")
    p.add_argument("--level", action="append", choices=("must", "should", "may"), help="only the cases at this level (repeatable)")
    p.add_argument("--rules", action="store_true", help="print the format's rules as JSON lines {id, level, text, source}; no engine is run")
    p.add_argument("--check-suite", nargs="+", metavar="DIR|FILE", help="check case files (schema, ids, rules, levels, requests) without running them")
    p.add_argument("--known", metavar="FILE", help="known divergences: JSON lines of case, engine, api, codes, kind, reason, link (draft)")
    p.add_argument("--write-known", metavar="OUT", help="write today's failures as a known-divergence file")
    p.add_argument("--allow-fixed", action="store_true", help="a known divergence that now passes does not fail the run")
    p.add_argument("--junit", metavar="OUT.xml", help="a JUnit XML report: one testcase per case, engine and API")
    p.add_argument("--json", metavar="OUT.json", help="a JSON report: summary, engines, results")
    p.add_argument("--html", metavar="OUT.html", help="a self-contained HTML matrix of cases by engine and API")
    p.add_argument("--merge", nargs="+", metavar="REPORT.json", help="join JSON reports into one matrix (a column per engine, version and API); no engine is run")
    p.add_argument("--site", metavar="DIR", help="with --merge: write a static site (index, a page per engine and version, per case, the rules, badges)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds per request (default 120)")


def run(args: argparse.Namespace) -> int:
    from harmony_viz import conformance as cf
    from harmony_viz.servers import engines

    if args.rules:
        import json

        for rule in cf.rules():
            print(json.dumps(rule.to_json(), ensure_ascii=False))
        return 0
    if args.check_suite:
        return cf.check_suite_command(args.check_suite)
    if args.site and not args.merge:
        raise CLIError("--site builds from saved reports: give --merge REPORT... --site DIR")
    if args.merge:
        if not args.html and not args.site:
            raise CLIError("--merge joins reports into a matrix: give --html OUT.html (or --site DIR)")
        try:
            if args.site:
                cf.write_site(args.merge, args.site)
            return cf.merge_reports(args.merge, args.html) if args.html else 0
        except (cf.MergeError, cf.OutputError, cf.SiteError) as exc:
            raise CLIError(str(exc)) from None
    named = engine_targets(args)
    if not named:
        raise CLIError(f"name at least one engine: {target_flags()}")
    try:
        cases = cf.load_cases(args.suite, args.select, args.level)
        known = cf.read_known(args.known) if args.known else {}
    except (cf.SuiteError, cf.NoCaseError, cf.KnownError) as exc:
        raise CLIError(str(exc)) from None
    by_dest = {e.dest: e for e in engines.engines()}
    options = engine_options(args)
    targets = [cf.Target(engine=by_dest[d].name, url=None if by_dest[d].offline else str(v), options=options) for d, v in named.items()]
    outputs = cf.Outputs(json=args.json, junit=args.junit, html=args.html, known=args.write_known)
    try:
        return cf.run_and_report(cases, targets, known=known, timeout=args.timeout, outputs=outputs, allow_fixed=args.allow_fixed)
    except cf.OutputError as exc:
        raise CLIError(str(exc)) from None
