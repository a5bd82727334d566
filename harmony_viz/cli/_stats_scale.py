"""``harmony-viz stats`` at scale: rows streamed to Parquet (local processes or Ray), aggregates from DuckDB."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from harmony_viz.cli._common import CLIError, atomic_path, write_text
from harmony_viz.cli._stats_output import name_unreadable, report_title, write_csv, write_rows

_BIG_KINDS = ("parquet", "dataset", "jsonl.gz")


def wants_scale(args: argparse.Namespace, files: list[str]) -> bool:
    """The streaming path: asked for by an option, or needed by the input (Parquet, gzip, a dataset folder)."""
    from harmony_viz.scale import input_kind

    if args.parquet or args.jobs != 1 or args.engine != "local" or args.column:
        return True
    return any(input_kind(f) in _BIG_KINDS for f in files)


def run_at_scale(args: argparse.Namespace, files: list[str], unreadable: list[str], *, progress: bool | None) -> int:

    _check(args)
    files = _whole_files(files, unreadable)
    name_unreadable(unreadable)
    status = 1 if unreadable else 0
    if args.parquet:
        if args.engine == "ray":
            rows = _write(args, files, args.parquet, progress)  # Ray Data writes a folder of parts
        else:
            with atomic_path(args.parquet) as tmp:
                rows = _write(args, files, str(tmp), progress)
        from harmony_viz.scale import summarise

        summary = summarise(args.parquet)
        write_text(f"wrote {rows} runs to {args.parquet}: {summary.line().split(', ', 1)[1]}\n")
        if args.html:
            _report(args, args.parquet)
        return status
    # No --parquet: the rows go through a temporary file, then out as JSON, CSV or the table.
    with tempfile.TemporaryDirectory(prefix="harmony-viz-") as tmp_dir:
        out = str(Path(tmp_dir) / "rows.parquet")
        _write(args, files, out, progress)
        if args.html:
            _report(args, out)
        import pyarrow.parquet as pq

        table = pq.read_table(out)
        if args.csv:
            # As the in-memory CSV writes it: the run id as "run", codes joined by commas.
            frame = table.to_pandas().rename(columns={"id": "run"})
            frame["diagnostic_codes"] = frame["diagnostic_codes"].map(",".join)
            write_csv(frame, args.csv)
        rows = table.to_pylist()
    write_rows(args, rows)
    return status


def _whole_files(files: list[str], unreadable: list[str]) -> list[str]:
    """The files the reader can read; a line in ``unreadable`` for each other.

    A file read whole (not in batches) is read here; a big one is checked (a Parquet file's
    footer; a gzip file decompressed through, which costs little beside scanning its runs),
    so one bad file among many is skipped, as stats skips any unreadable file.
    """
    from harmony_viz._runfile import check_readable
    from harmony_viz.inputs import InputError, read
    from harmony_viz.scale import input_kind

    kept = []
    for path in files:
        kind = "file" if path == "-" else input_kind(path)
        try:
            if kind == "file" and path != "-":
                read(Path(path))
            elif kind in ("parquet", "jsonl.gz"):
                check_readable(path, kind)
        except InputError as exc:
            unreadable.append(f"{exc}; file skipped")
            continue
        kept.append(path)
    return kept


def _check(args: argparse.Namespace) -> None:
    if args.jobs < 1:
        raise CLIError(f"--jobs must be at least 1, got {args.jobs}")
    if args.batch_size < 1:
        raise CLIError(f"--batch-size must be at least 1, got {args.batch_size}")
    if args.parquet and (args.json or args.csv):
        raise CLIError("--parquet writes the rows to Parquet and prints a summary; leave out --json and --csv (read the Parquet instead)")
    if args.engine == "ray" and not args.parquet:
        raise CLIError("--engine ray writes Parquet: add --parquet OUT (a folder of parts)")
    if args.parquet and args.engine == "local" and Path(args.parquet).is_dir():
        raise CLIError(f"{args.parquet}: is a folder; give a file name such as {Path(args.parquet) / 'rows.parquet'}")
    if "-" in args.files and (args.jobs > 1 or args.engine == "ray"):
        raise CLIError("- (stdin) cannot be shared between processes; save it to a file first")


def _write(args: argparse.Namespace, files: list[str], out: str, progress: bool | None) -> int:
    from harmony_viz.scale import ray_write_parquet, write_parquet

    try:
        if args.engine == "ray":
            return ray_write_parquet(files, out, column=args.column, batch_size=args.batch_size)
        return write_parquet(files, out, column=args.column, jobs=args.jobs, batch_size=args.batch_size, progress=progress)
    except (FileNotFoundError, IsADirectoryError, ImportError, ValueError) as exc:
        raise CLIError(str(exc)) from None


def _report(args: argparse.Namespace, rows: str) -> None:
    from harmony_viz.charts import save_report

    with atomic_path(args.html) as tmp:
        save_report(Path(rows), tmp, title=report_title(args.files))
    print(f"wrote the report to {args.html}", file=sys.stderr)
