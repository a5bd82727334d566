"""``harmony-viz stats``: where the output tokens of runs go (reasoning, preamble, tool calls, final)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harmony_viz.cli._common import CLIError, atomic_path, command, int_in, write_json
from harmony_viz.cli._stats_output import name_unreadable, report_title, write_csv, write_rows
from harmony_viz.cli._stats_scale import run_at_scale, wants_scale

_EXAMPLES = """\
examples:
  harmony-viz stats findings-rag.json                 a table, one line per run
  harmony-viz stats runs.jsonl --json                 one JSON object per run, in input order
  harmony-viz stats a.json b.jsonl --csv runs.csv --html report.html
  harmony-viz stats big/*.jsonl.gz --parquet rows.parquet --jobs 2   flat memory, one row per run
  harmony-viz stats chats.parquet --column messages --parquet rows.parquet
  harmony-viz stats shards/*.jsonl --engine ray --parquet rows/       Ray Data writes a folder of parts

Inputs at scale (read in batches): JSONL (.jsonl, .jsonl.gz), Parquet, and Hugging Face
datasets saved with save_to_disk (a folder). --column names the field holding Harmony
text, token ids or chat messages when records are not our run objects.
"""


def add_parser(subparsers: Any) -> None:
    p = command(subparsers, "stats", run, help="token and reasoning shares of runs (table, JSON, CSV, HTML report)", description="Scan run files and count each run's output tokens by kind: reasoning, preamble, "
        "tool call, final. Files: our JSONL, Kaggle findings JSON, prompt/completion JSON, "
        "token-id JSON, Markdown trial transcripts, Harmony text; - reads stdin.", epilog=_EXAMPLES)
    p.add_argument("files", nargs="+", metavar="FILE", help="run files, read in the order given")
    p.add_argument("--json", action="store_true", help="print a JSON list, one object per run, instead of the table")
    p.add_argument("--csv", metavar="OUT", help="write the runs frame as CSV to OUT (- for stdout)")
    p.add_argument("--html", metavar="REPORT", help="write a self-contained HTML page of the charts to REPORT")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (it shows only on a terminal anyway)")
    scale = p.add_argument_group("at scale")
    scale.add_argument("--parquet", metavar="OUT", help="write one row per run (the --json columns) to OUT.parquet in flat memory; prints a one-line summary")
    scale.add_argument("--jobs", type=int_in(1), default=1, metavar="N", help="processes sharing the work (same rows as one job; default 1)")
    scale.add_argument("--column", metavar="NAME", help="field holding Harmony text, token ids or chat messages (Parquet, datasets, JSONL records)")
    scale.add_argument("--engine", choices=("local", "ray"), default="local", help="local processes (default) or Ray Data (needs harmony-viz[scale]; writes a folder of Parquet parts)")
    scale.add_argument("--batch-size", type=int_in(1), default=512, metavar="N", help="records per batch (default 512)")


def run(args: argparse.Namespace) -> int:
    from harmony_viz.runs import load_runs
    from harmony_viz.stats import analyze_runs

    if args.json and args.csv == "-":
        raise CLIError("--json and --csv - both write to stdout; give --csv a file name")
    if args.files.count("-") > 1:
        raise CLIError("- (stdin) can be given only once")
    for out in (args.csv, args.html):
        if out and out != "-" and Path(out).is_dir():
            raise CLIError(f"{out}: is a folder; give a file name such as {Path(out) / 'runs.csv'}")
    progress = False if args.no_progress else None
    files, unreadable = readable_files(args.files)
    if not files:
        name_unreadable(unreadable)
        if args.json:
            write_json([])
        return 1
    if wants_scale(args, files):
        return run_at_scale(args, files, unreadable, progress=progress)
    runs = []
    for run in load_runs(files, progress=progress):
        if run.load_error is not None:
            unreadable.append(run.load_error)  # no row: it was not read
        else:
            runs.append(run)
    name_unreadable(unreadable)
    usages = analyze_runs(runs, progress=progress)
    rows = [u.to_json() for u in usages]

    if args.csv:
        from harmony_viz.stats import runs_frame

        write_csv(runs_frame(usages), args.csv)
    if args.html:
        from harmony_viz.charts import save_report

        with atomic_path(args.html) as tmp:
            save_report(usages, tmp, title=report_title(args.files))
        print(f"wrote the report to {args.html}", file=sys.stderr)
    write_rows(args, rows)
    return 1 if unreadable else 0


def readable_files(paths: list[str]) -> tuple[list[str], list[str]]:
    """(the paths that exist, a line for each that does not); a missing file gets no row."""
    found: list[str] = []
    missing: list[str] = []
    for path in paths:
        p = Path(path)
        if path == "-" or p.is_file() or (p.is_dir() and ((p / "state.json").is_file() or (p / "dataset_dict.json").is_file())):
            found.append(path)
        else:
            missing.append(f"{path}: is a folder; pass the run files inside it (e.g. {path}/*.json)" if p.is_dir() else f"{path}: no such file")
    return found, missing
