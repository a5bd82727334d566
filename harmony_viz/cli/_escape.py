"""``harmony-viz escape``: make Harmony control spellings inert for transport, or undo it.

The file is read and written as bytes: every byte that is not part of a control spelling
comes out as it went in (CRLF, a lone CR, a BOM, NUL, bytes that are not UTF-8), so
``escape`` then ``escape --reverse`` gives the file back, from a path or standard input alike.
"""

from __future__ import annotations

import argparse

from harmony_viz.cli._common import CLIError, command, read_input_bytes, write_bytes

EPILOG = """examples:
  echo -n 'a<|end|>b' | harmony-viz escape -        # a<\\|end\\|>b
  harmony-viz escape --json args.json               # escape inside JSON strings only
  harmony-viz escape --reverse escaped.txt          # back to control spellings
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = command(subparsers, "escape", run, help="escape <|start|>, <|end|>… as <\\|start\\|> (or undo with --reverse)", description="Escape every spelling of an o200k_harmony special token (<|end|>, <|endoftext|>, <|reserved_200013|>…) "
        "so text reaches a gpt-oss model as data. Every other byte is kept, and --reverse gives the input back exactly. "
        "Prints the result with no added newline.", epilog=EPILOG)
    p.add_argument("file", metavar="FILE", help="input file, or - for standard input")
    p.add_argument("--json", action="store_true", help="the input is a JSON document: escape inside its strings, keep it valid")
    p.add_argument("--reverse", action="store_true", help="unescape instead")


def run(args: argparse.Namespace) -> int:
    from harmony_viz.leak import escape_bytes, escape_json, json_problem, unescape_bytes, unescape_json

    data = read_input_bytes(args.file)
    if args.json:
        bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""  # kept, and no part of the document
        try:
            text = data[len(bom) :].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CLIError(f"{args.file}: not UTF-8 text (byte {exc.start + len(bom)}), so not a JSON document; drop --json to escape its bytes as they are") from None
        problem = json_problem(text)
        if problem is not None:
            raise CLIError(f"{args.file}: not valid JSON: {problem}; drop --json to escape it as plain text")
        out = bom + (unescape_json(text) if args.reverse else escape_json(text)).encode("utf-8")
    else:
        out = unescape_bytes(data) if args.reverse else escape_bytes(data)
    write_bytes(out)
    return 0
