"""``harmony-viz parse``: scan a Harmony stream (text or token ids) and print what it holds."""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from typing import Any

from harmony_viz.cli._common import CLIError, add_role, command, read_input, write_json

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
    p = command(subparsers, "parse", run, allow_abbrev=False, help="scan a Harmony stream into messages, events and diagnostics", description="Scan a Harmony stream. Input: a JSON array of token ids, or Harmony text with control tokens spelled <|...|>.", epilog=_EXAMPLES)
    p.add_argument("file", metavar="FILE", help="input file, or - for standard input")
    add_role(p)
    p.add_argument("--output", choices=OUTPUTS, default="messages", help="messages (one JSON object, default), events (one JSON object a line), or an API projection")
    p.add_argument("--chunk-seed", type=int, default=None, metavar="N", help="feed the input in random-size chunks drawn from seed N (messages and diagnostics must not change)")
    p.add_argument("--legacy-vllm", action="store_true", help="projections only: reproduce vLLM's older shape (preambles hidden as reasoning)")
    p.add_argument("--tools", metavar="TOOLS.json", help="projections only: the request's tools (the JSON `lint --tools` reads); a bare or dotted recipient that names one is a function_call, not an mcp_call")
    p.add_argument("--reasoning-field", choices=("reasoning_content", "reasoning", "both"), default="reasoning_content", help="chat projections: the reasoning field's name (vLLM 0.32 sends `reasoning`; older vLLM, SGLang and llama.cpp `reasoning_content`)")
    p.add_argument("--strict", action="store_true", help="exit 1 when any error diagnostic is found")


def parse_source(text: str, origin: str) -> str | list[int]:
    """A JSON array of ints is token ids; anything else is Harmony text."""
    stripped = text.strip()
    if stripped.startswith("[") and stripped.endswith("]"):
        try:
            value = json.loads(stripped)
        except ValueError:
            return text
        if isinstance(value, list):
            from harmony_viz.tokens import check_ids

            try:
                return check_ids(value)
            except ValueError as exc:
                raise CLIError(f"{origin}: {exc}; give a JSON array of token ids, or Harmony text") from None
    return text


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
    from harmony_viz.scanner import Scanner, assemble, event_to_json

    origin = "standard input" if args.file == "-" else args.file
    source = parse_source(read_input(args.file), origin)
    scanner = Scanner(role=args.role)
    steps = [scanner.feed(chunk) for chunk in chunks(source, args.chunk_seed)]
    steps.append(scanner.flush())
    events = [ev for step in steps for ev in step]
    result = assemble(events)

    if args.output == "messages":
        write_json(result.to_json())
    elif args.output == "events":
        for ev in events:
            write_json(event_to_json(ev))
    else:
        from harmony_viz.cli._lint import load_tools
        from harmony_viz.projections import project_for_cli

        tools = load_tools(args.tools) if args.tools else None
        projected = project_for_cli(args.output, steps, legacy_vllm=args.legacy_vllm, tools=tools, reasoning_field=args.reasoning_field)
        if args.output.endswith("-stream"):
            for item in projected:
                write_json(item)
        else:
            write_json(projected)
    if args.strict and any(d.severity == "error" for d in result.diagnostics):
        return 1
    return 0
