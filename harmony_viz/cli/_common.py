"""Helpers shared by the subcommands: reading input, writing output, user errors."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def command(subparsers: Any, name: str, run: Any, *, help: str, description: str, epilog: str | None = None, allow_abbrev: bool = True) -> argparse.ArgumentParser:
    """Add subcommand ``name``: its help line, description and examples (kept as written), run by ``run(args)``."""
    p = subparsers.add_parser(name, help=help, description=description, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=allow_abbrev)
    p.set_defaults(func=run)
    return p


def add_out(p: argparse.ArgumentParser, *, metavar: str, help: str, required: bool = False, default: str | None = None, output_alias: bool = False) -> None:
    """``-o/--out FILE``, ``args.out``: how every command names its output file (``-o`` never means anything else).

    ``output_alias``: ``--output`` keeps working, hidden, where it named the file before (html, demo).
    """
    p.add_argument("-o", "--out", metavar=metavar, help=help, required=required, default=default)
    if output_alias:
        p.add_argument("--output", dest="out", metavar=metavar, help=argparse.SUPPRESS, default=argparse.SUPPRESS)


def add_role(p: argparse.ArgumentParser) -> None:
    """``--role assistant``: the input is a bare completion, the text after ``<|start|>assistant``."""
    p.add_argument("--role", choices=("assistant",), default=None, help="the input is a bare completion that follows a prompt ending in <|start|>assistant")


class CLIError(Exception):
    """A user error: printed as one line, exit status 2."""


def read_input(path: str) -> str:
    """Text of ``path``, or of standard input when ``path`` is ``-``."""
    if path == "-":
        return sys.stdin.read()
    p = Path(path)
    if not p.exists():
        raise CLIError(f"{path}: no such file")
    if p.is_dir():
        raise CLIError(f"{path}: is a folder, expected a file")
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CLIError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def write_text(text: str) -> None:
    """Write exactly ``text`` to stdout (no added newline)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def write_page(output: str, page: str, example: str) -> Path | None:
    """Write an HTML page to the file ``output``, or to stdout for ``-`` (returns None then)."""
    if output == "-":
        write_text(page)
        return None
    out = Path(output)
    if out.is_dir():
        raise CLIError(f"{output}: is a folder; give a file name such as {out / example}")
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise CLIError(f"{output}: cannot write ({exc.strerror})") from None
    return out


def write_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False))
    sys.stdout.write("\n")
    sys.stdout.flush()


def difference_lines(d: Any) -> list[str]:
    """A render difference (template or prompt lens) as text: code and message, then each side's quote."""
    label = f"{d.side}:"
    lines = [f"  {d.code} ({d.severity}): {d.message}"]
    if d.ours:
        lines.append(f"    {'ours:':<10}{json.dumps(d.ours[:200], ensure_ascii=False)}")
    if d.theirs:
        lines.append(f"    {label:<10}{json.dumps(d.theirs[:200], ensure_ascii=False)}")
    return lines
