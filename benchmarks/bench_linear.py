"""Costs linear in the input (issue 25): ``parse``, ``lint``, ``stats`` and ``html`` on one transcript made long.

    python -m benchmarks.bench_linear [--corpus ../shared/corpus] [--rounds 3] [--sizes 1,2,4,8] [--versus 5]

The input is one real transcript, the whole conversation of a Markdown trial's last turn
as the harness wrote it (blank lines between messages, so every message carries a
diagnostic), repeated whole until the file is SIZE MB. Each command runs in this process
through the CLI's ``main`` (vocabulary loaded, output to files in a temporary folder) and is
timed in CPU seconds against tiktoken's ``encode`` of the same text in the same run, rounds
interleaved, medians kept: a busy machine slows both sides alike. Every figure is a ratio:

- command / encode at each size; the growth of that ratio from the smallest size to the
  largest (limit 1.5: a cost that grows with the input's square doubles it at each step);
- ``stats`` against ``parse`` of the same ``--versus`` MB file (limit 2x: stats scans once and
  counts, so it costs about what parse does).
"""

from __future__ import annotations

import contextlib
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks import checked_rounds, corpus_parser, find_corpus

# A trial of fifteen get_weather calls: its last turn holds the whole conversation.
TRIAL = "aldehir_tool_calling/cities_15_cot_true_trial-0.md"
COMMANDS = ("parse", "lint", "stats", "html")
GROWTH_LIMIT = 1.5
VERSUS_LIMIT = 2.0
MB = 1_000_000


def transcript(corpus: Path) -> str:
    """The last turn's fenced block of :data:`TRIAL`, verbatim, with the blank line that parts turns."""
    text = (corpus / TRIAL).read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"^```[^\n]*\n(.*?)\n```", text, re.MULTILINE | re.DOTALL) if b.startswith("<|start|>")]
    if not blocks:
        raise SystemExit(f"bench_linear: no Harmony block in {corpus / TRIAL}")
    return max(blocks, key=len) + "\n\n"


def long_text(piece: str, mb: float) -> str:
    """``piece`` repeated whole (at least once) to about ``mb`` MB of UTF-8."""
    size = len(piece.encode("utf-8"))
    return piece * max(1, round(mb * MB / size))


def _cpu(fn: Callable[[], object]) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def _command(argv: list[str], out: Path) -> Callable[[], None]:
    """The CLI's ``main(argv)`` with stdout and stderr written to files under ``out`` (what it prints is not a figure)."""
    from harmony_viz.cli import main as cli

    def run() -> None:
        with (out / "stdout").open("w", encoding="utf-8") as o, (out / "stderr").open("w", encoding="utf-8") as e:
            with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
                code = cli(argv)
        if code not in (0, 1):  # lint and parse exit 1 on errors only with --strict; anything else failed
            raise SystemExit(f"bench_linear: harmony-viz {' '.join(argv)} failed ({code}): {(out / 'stderr').read_text()[-500:]}")
    return run


def _argv(name: str, src: Path, out: Path) -> list[str]:
    return ["html", str(src), "-o", str(out / "page.html")] if name == "html" else [name, str(src)]


def time_size(text: str, rounds: int, folder: Path, commands: Sequence[str] = COMMANDS) -> dict[str, float]:
    """Median CPU seconds of ``encode`` and of each command on ``text``, rounds interleaved."""
    from harmony_viz.tokens import encoding

    enc = encoding()
    src = folder / "transcript.txt"
    src.write_text(text, encoding="utf-8")
    fns: dict[str, Callable[[], object]] = {"encode": lambda: enc.encode(text, allowed_special="all")}
    fns.update({name: _command(_argv(name, src, folder), folder) for name in commands})
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            times[k].append(_cpu(fn))
    return {k: statistics.median(v) for k, v in times.items()}


