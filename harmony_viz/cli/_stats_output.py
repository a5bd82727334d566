"""How ``harmony-viz stats`` writes what it found: the table, JSON rows, CSV, and the lines naming unread inputs."""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

from harmony_viz.cli._common import atomic_path, write_json, write_text


def write_csv(frame: Any, dest: str) -> None:
    """The runs frame as CSV to the file ``dest`` (whole or not at all), or to stdout for ``-``."""
    if dest == "-":
        write_text(frame.to_csv(index=False))
        return
    with atomic_path(dest) as tmp:
        frame.to_csv(tmp, index=False)
    print(f"wrote {len(frame)} runs to {dest}", file=sys.stderr)


def write_rows(args: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    """The rows on stdout: one JSON array with --json, else the table (unless the CSV went there)."""
    if args.json:
        write_json(rows)
    elif args.csv != "-":
        write_text(format_table(rows))


def name_unreadable(lines: list[str]) -> None:
    """Name each input that could not be read, one line each on stderr."""
    for line in lines:
        print(f"harmony-viz stats: {line}", file=sys.stderr)


def report_title(files: list[str]) -> str:
    return f"harmony-viz stats: {', '.join(Path(f).name for f in files[:3])}" + (" …" if len(files) > 3 else "")


def format_table(rows: list[dict[str, Any]]) -> str:
    """A fixed-width table, one line per run, and a summary line."""
    head = ("run", "effort", "output", "reasoning", "preamble", "tool_call", "final", "share", "diags")
    body = [
        (
            r["id"],
            r["reasoning_effort"] or "-",
            str(r["output_tokens"]),
            str(r["reasoning_tokens"]),
            str(r["preamble_tokens"]),
            str(r["tool_call_tokens"]),
            str(r["final_tokens"]),
            "-" if r["reasoning_share"] is None else f"{r['reasoning_share']:.2f}",
            str(r["diagnostics"]),
        )
        for r in rows
    ]
    widths = [max([len(h)] + [len(line[i]) for line in body]) for i, h in enumerate(head)]
    lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))) for line in [head, *body]]
    shares = [r["reasoning_share"] for r in rows if r["reasoning_share"] is not None]
    chars = [r["reasoning_share_chars"] for r in rows if r["reasoning_share_chars"] is not None]
    summary = f"{len(rows)} runs, {sum(r['output_tokens'] for r in rows)} output tokens"
    if shares:
        summary += f", median reasoning share {statistics.median(shares):.2f} of tokens"
    if chars:
        summary += f", {statistics.median(chars):.2f} of characters"
    summary += f", {sum(r['diagnostics'] for r in rows)} diagnostics"
    return "\n".join(lines + [summary]) + "\n"
