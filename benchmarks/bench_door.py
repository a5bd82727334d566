"""Quick at the door (issue 22): start-up costs of the commands and verbs, and a page of a whole context.

    python -m benchmarks.bench_door [--corpus ../shared/corpus] [--rounds 3] [--tokens 131072]
    python -m benchmarks.bench_door --text [--rounds 5]     # only: parse and lint of text vs escape

Every figure is a ratio (or a difference) against a reference measured in the same run,
rounds interleaved and summarised by the median, so a busy machine slows both sides alike:

- ``lint`` on a small file whose calls it validates, against ``parse`` on it, and ``parse``
  against loading the vocabulary (each a fresh ``python -m harmony_viz`` process);
- the first ``playground()`` against the first ``replay()`` of the same text (fresh processes);
- a page of a stream as long as gpt-oss's context (``replay(text).save_html``, and the ``html``
  command) against ``harmony_viz.scanner.scan(text)``, and ``scan`` against tiktoken's
  ``encode``, in one process with the vocabulary loaded; the page's peak memory above that
  (tracemalloc: Python allocations, measured in a run of its own) per token.

``--text`` (issue 25 item 7c): ``parse`` and ``lint`` of the trial as Harmony text, against
``escape`` of the same file (fresh processes, median of ``--rounds``, default 5 here): a
command that reads text builds no vocabulary unless token ids are asked for, so each stays
within 2x of ``escape``. Modules are compiled once into a temporary pycache, as an installed
package has them. Before (5adff35): escape 0.06 s, parse 0.38 s, lint 0.40 s (5.9x, 6.1x: the
text's encoding and the scanner's tables loaded o200k for nothing); after: 0.08 s and 0.09 s
(1.2x, 1.5x).
"""

from __future__ import annotations

import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path

from benchmarks import checked_rounds, corpus_parser, find_corpus

ROOT = Path(__file__).resolve().parents[1]
CONTEXT = 131_072  # gpt-oss's context length, in tokens
# A small Markdown trial whose three get_weather calls lint validates against the declared tool.
TRIAL = "aldehir_tool_calling/cities_3_cot_true_trial-1.md"

_VOCAB = "from harmony_viz.tokens import encoding; encoding()"
_FIRST_CALL = """
import sys, time
import harmony_viz as hv
from harmony_viz.tokens import encoding
encoding()
text = open(sys.argv[2], encoding="utf-8").read()
t = time.perf_counter()
{"replay": lambda: hv.replay(text), "playground": lambda: hv.playground(text)}[sys.argv[1]]()
print(time.perf_counter() - t)
"""


def _env() -> dict[str, str]:
    # the subprocesses import this checkout, whatever the current folder
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


