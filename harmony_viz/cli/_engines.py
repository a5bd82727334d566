"""The engine options of the lens commands, read from the engine registry (``servers.engines``)."""

from __future__ import annotations

import argparse
from typing import Any


def engine_names(*, auto: bool = False, replaying: bool = False) -> list[str]:
    from harmony_viz.servers import engines

    chosen = engines.replaying() if replaying else engines.engines()
    return (["auto"] if auto else []) + [e.name for e in chosen]


def add_engine_options(parser: argparse.ArgumentParser, command: str) -> None:
    """Each engine's own options of ``command`` (its venv's Python, its binary…)."""
    from harmony_viz.servers import engines

    before = {a.dest for a in parser._actions}
    for e in engines.engines():
        e.add_arguments(parser, command)
    parser.set_defaults(engine_option_names=tuple(a.dest for a in parser._actions if a.dest not in before))


def add_engine_targets(parser: argparse.ArgumentParser) -> None:
    """``--vllm URL``, ``--llama-cpp URL``, ``--sglang``, ``--gpt-oss URL``…: one per engine (``matrix``, ``conformance``)."""
    from harmony_viz.servers import engines

    for e in engines.engines():
        if e.offline:
            parser.add_argument(e.flag, dest=e.dest, action="store_true", help=f"{e.label}, run offline (install: {e.install})")
        else:
            parser.add_argument(e.flag, dest=e.dest, metavar="URL", help=f"a {e.label} server, e.g. `harmony-viz replay-server --engine {e.name}`")


def engine_targets(args: argparse.Namespace) -> dict[str, Any]:
    """The engines named on the command line (dest → URL or True) and every engine option given."""
    from harmony_viz.servers import engines

    dests = {e.dest for e in engines.engines()}
    return {k: v for k, v in vars(args).items() if k in dests and v}


def engine_options(args: argparse.Namespace) -> dict[str, Any]:
    """The values of the options the engines added (``add_engine_options``), given or not."""
    return {k: getattr(args, k) for k in getattr(args, "engine_option_names", ())}


def target_flags() -> str:
    from harmony_viz.servers import engines

    return ", ".join(f"{e.flag}" + ("" if e.offline else " URL") for e in engines.engines())
