"""``harmony-viz lint``: the dialect's rules and the prompt checks, as JSON diagnostics."""

from __future__ import annotations

import argparse
import json
from typing import Any

from harmony_viz.cli._common import CLIError, add_role, command, read_input, read_source, say_read, write_json
from harmony_viz.cli._findings import finding_name, show_findings

EXAMPLES = """\
examples:
  harmony-viz lint transcript.txt                       # prompt + completion, Harmony text
  harmony-viz lint completion.txt --role assistant --tools tools.json
  harmony-viz lint conversation.json --strict           # exit 1 on any warning or error
  harmony-viz lint out.txt --select bad-,tools --ignore constrain-missing

Input: Harmony text, a JSON array of token ids, a run file or Markdown trial (--run N
picks the run), or conversation JSON (openai-harmony's shape or a Chat Completions
request; rendered first, tools taken from it). Output: one line {"diagnostics": [{code,
severity, message, start, end}, ...], "unit": "chars"|"tokens"}: spans count tokens for
token ids and characters for text. The scanner's diagnostics (what parse reports) are
listed beside the rules' findings, each once. Each finding is also printed on stderr as
PATH:LINE:COL: severity code message, with the line and a caret. A request or conversation
is linted as the prompt a server feeds the model (rendered for completion, as `render
--for-completion` writes it): spans count its tokens, and stderr says "PATH: in the rendered
prompt, line L, column C". A prompt ending in <|start|>assistant has no completion: its last
message is history (no stop-token). Exit 0, or 1 with --strict when a warning or error was
found, 2 on bad input.
"""


def add_parser(subparsers: Any) -> None:
    p = command(subparsers, "lint", run, help="check model output against the dialect's rules, and the prompt itself", description="Check a Harmony stream: calls to undeclared tools, arguments that miss the "
        "schema, reasoning on visible channels, and prompts that make gpt-oss fail; the scanner's own findings (what parse reports) come too.", epilog=EXAMPLES)
    p.add_argument("file", metavar="FILE|-", help="file to read, or - for standard input")
    add_role(p)
    p.add_argument("--tools", metavar="TOOLS.json", help="the declared tools: an OpenAI tools array (overrides the prompt's)")
    p.add_argument("--strict", action="store_true", help="exit 1 when anything at warning or above is found")
    p.add_argument("--select", type=_codes, default=(), metavar="CODE,…", help="report only these codes (a code or a prefix: bad- selects bad-channel, bad-role…)")
    p.add_argument("--ignore", type=_codes, default=(), metavar="CODE,…", help="leave these codes out (a code or a prefix), after --select")
    p.add_argument("--run", type=int, default=None, metavar="N", help="for run files holding several runs (JSONL, a Markdown trial): which one (0-based, default 0)")


def _codes(value: str) -> tuple[str, ...]:
    """A comma-separated list of codes or prefixes, each of which names at least one known code."""
    from harmony_viz._lint import CODES
    from harmony_viz.scanner import DIAGNOSTIC_CODES

    known = [*CODES, *DIAGNOSTIC_CODES]
    items = tuple(c.strip() for c in value.split(",") if c.strip())
    if not items:
        raise argparse.ArgumentTypeError("expected one or more codes or prefixes, comma-separated")
    for item in items:
        if not any(code.startswith(item) for code in known):
            raise argparse.ArgumentTypeError(f"{item!r} is no code and starts none (see `harmony-viz lint --help` and the docs' code tables)")
    return items


def load_tools(path: str) -> list[Any]:
    from harmony_viz._lint import ToolParseError, tools_from_json

    text = read_input(path).removeprefix("\ufeff")  # a byte-order mark is no part of the JSON
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CLIError(f"--tools {path}: not JSON ({exc.msg}, line {exc.lineno} column {exc.colno}); expected an OpenAI tools array") from None
    except RecursionError:  # json's decoder recurses once per level
        raise CLIError(f"--tools {path}: JSON nested too deep to read (more levels than Python's recursion limit); expected an OpenAI tools array") from None
    try:
        return tools_from_json(data)
    except ToolParseError as exc:
        raise CLIError(f"--tools {path}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from harmony_viz._lint import ToolParseError, lint, prompt_ids, select, tools_from_json
    from harmony_viz.inputs import InputError, Stream

    found = read_source(args.file, args)
    # Text is linted as text: no vocabulary (only token ids need it).
    stream = Stream((), text=found.value) if found.kind == "text" else found.stream(args.run)
    tools = load_tools(args.tools) if args.tools else None
    if tools is None and found.kind in ("chat", "conversation"):
        # A request's tools, or (exact JSON schemas) the conversation's system and developer tools.
        data = found.value if found.kind == "chat" else json.loads(found.value.to_json())
        try:
            tools = tools_from_json(data)
        except ToolParseError as exc:
            raise CLIError(f"{args.file}: {exc}") from None
    source = stream.source
    rendered = None
    if found.kind in ("chat", "conversation"):
        # A request is a prompt: linted as a server feeds it to the model, handing over at <|start|>assistant.
        try:
            source = prompt_ids(found)
        except InputError as exc:
            raise CLIError(str(exc)) from None
        rendered = "the rendered prompt"
    say_read(found, stream)  # once every input is known good: bad input stays one line
    # A request goes in as read (lint renders it as ``source`` is), so the findings can say what the request itself lacks.
    diagnostics = select(lint(found if rendered else source, role=args.role or stream.role, tools=tools), select=args.select, ignore=args.ignore)
    show_findings(diagnostics, finding_name(args.file), source, rendered=rendered)
    write_json({"diagnostics": [d.to_json() for d in diagnostics], "unit": "chars" if isinstance(source, str) else "tokens"})
    if args.strict and any(d.severity in ("error", "warning") for d in diagnostics):
        return 1
    return 0
