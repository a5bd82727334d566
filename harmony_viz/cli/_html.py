"""``harmony-viz html``: write a standalone replay page (no kernel, no network) for a stream."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from harmony_viz.cli._common import CLIError, add_out, add_role, command, read_input, write_page

_EXAMPLES = """\
examples:
  harmony-viz html transcript.txt -o replay.html
  harmony-viz html tokens.json --chunking every:4 -o replay.html
  harmony-viz html runs.jsonl --run 3 -o run3.html
  cat completion.txt | harmony-viz html - --role assistant -o replay.html
"""


def add_parser(subparsers: Any) -> None:
    p = command(subparsers, "html", run, help="write a self-contained HTML page that replays a stream through the scanner", description="Write one HTML file replaying a stream step by step: token chips, scanner state, events, "
            "conversation and API view. Input: a JSON array of token ids, Harmony text, a conversation "
            "JSON ({\"messages\": [...]}) or a run file (.json/.jsonl). The page works offline from file://.", epilog=_EXAMPLES)
    p.add_argument("file", metavar="FILE", help="input file, or - for standard input")
    add_out(p, metavar="OUT.html", default="-", help="where to write the page (default: standard output)", output_alias=True)
    p.add_argument("--chunking", default="token", metavar="SPEC",
                   help="how the stream is cut into steps: token (default), every:N, random:SEED, chars:N, bytes:N, server")
    add_role(p)
    p.add_argument("--step", type=int, default=0, metavar="N", help="the step the page opens at (negative counts from the end; -1 = end of stream)")
    p.add_argument("--run", type=int, default=0, metavar="N", help="for run files holding several runs: which one (0-based, default 0)")
    p.add_argument("--title", default=None, help="the page title")
    p.add_argument("--template", metavar="FILE", default=None,
                   help="instead of a replay: the render diff of a Chat Completions request (the input) against this chat template (.jinja or model folder)")


def _source(text: str, origin: str, run_index: int) -> Any:
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            from harmony_viz.cli._parse import parse_source
        except ImportError:  # parse not built: plain JSON arrays still work
            value = json.loads(stripped)
            if isinstance(value, list):
                return value
            return text
        return parse_source(text, origin)
    is_jsonl = origin.endswith(".jsonl")
    if stripped.startswith("{") or is_jsonl:
        try:
            obj = json.loads(stripped) if not is_jsonl else None
        except ValueError:
            obj = None
        if isinstance(obj, dict) and "messages" in obj and not any(k in obj for k in ("prefill_text", "output_text", "prompt_token_ids", "text")):
            return obj  # a conversation: rendered by tokens_of
        try:
            from harmony_viz.runs import runs_from_file_text
        except ImportError:
            raise CLIError(f"{origin}: reading run files needs harmony_viz.runs, which is not available; "
                           "give token ids or Harmony text") from None
        runs = runs_from_file_text(text, Path(origin))
        if not runs:
            raise CLIError(f"{origin}: no runs found in this file")
        if not -len(runs) <= run_index < len(runs):
            raise CLIError(f"{origin}: --run {run_index} is out of range; the file holds {len(runs)} run(s), 0 to {len(runs) - 1}")
        return runs[run_index]
    return text


def _lens(source: Any) -> Any:
    """(ids, role, server tab data) for a capture (server lens), else None."""
    from harmony_viz.servers import is_capture, lens_source

    return lens_source(source) if is_capture(source) else None


def run(args: argparse.Namespace) -> int:
    if args.template is not None:
        from harmony_viz.cli._template_page import run_template_page

        return run_template_page(args)
    from harmony_viz._replay import page_html
    from harmony_viz.trace import SourceError, Trace, parse_chunking, tokens_of

    try:
        chunking = parse_chunking(args.chunking)
    except ValueError as exc:
        raise CLIError(f"--chunking: {exc}") from None
    text = read_input(args.file)
    origin = "stdin" if args.file == "-" else args.file
    if not text.strip():
        raise CLIError(f"{origin}: empty input; give token ids (a JSON array) or Harmony text")
    try:
        source = _source(text, origin, args.run)
        lens = _lens(source)
        ids = lens[0] if lens is not None else tokens_of(source)
    except SourceError as exc:
        raise CLIError(f"{origin}: {exc}") from None
    if not ids:
        raise CLIError(f"{origin}: the stream has no tokens")
    trace = Trace.build(ids, chunking, role=args.role or (lens[1] if lens is not None else None))
    step = args.step if args.step >= 0 else trace.n_steps + args.step
    if not 0 <= step < trace.n_steps:
        raise CLIError(f"--step {args.step} is out of range: this replay has steps 0 to {trace.n_steps - 1} (or -1 for the end)")
    page = page_html(trace, step=step, title=args.title, server=lens[2] if lens is not None else None)
    out = write_page(args.out, page, "replay.html")
    if out is not None:
        print(f"wrote {out} ({len(ids)} tokens, {trace.n_steps} steps, {len(page) // 1024} KiB); open it in a browser", file=sys.stderr)
    return 0
