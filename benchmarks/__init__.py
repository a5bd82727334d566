"""Benchmarks: each prints ratios against a reference measured in the same run (see the README)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def corpus_parser(prog: str, doc: str, *, rounds: int) -> argparse.ArgumentParser:
    """A parser with the ``--corpus`` and ``--rounds`` options the corpus benchmarks share."""
    parser = argparse.ArgumentParser(prog=f"python -m benchmarks.{prog}", description=doc.splitlines()[0])
    parser.add_argument("--corpus", default=None, metavar="DIR", help="folder of real transcripts (default: $HARMONY_VIZ_CORPUS, else ../shared/corpus)")
    parser.add_argument("--rounds", type=int, default=rounds, help=f"interleaved timing rounds (default {rounds})")
    return parser


def checked_rounds(parser: argparse.ArgumentParser, rounds: int) -> int:
    if rounds < 1:
        parser.error(f"--rounds {rounds}: give at least 1")
    return rounds


def find_corpus(arg: str | None, holding: str, prog: str) -> Path:
    """The corpus folder: ``--corpus``, else ``$HARMONY_VIZ_CORPUS``, else ``../shared/corpus``; it must hold ``holding``."""
    candidates = [arg] if arg else [os.environ.get("HARMONY_VIZ_CORPUS"), "../shared/corpus", str(Path(__file__).resolve().parents[2] / "shared" / "corpus")]
    for c in candidates:
        if c and (Path(c) / holding).exists():
            return Path(c)
    where = arg or "$HARMONY_VIZ_CORPUS and ../shared/corpus"
    raise SystemExit(f"{prog}: no transcript corpus at {where}; pass --corpus DIR (the folder holding {holding})")


def tile(pieces: list[list[int]], n_tokens: int) -> list[int]:
    """Token streams back to back, repeated until ``n_tokens``; each closed with <|end|> so the next starts cleanly."""
    from harmony_viz.tokens import END, RETURN

    out: list[int] = []
    i = 0
    while len(out) < n_tokens:
        p = pieces[i % len(pieces)]
        out.extend(p if p[-1] in (END, RETURN) else [*p, END])  # runs may end mid-message
        i += 1
    return out[:n_tokens]