def bench_linear(piece: str, sizes: Sequence[float], rounds: int, versus: float | None) -> dict[str, Any]:
    """The figures: per size, seconds and ratios to encode; per command, the growth; stats / parse at ``versus`` MB."""
    from harmony_viz.tokens import encoding

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        encoding()
        src = folder / "transcript.txt"
        src.write_text(piece, encoding="utf-8")
        for name in COMMANDS:  # imports and lookup tables before timing
            _command(_argv(name, src, folder), folder)()
        table = []
        for mb in sizes:
            text = long_text(piece, mb)
            t = time_size(text, rounds, folder)
            table.append({"mb": mb, "bytes": len(text.encode("utf-8")), "seconds": t,
                          "ratio": {c: t[c] / t["encode"] if t["encode"] > 0 else float("inf") for c in COMMANDS}})
        first, last = table[0]["ratio"], table[-1]["ratio"]
        growth = {c: last[c] / first[c] if first[c] > 0 else float("inf") for c in COMMANDS}
        out: dict[str, Any] = {"sizes": table, "growth": growth, "growth_ok": all(g <= GROWTH_LIMIT for g in growth.values())}
        if versus is not None:
            t = time_size(long_text(piece, versus), rounds, folder, ("parse", "stats"))
            ratio = t["stats"] / t["parse"] if t["parse"] > 0 else float("inf")
            out["versus"] = {"mb": versus, "parse": t["parse"], "stats": t["stats"], "ratio": ratio, "ok": ratio <= VERSUS_LIMIT}
    return out


def _mb(mb: float) -> str:
    return f"{mb:g} MB"


def format_report(result: dict[str, Any], piece_chars: int, rounds: int) -> list[str]:
    """The table (sizes × commands, seconds and ratio to encode), the growth line and the stats-vs-parse line."""
    lines = [f"input: {TRIAL.rsplit('/', 1)[-1]}, its last turn's conversation ({piece_chars:,} chars) repeated; "
             f"one process, vocabulary loaded, CPU seconds, median of {rounds}"]
    lines.append(f"{'size':>8}  {'encode':>8}" + "".join(f"  {c:>16}" for c in COMMANDS))
    for row in result["sizes"]:
        t, r = row["seconds"], row["ratio"]
        lines.append(f"{_mb(row['mb']):>8}  {t['encode']:>7.3f}s" + "".join(f"  {t[c]:>7.2f}s {r[c]:>6.1f}x" for c in COMMANDS))
    sizes = result["sizes"]
    verdict = "within limit" if result["growth_ok"] else "OVER LIMIT"
    lines.append(f"growth ({_mb(sizes[-1]['mb'])} ratio / {_mb(sizes[0]['mb'])} ratio, limit {GROWTH_LIMIT:.2f}): "
                 + ", ".join(f"{c} {result['growth'][c]:.2f}" for c in COMMANDS) + f"; {verdict}")
    v = result.get("versus")
    if v is not None:
        lines.append(f"stats vs parse at {_mb(v['mb'])}: stats {v['stats']:.2f} s, parse {v['parse']:.2f} s, "
                     f"stats / parse {v['ratio']:.2f}x (limit {VERSUS_LIMIT:.2f}x); {'within limit' if v['ok'] else 'OVER LIMIT'}")
    return lines


def _sizes(parser: Any, spec: str) -> list[float]:
    try:
        sizes = [float(s) for s in spec.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--sizes {spec}: give sizes in MB, comma-separated, e.g. 1,2,4,8")
    if len(sizes) < 2 or any(s <= 0 for s in sizes):
        parser.error(f"--sizes {spec}: give at least two sizes above 0")
    return sorted(sizes)


def main(argv: Sequence[str] | None = None) -> int:
    parser = corpus_parser("bench_linear", __doc__ or "", rounds=3)
    parser.add_argument("--sizes", default="1,2,4,8", metavar="MB,MB,...", help="input sizes in MB, smallest first (default 1,2,4,8)")
    parser.add_argument("--versus", type=float, default=5.0, metavar="MB", help="size of the stats-vs-parse input (default 5; 0 to skip)")
    args = parser.parse_args(argv)
    checked_rounds(parser, args.rounds)
    sizes = _sizes(parser, args.sizes)
    if args.versus < 0:
        parser.error(f"--versus {args.versus:g}: give a size in MB, or 0 to skip")
    corpus = find_corpus(args.corpus, TRIAL, "bench_linear")
    piece = transcript(corpus)
    result = bench_linear(piece, sizes, args.rounds, args.versus or None)
    for line in format_report(result, len(piece), args.rounds):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
