"""``harmony-viz parse``: scan a Harmony stream (text or token ids) and print what it holds."""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from typing import Any

from harmony_viz.cli._common import add_role, command, read_source, say_read, write_json
from harmony_viz.cli._findings import finding_name, show_findings

OUTPUTS = ("messages", "events", "chat", "chat-stream", "responses", "responses-stream")

_EXAMPLES = """\
examples:
  harmony-viz parse transcript.txt
  harmony-viz parse completion.txt --role assistant --output events
  echo '[200006, 173781, 200005, 17196, 200008, 12194, 200002]' | harmony-viz parse -
  harmony-viz parse tokens.json --chunk-seed 7      # same result, fed in random chunks
"""


def add_parser(subparsers: Any) -> None:
    # No abbreviations: `--out` must not reach --output, which names a format here, never a file.
    p = command(subparsers, "parse", run, allow_abbrev=False, help="scan a Harmony stream into messages, events and diagnostics", description="Scan a Harmony "
        "stream. Input: Harmony text with control tokens spelled <|...|>, a JSON array of token ids, a run file, a Markdown trial, a capture, or "
        "conversation JSON (rendered first). Diagnostics are also printed on stderr as PATH:LINE:COL: severity code message.", epilog=_EXAMPLES)
    p.add_argument("file", metavar="FILE", help="input file, or - for standard input")
    add_role(p)
    p.add_argument("--output", choices=OUTPUTS, default="messages", help="messages (one JSON object, default), events (one JSON object a line), or an API projection")
    p.add_argument("--chunk-seed", type=int, default=None, metavar="N", help="feed the input in random-size chunks drawn from seed N (messages and diagnostics must not change)")
    p.add_argument("--legacy-vllm", action="store_true", help="projections only: reproduce vLLM's older shape (preambles hidden as reasoning)")
    p.add_argument("--tools", metavar="TOOLS.json", help="projections only: the request's tools (the JSON `lint --tools` reads); a bare or dotted recipient that names one is a function_call, not an mcp_call")
    p.add_argument("--reasoning-field", choices=("reasoning_content", "reasoning", "both"), default="reasoning_content", help="chat projections: the reasoning field's name (vLLM 0.32 sends `reasoning`; older vLLM, SGLang and llama.cpp `reasoning_content`)")
    p.add_argument("--strict", action="store_true", help="exit 1 when any error diagnostic is found")
    p.add_argument("--run", type=int, default=None, metavar="N", help="for run files holding several runs (JSONL, a Markdown trial): which one (0-based, default 0)")


def chunks(source: str | Sequence[int], seed: int | None) -> list[str | Sequence[int]]:
    """The input whole, or split at random places (characters for text, runs for ids)."""
    if seed is None:
        return [source]
    rng = random.Random(seed)
    out: list[str | Sequence[int]] = []
    i = 0
    while i < len(source):
        n = rng.randint(1, 16)
        out.append(source[i : i + n])
        i += n
    return out


def run(args: argparse.Namespace) -> int:
    from harmony_viz.inputs import Stream
    from harmony_viz.scanner import Scanner, assemble, event_to_json

    found = read_source(args.file, args)
    projecting = args.output not in ("messages", "events")
    # Text is scanned as text: the vocabulary is loaded only when a projection counts tokens.
    stream = Stream((), text=found.value) if found.kind == "text" and not projecting else found.stream(args.run)
    tools = None
    if args.tools:  # checked whenever given, though only a projection uses it
        from harmony_viz.cli._lint import load_tools

        tools = load_tools(args.tools)
    if projecting and tools is None and stream.tools:
        tools = list(stream.tools)
    say_read(found, stream)  # once every input is known good: bad input stays one line
    # A projection counts tokens (its usage), so it scans the ids; messages and events keep the input's own units.
    source = list(stream.ids) if projecting else stream.source
    unit = "chars" if isinstance(source, str) else "tokens"
    scanner = Scanner(role=args.role or stream.role)
    steps = [scanner.feed(chunk) for chunk in chunks(source, args.chunk_seed)]
    steps.append(scanner.flush())
    events = [ev for step in steps for ev in step]
    result = assemble(events)
    # A conversation's findings point into its rendering, not the JSON file's lines.
    show_findings(result.diagnostics, finding_name(args.file), source, rendered="the rendered conversation" if found.kind in ("chat", "conversation") else None)

    if args.output == "messages":
        write_json({**result.to_json(), "unit": unit})
    elif args.output == "events":
        for ev in events:
            write_json({**event_to_json(ev), "unit": unit})
    else:
        from harmony_viz.projections import project_for_cli

        # --role assistant: the input is a bare completion, so none of it is prompt
        prompt_tokens = 0 if args.role and stream.prompt_tokens is None else stream.prompt_tokens
        projected = project_for_cli(args.output, steps, legacy_vllm=args.legacy_vllm, tools=tools, reasoning_field=args.reasoning_field,
                                    prompt_tokens=prompt_tokens)
        if args.output.endswith("-stream"):
            for item in projected:
                write_json(item)
        else:
            write_json(projected)
    if args.strict and any(d.severity == "error" for d in result.diagnostics):
        return 1
    return 0
