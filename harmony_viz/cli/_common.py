"""Helpers shared by the subcommands: reading input, writing output, user errors."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
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


def read_source(path: str, args: argparse.Namespace, *, form: str | None = None) -> Any:
    """``path`` (``-`` for standard input) read by the one reader, :func:`harmony_viz.inputs.read`.

    The command's flags about the input (``args``) are checked here, whenever they are given,
    so every command that reads a stream refuses the same way (exit 2, one line): ``--run N``
    must be a run the input holds (any input but a file of runs holds one), ``--tools`` a readable file.
    """
    from harmony_viz.inputs import read, read_text

    check_tools_flag(args)
    if path == "-":
        found = read_text(read_input("-"), "standard input", form=form)  # type: ignore[arg-type]
    else:
        found = read(Path(path), form=form)  # type: ignore[arg-type]
    run = getattr(args, "run", None)
    if isinstance(run, int) and not isinstance(run, bool):
        found.check_run(run)
    return found


def check_tools_flag(args: argparse.Namespace) -> None:
    """``--tools FILE``: the file must exist and be readable UTF-8 text, whatever else the command is asked for."""
    tools = getattr(args, "tools", None)
    if not isinstance(tools, str) or tools == "-":
        return
    p = Path(tools)
    if not p.exists():
        raise CLIError(f"--tools {tools}: no such file; expected an OpenAI tools array (JSON)")
    if p.is_dir():
        raise CLIError(f"--tools {tools}: is a folder; expected a JSON file holding an OpenAI tools array")
    try:
        p.read_bytes().decode("utf-8")
    except OSError as exc:
        raise CLIError(f"--tools {tools}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise CLIError(f"--tools {tools}: not UTF-8 text (byte {exc.start}); expected an OpenAI tools array (JSON)") from None


def int_in(low: int | None = None, high: int | None = None, *, what: str = "a whole number") -> Any:
    """An argparse ``type`` for a whole number from ``low`` to ``high`` (either open); its error names the range."""
    if low is not None and high is not None:
        span = f"from {low} to {high}"
    elif low is not None:
        span = f"of {low} or more"
    elif high is not None:
        span = f"of {high} or less"
    else:
        span = ""

    def parse(value: str) -> int:
        try:
            n = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what} {span}, got {value!r}".replace("  ", " ")) from None
        if (low is not None and n < low) or (high is not None and n > high):
            raise argparse.ArgumentTypeError(f"expected {what} {span}, got {n}")
        return n

    parse.__name__ = "whole number"
    return parse


def say_read(found: Any, stream: Any = None) -> None:
    """The form detected, in one line on stderr ("read req.json as a Chat Completions request"), and the run picked."""
    label = getattr(stream, "label", "")
    print(found.said + (f"; {label}" if label else ""), file=sys.stderr)


def read_input(path: str) -> str:
    """Text of ``path`` read by the one reader (:func:`harmony_viz.inputs.file_text`), or of standard input for ``-``."""
    from harmony_viz.inputs import file_text

    return sys.stdin.read() if path == "-" else file_text(Path(path), path)


def read_input_bytes(path: str) -> bytes:
    """The bytes of ``path`` (by :func:`harmony_viz.inputs.file_bytes`), or of standard input for ``-``, none changed (no newline translation)."""
    from harmony_viz.inputs import file_bytes

    if path == "-":
        raw = getattr(sys.stdin, "buffer", None)
        return raw.read() if raw is not None else sys.stdin.read().encode("utf-8", "surrogateescape")
    return file_bytes(Path(path), path)


def write_bytes(data: bytes) -> None:
    """Write exactly ``data`` to stdout, byte for byte."""
    sys.stdout.flush()
    raw = getattr(sys.stdout, "buffer", None)
    if raw is None:  # a text-only stdout (a test's StringIO): the bytes as surrogate-escaped text
        sys.stdout.write(data.decode("utf-8", "surrogateescape"))
    else:
        raw.write(data)
        raw.flush()


def write_text(text: str) -> None:
    """Write exactly ``text`` to stdout (no added newline)."""
    sys.stdout.write(text)
    sys.stdout.flush()


# Private folders of outputs being written; removed if the process is interrupted first.
PENDING: set[Path] = set()


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write; moved onto ``path`` when the block ends well, removed otherwise.

    The temporary file sits in a private hidden folder, so whatever a writer puts beside it
    (Parquet parts of several jobs) goes when it goes: an interrupted or failed command
    leaves no partial output behind.
    """
    out = Path(path)
    if out.is_dir():
        raise CLIError(f"{path}: is a folder; give a file name")
    need_folder(out.parent, path)
    try:
        folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    except OSError as exc:
        raise CLIError(f"{path}: cannot write ({exc.strerror})") from None
    PENDING.add(folder)
    try:
        yield folder / out.name
        os.replace(folder / out.name, out)
    except OSError as exc:
        raise CLIError(f"{path}: cannot write ({exc.strerror})") from None
    finally:
        PENDING.discard(folder)
        shutil.rmtree(folder, ignore_errors=True)


def need_folder(folder: Path, output: str | Path) -> None:
    """CLIError unless ``folder`` (where ``output`` goes) exists: a missing folder is most likely a typo, so no command creates one."""
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise CLIError(f"{output}: the folder {folder} {what}; create it first, or check the name")


# The process that installed the handler: forked workers inherit it, and only exit.
_OWNER = os.getpid()


def exit_on_interrupt(signum: int, frame: Any) -> None:
    """SIGINT handler: remove partial outputs and exit now (130), without unwinding a large heap."""
    if os.getpid() != _OWNER:  # a worker of stats --jobs: the parent cleans up and says so
        os._exit(130)
    for folder in list(PENDING):
        shutil.rmtree(folder, ignore_errors=True)
    if "multiprocessing" in sys.modules:  # workers of stats --jobs
        for child in sys.modules["multiprocessing"].active_children():
            child.terminate()
    try:
        sys.stderr.write("harmony-viz: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(130)


def write_page(output: str, page: str, example: str) -> Path | None:
    """Write an HTML page to the file ``output`` (whole or not at all), or to stdout for ``-`` (returns None then)."""
    if output == "-":
        write_text(page)
        return None
    out = Path(output)
    if out.is_dir():
        raise CLIError(f"{output}: is a folder; give a file name such as {out / example}")
    with atomic_path(out) as tmp:
        tmp.write_text(page, encoding="utf-8")
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
