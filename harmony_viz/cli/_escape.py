"""``harmony-viz escape``: make Harmony control spellings inert for transport, or undo it."""

from __future__ import annotations

import argparse

from harmony_viz.cli._common import CLIError, command, read_input, write_text

EPILOG = """examples:
  echo -n 'a<|end|>b' | harmony-viz escape -        # a<\\|end\\|>b
  harmony-viz escape --json args.json               # escape inside JSON strings only
  harmony-viz escape --reverse escaped.txt          # back to control spellings
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = command(subparsers, "escape", run, help="escape <|start|>, <|end|>… as <\\|start\\|> (or undo with --reverse)", description="Escape the seven Harmony control spellings so text reaches a gpt-oss model as data. "
        "Prints the result with no added newline.", epilog=EPILOG)
    p.add_argument("file", metavar="FILE", help="input file, or - for standard input")
    p.add_argument("--json", action="store_true", help="the input is a JSON document: escape inside its strings, keep it valid")
    p.add_argument("--reverse", action="store_true", help="unescape instead")


def run(args: argparse.Namespace) -> int:
    from harmony_viz.leak import escape, escape_json, json_problem, unescape, unescape_json

    text = read_input(args.file)
    if args.json:
        problem = json_problem(text)
        if problem is not None:
            raise CLIError(f"{args.file}: not valid JSON: {problem}; drop --json to escape it as plain text")
        out = unescape_json(text) if args.reverse else escape_json(text)
    else:
        out = unescape(text) if args.reverse else escape(text)
    write_text(out)
    return 0
