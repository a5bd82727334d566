"""``harmony-viz leaks``: does this text carry leaked Harmony markup?"""

from __future__ import annotations

import argparse

from harmony_viz.cli._common import command, read_input, write_json

EPILOG = """signals: H control token, M to=functions.x marker, C channel word before M, G glitch token,
S script mixing, B marker cascade, R fabricated code_output/Cell N:, T markup after the parsed
end of tool arguments. Text and thinking leak on H, or M with another signal; tool arguments
on H anywhere (JSON or not: data carries control spellings escaped), or on T. Code fences and
inline code are exempt.

examples:
  harmony-viz leaks reply.txt
  echo '{"a": 1} analysis to=functions.edit' | harmony-viz leaks - --surface tool_arg --strict
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    from harmony_viz.leak import SURFACES

    p = command(subparsers, "leaks", run, help="detect Harmony markup leaked into assistant text, thinking or tool arguments", description='Print {"leak": bool, "signals": [...]} for the text, signals as letters.', epilog=EPILOG)
    p.add_argument("file", metavar="FILE", help="input file, or - for standard input")
    p.add_argument("--surface", choices=SURFACES, default="assistant_text", help="where the text was found (default: assistant_text)")
    p.add_argument("--strict", action="store_true", help="exit with status 1 when a leak is found")


def run(args: argparse.Namespace) -> int:
    from harmony_viz.leak import detect_leak

    report = detect_leak(read_input(args.file), args.surface)
    write_json(report.to_json())
    return 1 if args.strict and report.leak else 0
