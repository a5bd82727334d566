"""The scanner benchmark: speed against openai-harmony, trace memory; ``--extra`` adds the renderer and projections.

    python -m benchmarks.bench_scanner --corpus ../shared/corpus [--rounds 5] [--trace-tokens N] [--extra]

Speeds are ratios against the reference measured in the same run, rounds interleaved (ours,
then the reference, then ours…) and summarised by the median, so a busy machine slows
both sides alike.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import tracemalloc
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks import checked_rounds, corpus_parser, find_corpus


@dataclass(frozen=True, slots=True)
class Figure:
    """One measured comparison: our throughput, the reference's, and the median ratio."""

    label: str
    ours: float
    reference: float
    ratios: tuple[float, ...]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)


@dataclass(frozen=True, slots=True)
class TraceFigure:
    """Memory of a trace holding every step of one stream fed a token at a time."""

    tokens: int
    bytes: int
    seconds: float


def corpus_streams(corpus: Path) -> list[list[int]]:
    """Token streams of the corpus transcripts that openai-harmony parses strictly."""
    import openai_harmony

    from harmony_viz.tokens import encoding

    texts: list[str] = []
    nd = corpus / "ndurner_gpt-oss-rt-run"
    for stem in ("findings-rag", "findings-tournament"):
        path = nd / f"{stem}.json"
        if path.is_file():
            texts += json.loads(path.read_text(encoding="utf-8"))["harmony_response_walkthroughs"]
    for path in sorted((nd / "finding5_runs").glob("*.json")):
        texts.append(json.loads(path.read_text(encoding="utf-8"))["output_text"])
    for path in sorted(corpus.glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and "output_text" in line:
                texts.append(json.loads(line)["output_text"].rstrip())
    enc = encoding()
    ref = openai_harmony.load_harmony_encoding(openai_harmony.HarmonyEncodingName.HARMONY_GPT_OSS)
    streams = []
    for text in texts:
        tokens = enc.encode(text, allowed_special="all")
        try:
            ref.parse_messages_from_completion_tokens(tokens, None, strict=True)
        except Exception:  # openai-harmony raises HarmonyError (a RuntimeError) on malformed streams
            continue
        streams.append(tokens)
    return streams


def _timed(fn: Callable[[], None]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def compare_speed(streams: Sequence[list[int]], rounds: int) -> list[Figure]:
    """Per-token and whole-stream throughput, ours against openai-harmony, interleaved."""
    import openai_harmony

    from harmony_viz.scanner import Scanner

    ref = openai_harmony.load_harmony_encoding(openai_harmony.HarmonyEncodingName.HARMONY_GPT_OSS)
    n = sum(len(s) for s in streams)

    def ours_per_token() -> None:
        for tokens in streams:
            scanner = Scanner()
            feed = scanner.feed
            for t in tokens:
                feed((t,))
            scanner.flush()

    def ref_per_token() -> None:
        for tokens in streams:
            process = openai_harmony.StreamableParser(ref, None).process
            for t in tokens:
                process(t)

    def ours_whole() -> None:
        for tokens in streams:
            scanner = Scanner()
            scanner.feed(tokens)
            scanner.flush()

    def ref_whole() -> None:
        for tokens in streams:
            ref.parse_messages_from_completion_tokens(tokens, None, strict=True)

    figures = []
    for label, ours, theirs in (
        ("per-token feed vs StreamableParser.process", ours_per_token, ref_per_token),
        ("whole-stream feed vs parse_messages_from_completion_tokens", ours_whole, ref_whole),
    ):
        ours()  # warm-up: lookup tables, caches
        mine, refs = [], []
        for _ in range(rounds):
            mine.append(_timed(ours))
            refs.append(_timed(theirs))
        figures.append(Figure(label, n / statistics.median(mine), n / statistics.median(refs), tuple(r / m for m, r in zip(mine, refs))))
    return figures


def trace_memory(streams: Sequence[list[int]], tokens: int) -> TraceFigure:
    """Bytes held by a trace of every step of a ``tokens``-long stream fed one token at a time.

    The trace keeps all events in one list, the event count after each step in an array,
    and the snapshot of every step.
    """
    from harmony_viz.scanner import Scanner

    pool = [t for s in streams for t in s]
    stream = (pool * (tokens // max(1, len(pool)) + 1))[:tokens]
    Scanner()  # lookup tables are built before measuring
    tracemalloc.start()
    t0 = time.perf_counter()
    scanner = Scanner()
    feed, snapshot = scanner.feed, scanner.snapshot
    events: list[object] = []
    offsets = array("q")
    snapshots = []
    for t in stream:
        events += feed((t,))
        offsets.append(len(events))
        snapshots.append(snapshot())
    events += scanner.flush()
    seconds = time.perf_counter() - t0
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del events, offsets, snapshots
    return TraceFigure(tokens, held, seconds)


def report(corpus: Path, *, rounds: int, trace_tokens: int, out: Callable[[str], None] = print) -> tuple[list[Figure], TraceFigure | None]:
    """Run the benchmark and print its figures; returns them too."""
    streams = corpus_streams(corpus)
    n = sum(len(s) for s in streams)
    out(f"corpus: {len(streams)} real token streams that openai-harmony parses strictly, {n:,} tokens ({corpus})")
    out(f"speed: {rounds} interleaved rounds, median")
    figures = compare_speed(streams, rounds)
    for f in figures:
        rounds_txt = " ".join(f"{r:.1f}" for r in f.ratios)
        out(f"  {f.label}: ours {f.ours / 1e6:.2f} M tok/s, reference {f.reference / 1e6:.2f} M tok/s, ratio {f.ratio:.1f}x (rounds: {rounds_txt})")
    trace = None
    if trace_tokens > 0:
        trace = trace_memory(streams, trace_tokens)
        out(f"trace of every step, {trace.tokens:,} tokens fed one at a time: {trace.bytes / 1e6:.0f} MB ({trace.bytes / trace.tokens:.0f} B/step: events, step offsets, snapshots), limit 300 MB; {trace.seconds:.1f} s under tracemalloc")
    return figures, trace


def extra(corpus: Path, rounds: int, out: Callable[[str], None] = print) -> None:
    """The renderer against openai-harmony, and the projections against the scan alone."""
    from benchmarks.bench_projections import bench_projections, format_report
    from benchmarks.bench_render import bench_render, format_render

    out(f"render: {rounds} interleaved rounds, median (ratio = our time / openai-harmony's)")
    out(format_render(bench_render(rounds=rounds)))
    longest = max(corpus_streams(corpus), key=len)
    out(f"projections on the longest stream ({len(longest):,} tokens, one token a step), against the scan alone:")
    out(format_report(bench_projections(longest, rounds=rounds), len(longest)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = corpus_parser("bench_scanner", __doc__ or "", rounds=5)
    parser.add_argument("--trace-tokens", type=int, default=1_000_000, metavar="N", help="length of the stream whose full trace is measured (0 skips it)")
    parser.add_argument("--extra", action="store_true", help="also time the renderer and the API projections")
    args = parser.parse_args(argv)
    checked_rounds(parser, args.rounds)
    if args.trace_tokens < 0:
        parser.error(f"--trace-tokens {args.trace_tokens}: give 0 (skip) or more")
    corpus = find_corpus(args.corpus, "ndurner_gpt-oss-rt-run", "bench_scanner")
    report(corpus, rounds=args.rounds, trace_tokens=args.trace_tokens)
    if args.extra:
        extra(corpus, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
