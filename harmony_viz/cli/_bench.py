"""``harmony-viz bench``: the scanner's speed against openai-harmony, and trace memory."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from harmony_viz.cli._common import CLIError


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "bench",
        help="measure the scanner against openai-harmony on real token streams",
        description="Time the scanner against openai-harmony on the corpus transcripts (interleaved rounds, median ratio) and measure the memory of a per-step trace.",
        epilog="example:\n  harmony-viz bench --corpus ../shared/corpus --rounds 5",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--corpus", default=None, metavar="DIR", help="folder of real transcripts (default: $HARMONY_VIZ_CORPUS, else ../shared/corpus)")
    p.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds (default 5)")
    p.add_argument("--trace-tokens", type=int, default=1_000_000, metavar="N", help="length of the stream whose full trace is measured (default 1,000,000; 0 skips it)")
    p.add_argument("--extra", action="store_true", help="also time the renderer against openai-harmony and the API projections against the scanner")
    p.set_defaults(func=run)


def _corpus(arg: str | None) -> Path:
    candidates = [arg] if arg else [os.environ.get("HARMONY_VIZ_CORPUS"), "../shared/corpus", str(Path(__file__).resolve().parents[3] / "shared" / "corpus")]
    for c in candidates:
        if c and (Path(c) / "ndurner_gpt-oss-rt-run").is_dir():
            return Path(c)
    where = arg or "$HARMONY_VIZ_CORPUS and ../shared/corpus"
    raise CLIError(f"no transcript corpus at {where}; pass --corpus DIR (the folder holding ndurner_gpt-oss-rt-run/)")


def run(args: argparse.Namespace) -> int:
    if args.rounds < 1:
        raise CLIError(f"--rounds {args.rounds}: give at least 1")
    if args.trace_tokens < 0:
        raise CLIError(f"--trace-tokens {args.trace_tokens}: give 0 (skip) or more")
    try:
        import openai_harmony  # noqa: F401
    except ImportError:
        raise CLIError("the benchmark compares against openai-harmony: install with `pip install openai-harmony==0.0.8`") from None
    from harmony_viz.scanner._bench import report

    corpus = _corpus(args.corpus)
    report(corpus, rounds=args.rounds, trace_tokens=args.trace_tokens)
    if args.extra:
        _extra(corpus, args.rounds)
    return 0


def _extra(corpus: Path, rounds: int) -> None:
    from harmony_viz.projections._bench import bench_projections, format_report
    from harmony_viz.render._bench import bench_render, format_render
    from harmony_viz.scanner._bench import corpus_streams

    print(f"render: {rounds} interleaved rounds, median (ratio = our time / openai-harmony's)")
    print(format_render(bench_render(rounds=rounds)))
    longest = max(corpus_streams(corpus), key=len)
    print(f"projections on the longest stream ({len(longest):,} tokens, one token a step), against the scan alone:")
    print(format_report(bench_projections(longest, rounds=rounds), len(longest)))
