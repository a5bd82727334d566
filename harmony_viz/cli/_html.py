"""``harmony-viz html``: write a standalone replay page (no kernel, no network) for a stream."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harmony_viz.cli._common import CLIError, add_out, add_role, command, need_folder, read_source, say_read, write_page

_EXAMPLES = """\
examples:
  harmony-viz html transcript.txt -o replay.html
  harmony-viz html tokens.json --chunking every:4 -o replay.html
  harmony-viz html runs.jsonl --run 3 -o run3.html
  cat completion.txt | harmony-viz html - --role assistant -o replay.html
"""


def add_parser(subparsers: Any) -> None:
    p = command(subparsers, "html", run, help="write a self-contained HTML page that replays a stream through the scanner", description="Write one HTML file replaying a stream step by step: token chips, scanner state, events, "
            "conversation and API view. Input: a JSON array of token ids, Harmony text, conversation "
            "JSON or a Chat Completions request ({\"messages\": [...]}), a run file (.json, .jsonl, .parquet, a Markdown trial) or a capture. The page works offline from file://.", epilog=_EXAMPLES)
    p.add_argument("file", metavar="FILE", help="input file, or - for standard input")
    add_out(p, metavar="OUT.html", default=None, help="where to write the page; - for standard output (the default when it is a pipe or a file; a terminal gets no page)", output_alias=True)
    p.add_argument("--chunking", default="token", metavar="SPEC",
                   help="how the stream is cut into steps: token (default), every:N, random:SEED, chars:N, bytes:N, server")
    add_role(p)
    p.add_argument("--step", type=int, default=-1, metavar="N", help="the step the page opens at (default -1: the end of the stream, as demo's page; negative counts from the end)")
    p.add_argument("--run", type=int, default=None, metavar="N", help="for run files holding several runs: which one (0-based, negative from the end; default 0)")
    p.add_argument("--title", default=None, help="the page title")
    p.add_argument("--template", metavar="FILE", default=None,
                   help="instead of a replay: the render diff of a Chat Completions request (the input) against this chat template (.jinja or model folder)")


def run(args: argparse.Namespace) -> int:
    args.out = page_destination(args.out)  # the replay and the template page alike
    if args.template is not None:
        from harmony_viz.cli._template_page import run_template_page

        return run_template_page(args)
    from harmony_viz._replay import logprobs_of, name_of, page_html, server_tab
    from harmony_viz.trace import Trace, parse_chunking

    try:
        chunking = parse_chunking(args.chunking)
    except ValueError as exc:
        kind, _, value = args.chunking.partition(":")
        if kind in ("every", "chars", "bytes", "random") and str(exc).startswith("unknown chunking"):
            wanted = "a whole number (any seed)" if kind == "random" else "a whole number of 1 or more"
            raise CLIError(f"--chunking {args.chunking}: {kind}:{'SEED' if kind == 'random' else 'N'} takes {wanted}, got {value!r}") from None
        raise CLIError(f"--chunking: {exc}") from None
    found = read_source(args.file, args)
    stream = found.stream(args.run)  # an empty stream is a page that says so, not an error
    trace = Trace.build(stream.ids, chunking, role=args.role or stream.role)
    step = args.step if args.step >= 0 else trace.n_steps + args.step
    if not 0 <= step < trace.n_steps:
        raise CLIError(f"--step {args.step} is out of range: this replay has steps 0 to {trace.n_steps - 1}, or -{trace.n_steps} to -1 from the end")
    say_read(found, stream)  # once every input is known good: bad input stays one line
    name = name_of(found, stream) or ("standard input" if args.file == "-" else args.file)
    page = page_html(trace, step=step, title=args.title, server=server_tab(stream, name), prompt_tokens=stream.prompt_tokens, name=name,
                     logprobs=logprobs_of(stream))
    written = write_page(args.out, page, "replay.html")
    if written is not None:
        print(f"wrote {written} ({len(stream.ids)} tokens, {trace.n_steps} steps, {len(page) // 1024} KiB); open it in a browser", file=sys.stderr)
    return 0


def page_destination(out: str | None) -> str:
    """Where the page goes: ``-o`` as given; without it standard output, unless that is a terminal (then exit 2)."""
    if out is not None:
        if out != "-":
            need_folder(Path(out).parent, out)  # before any work: a missing folder is refused, as demo refuses it
        return out
    if sys.stdout.isatty():
        raise CLIError("no page written: standard output is a terminal; give -o OUT.html (or -o - to print it anyway)")
    return "-"