def _wall(argv: list[str], env: dict[str, str] | None = None) -> float:
    t = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env or _env(), check=False)
    seconds = time.perf_counter() - t
    if done.returncode not in (0, 1):  # lint exits 1 on findings with --strict only; anything else is a failure
        raise SystemExit(f"bench_door: {' '.join(argv[2:])} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return seconds


def _inner(argv: list[str]) -> float:
    done = subprocess.run(argv, capture_output=True, text=True, env=_env(), check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench_door: {' '.join(argv[2:])} failed: {done.stderr.strip()[-500:]}")
    return float(done.stdout.strip().splitlines()[-1])


def _median_rounds(fns: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            times[k].append(fn())
    return {k: statistics.median(v) for k, v in times.items()}


def startup(trial: Path, rounds: int, out: Callable[[str], None] = print) -> dict[str, float]:
    """Wall-clock seconds of the vocabulary alone, ``parse`` and ``lint`` on the trial, each a fresh process."""
    py = sys.executable
    t = _median_rounds({
        "vocabulary": lambda: _wall([py, "-c", _VOCAB]),
        "parse": lambda: _wall([py, "-m", "harmony_viz", "parse", str(trial)]),
        "lint": lambda: _wall([py, "-m", "harmony_viz", "lint", str(trial)]),
    }, rounds)
    out(f"start-up ({trial.name}, fresh processes, median of {rounds}): vocabulary {t['vocabulary']:.2f} s, parse {t['parse']:.2f} s, lint {t['lint']:.2f} s")
    out(f"  lint - parse: {t['lint'] - t['parse']:+.2f} s (limit +0.30 s); parse - vocabulary: {t['parse'] - t['vocabulary']:+.2f} s (limit +0.70 s)")
    return t


def text_door(text_file: Path, rounds: int, out: Callable[[str], None] = print) -> dict[str, float]:
    """Wall-clock seconds of ``escape``, ``parse`` and ``lint`` of one Harmony text file, each a fresh process."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as pyc:
        # Compiled modules kept (outside the tree), as an installed package has them: with
        # PYTHONDONTWRITEBYTECODE every process compiles each module it imports, and lint imports more.
        env = {**_env(), "PYTHONPYCACHEPREFIX": pyc}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for c in ("escape", "parse", "lint"):
            _wall([py, "-m", "harmony_viz", c, str(text_file)], env)
        t = _median_rounds({c: (lambda c=c: _wall([py, "-m", "harmony_viz", c, str(text_file)], env)) for c in ("escape", "parse", "lint")}, rounds)
    out(f"text door ({text_file.stat().st_size:,} bytes of Harmony text, fresh processes, median of {rounds}): "
        f"escape {t['escape']:.2f} s, parse {t['parse']:.2f} s, lint {t['lint']:.2f} s")
    out(f"  parse / escape {t['parse'] / t['escape']:.2f}x, lint / escape {t['lint'] / t['escape']:.2f}x (limit 2.00x: no vocabulary for text)")
    return t


def first_calls(text_file: Path, rounds: int, out: Callable[[str], None] = print) -> dict[str, float]:
    """Seconds of the first ``replay(text)`` and the first ``playground(text)`` in a fresh process (vocabulary loaded before)."""
    py = sys.executable
    t = _median_rounds({k: (lambda k=k: _inner([py, "-c", _FIRST_CALL, k, str(text_file)])) for k in ("replay", "playground")}, rounds)
    out(f"first call (fresh processes, median of {rounds}): replay {t['replay']:.2f} s, playground {t['playground']:.2f} s; "
        f"playground / replay {t['playground'] / t['replay']:.2f}x (limit 1.00x)")
    return t


def context_stream(corpus: Path, n_tokens: int) -> list[int]:
    """``n_tokens`` of real gpt-oss transcripts back to back: tool-calling conversations and long red-team runs."""
    from harmony_viz.runs import load_file
    from harmony_viz.tokens import CALL, END, RETURN

    files = sorted((corpus / "aldehir_tool_calling").glob("*.md")) + sorted((corpus / "ndurner_gpt-oss-rt-run" / "finding5_runs").glob("*.json"))
    pieces = []
    for path in files:
        run = load_file(path)[-1]  # a trial's last turn holds its whole conversation
        ids = [*run.prompt_token_ids, *run.completion_token_ids]
        pieces.append(ids if ids and ids[-1] in (END, RETURN, CALL) else [*ids, END])
    if not pieces:
        raise SystemExit(f"bench_door: no transcripts under {corpus}")
    out: list[int] = []
    i = 0
    while len(out) < n_tokens:
        out.extend(pieces[i % len(pieces)])
        i += 1
    return out[:n_tokens]


def page(text: str, n_tokens: int, rounds: int, out: Callable[[str], None] = print) -> dict[str, float]:
    """A page of ``text`` (``replay(text).save_html`` and ``html``) against ``scan(text)``, and ``scan`` against ``encode``."""
    import harmony_viz as hv
    from harmony_viz.cli import main as cli
    from harmony_viz.scanner import scan
    from harmony_viz.tokens import encoding

    enc = encoding()
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "stream.txt", Path(tmp) / "page.html"
        src.write_text(text, encoding="utf-8")

        def timed(fn: Callable[[], object]) -> Callable[[], float]:
            # CPU seconds of this process: other work on a shared machine slows it less than the wall clock
            def run() -> float:
                t = time.process_time()
                fn()
                return time.process_time() - t
            return run

        def html_command() -> None:
            with contextlib.redirect_stderr(io.StringIO()) as err:  # its "wrote …" line is not a figure
                if cli(["html", str(src), "-o", str(dst)]) != 0:
                    raise SystemExit(f"bench_door: harmony-viz html failed: {err.getvalue().strip()}")

        hv.replay(text[:2000]).save_html(dst)  # imports and lookup tables before timing
        t = _median_rounds({
            "encode": timed(lambda: enc.encode(text, allowed_special="all")),
            "scan": timed(lambda: scan(text)),
            "save_html": timed(lambda: hv.replay(text).save_html(dst)),
            "html": timed(html_command),
        }, rounds)
        size = dst.stat().st_size
        tracemalloc.start()
        hv.replay(text).save_html(dst)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    out(f"page of {n_tokens:,} tokens ({size / 1e6:.1f} MB; one process, vocabulary loaded, CPU seconds, median of {rounds}): "
        f"encode {t['encode']:.3f} s, scan {t['scan']:.3f} s, replay(text).save_html {t['save_html']:.2f} s, html {t['html']:.2f} s")
    out(f"  scan / encode {t['scan'] / t['encode']:.1f}x (limit 3x); save_html / scan {t['save_html'] / t['scan']:.1f}x, "
        f"html / scan {t['html'] / t['scan']:.1f}x (limit 10x, aim 5x)")
    out(f"  peak memory of replay(text).save_html above the loaded vocabulary: {peak / 1e6:.0f} MB = {peak / n_tokens:.0f} B/token "
        "(tracemalloc, Python allocations; limit 300)")
    return {**t, "peak": peak}


def main(argv: Sequence[str] | None = None) -> int:
    parser = corpus_parser("bench_door", __doc__ or "", rounds=3)
    parser.add_argument("--tokens", type=int, default=CONTEXT, metavar="N", help=f"length of the page's stream (default {CONTEXT:,}, gpt-oss's context)")
    parser.add_argument("--text", action="store_true", help="only parse and lint of the trial as text against escape (rounds default 5)")
    args = parser.parse_args(argv)
    if args.text and "--rounds" not in (argv if argv is not None else sys.argv[1:]):
        args.rounds = 5
    checked_rounds(parser, args.rounds)
    if args.tokens < 1:
        parser.error(f"--tokens {args.tokens}: give at least 1")
    corpus = find_corpus(args.corpus, TRIAL, "bench_door")
    from harmony_viz.tokens import encoding

    if args.text:
        with tempfile.TemporaryDirectory() as tmp:
            trial_text = Path(tmp) / "trial.txt"
            trial_text.write_text(encoding().decode(_trial_ids(corpus)), encoding="utf-8")
            text_door(trial_text, args.rounds)
        return 0
    startup(corpus / TRIAL, args.rounds)
    ids = context_stream(corpus, args.tokens)
    text = encoding().decode(ids)
    with tempfile.TemporaryDirectory() as tmp:
        trial_text = Path(tmp) / "trial.txt"
        trial_text.write_text(encoding().decode(_trial_ids(corpus)), encoding="utf-8")
        first_calls(trial_text, args.rounds)
    page(text, len(ids), args.rounds)
    return 0


def _trial_ids(corpus: Path) -> list[int]:
    from harmony_viz.runs import load_file

    run = load_file(corpus / TRIAL)[-1]
    return [*run.prompt_token_ids, *run.completion_token_ids]


if __name__ == "__main__":
    sys.exit(main())
