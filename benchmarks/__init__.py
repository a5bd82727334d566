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


def server_parser(doc: str, *, repeat: int) -> argparse.ArgumentParser:
    """A parser with the options the live-server benchmarks share: a running server, or which one to start."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--base-url", help="a running replay server (default: start one)")
    parser.add_argument("--repeat", type=int, default=repeat, help=f"passes over the inputs (default {repeat})")
    from harmony_viz.servers import engines

    parser.add_argument("--engine", choices=[e.name for e in engines.replaying()], default="vllm", help="the replay server to start (default vllm)")
    parser.add_argument("--chat-template", help="llama.cpp: the gpt-oss chat template (default: $HARMONY_VIZ_CHAT_TEMPLATE)")
    return parser


def on_server(args: argparse.Namespace, measure: object) -> object:
    """``measure(base_url)`` on ``--base-url``, else on a replay server started for it (stopped after)."""
    from harmony_viz.servers import lens

    if args.base_url:
        return measure(args.base_url)  # type: ignore[operator]
    with lens.start_replay_server(engine=args.engine, chat_template=args.chat_template) as server:
        return measure(server.url)  # type: ignore[operator]
