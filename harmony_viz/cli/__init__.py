"""The ``harmony-viz`` command line: one module per subcommand, wired here.

Each subcommand module defines ``add_parser(subparsers)`` (registering its parser and
setting ``func``) and a function ``run(args) -> int``. User errors raise ``CLIError`` (or
the reader's ``InputError``) and become one line on stderr with exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from harmony_viz.cli._common import CLIError
from harmony_viz.cli._demo import REPLAY_SAMPLE, demo_paths, replay_tokens
from harmony_viz.inputs import InputError
from harmony_viz.tokens import VocabularyError

__all__ = ["REPLAY_SAMPLE", "CLIError", "build_parser", "demo_paths", "main", "replay_tokens"]

# Order is the order shown in --help.
_SUBCOMMANDS = (
    "render",
    "parse",
    "escape",
    "leaks",
    "lint",
    "template_check",
    "prompt_check",
    "html",
    "stats",
    "demo",
    "record",
    "make_tiny_model",
    "replay_server",
    "server_check",
    "matrix",
    "conformance",
    "capture",
)


def build_parser() -> argparse.ArgumentParser:
    from harmony_viz import __version__

    parser = argparse.ArgumentParser(
        prog="harmony-viz",
        description="See inside OpenAI's Harmony format (gpt-oss token streams).",
    )
    parser.add_argument("--version", action="version", version=f"harmony-viz {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _SUBCOMMANDS:
        importlib.import_module(f"harmony_viz.cli._{name}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    previous = _quick_exit(args.command)
    try:
        return int(args.func(args) or 0)
    except (CLIError, InputError, VocabularyError) as exc:
        print(f"harmony-viz {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # a file that cannot be read or written, a full disk: one line, not a traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"harmony-viz {args.command}: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


# Commands that may run long and write files: Ctrl-C exits at once and leaves no partial output.
_QUICK_EXIT = frozenset({"stats", "html"})


def _quick_exit(command: str) -> Any:
    """Install the SIGINT handler for ``command`` when it needs one; the previous handler, to restore."""
    if command not in _QUICK_EXIT or threading.current_thread() is not threading.main_thread():
        return None
    from harmony_viz.cli._common import exit_on_interrupt

    return signal.signal(signal.SIGINT, exit_on_interrupt)
