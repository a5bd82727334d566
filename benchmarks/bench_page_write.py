"""Writing the page of a whole context (issue 28 item 8): ``replay(text).save_html`` against tiktoken's ``encode``.

    python -m benchmarks.bench_page_write [--corpus ../shared/corpus] [--rounds 5] [--tokens 131072]

The text is distinct real transcripts back to back, each once (the aldehir tool-calling
trials' whole conversations, the ndurner walkthroughs, RAG samples and red-team runs, the
unsloth and rft notebooks' outputs), cut at ``--tokens`` (gpt-oss's context by default). It
is repeated only if the corpus holds fewer tokens, and the first line says so.

Every figure is measured against a reference of the same run (issue 35 item 6):

- warm: ``w = hv.replay(text); w.save_html(path); w.close()`` (reading the text, its trace,
  the lints, the payload and the page written) against ``encode(text)`` of the same text, in
  one process with the vocabulary loaded and a first small page written, CPU seconds, rounds
  interleaved, medians: limit 5x;
- cold: a user's first call, in a fresh Jupyter kernel (a real one, as a notebook starts it):
  ``import harmony_viz as hv`` and the same page, imports and first-use tables included,
  against ``encode`` of the same text in that kernel (median of five); the vocabulary is
  loaded before both (tiktoken's own cost, which its ``encode`` has paid too, shown apart),
  and the modules' bytecode is compiled beforehand, as an installed package's is.
  Median over up to three kernels: limit 10x;
- memory: the peak RSS (VmHWM) of a fresh process writing the page, above what it held once
  the vocabulary was loaded and a small page written (imports and lookup tables), per token
  of the page: limit 300 bytes. Median of up to three processes.

On this 2-core machine, shared (one run, 9 rounds): before (a7478f8) 0.425 s against
0.026 s, 16.4x, 299 B/token (the lints read and scanned the stream again, a full garbage
collection walked the vocabulary's tables, the page was one string); after 0.191 s against
0.026 s, 7.4x, 141 B/token.

Issue 35 (two runs each, alternated, 9 rounds, 3 kernels): before (1b70d39) warm 8.0x and
7.5x, cold 18.0x and 16.3x, 160 B/token; after the payload in parts (d187d88) warm 7.2x and
6.9x, cold 17.0x and 16.6x, 169 B/token. Where the warm page's time goes (about 0.23 s):
the text's encode 0.03, the trace (the scanner fed token by token) 0.10, the lints 0.035,
the API view's data 0.035, the payload 0.018, the page 0.004; a first call adds the imports
(numpy 0.085, ipywidgets and anywidget 0.07-0.1, the package 0.05), the scanner's lookup
tables (0.065) and the server modules read for a stream with no server record (0.04).

The replay's own parts (two runs each, alternated, 9 rounds, 3 kernels, the scanner as
committed at 0a770ed): before (0a770ed) warm 7.0x and 7.1x, cold 20.6x and 20.5x, 176 and
168 B/token; after (77b8a4c: the API views built once, one JSON a part, no token list for
the lints, the server modules and the static view not imported for a page) warm 6.7x and
6.6x, cold 18.3x and 16.4x, 159 and 157 B/token.

The scanner's tables and the replay's folds (three runs each, 9 rounds, 3 kernels): before
(be878e1) warm 7.1x, cold 16.1x, 161 B/token; after (2419b86) warm 5.03x, 4.99x and 5.06x,
cold 14.96x, 14.74x and 15.03x (12.8x to 15.7x over nine runs: the imports vary most), 209,
207 and 216 B/token. The vocabulary's fast-path tables are made for the
ids a stream holds, in one pass before it is fed (Scanner.meet), not for all 200k ids on first
use (0.065 s of a first call; the process's peak is 26 MB lower, but the tables now grow
during the page, above the warm start: the B/token figure rose); the trace reads the
scanner's state as a tuple, not a frozen Snapshot a step; runs of body text are fed at once
where the trace knows they end (Scanner.feed_run); the fold's Message records are made
through their slots (and read their visibility in one call); the API view's parts are worked
out once a message shape; the trace keeps its states as columns. Left: a first
call pays about 0.2 s of imports before any work (numpy 0.06-0.09, ipywidgets and anywidget
0.06-0.1, the package and json-repair 0.05), 6x encode by themselves; the warm page's 0.15 s
is the text's encode 0.030, the trace 0.047 (the scanner fed 10k header and stop tokens one by
one), the lints 0.029 (the whole scan's messages 0.014), the payload 0.020, the API view 0.016,
the collector's pass over what the page made 0.004.

The first call at e8c44c1 (three runs: warm 5.14x, 5.21x, 5.13x; cold 13.6x, 12.7x, 12.8x;
219 B/token), in a process that has imported IPython and ipykernel and loaded the vocabulary:
imports 0.23 s (numpy 0.11, of which about 0.055 is OpenBLAS's worker thread spinning idle after
numpy loads it, counted by the process's CPU time; ipywidgets and anywidget 0.065; the package
0.053 over 51 modules; json-repair and jsonschema-rs 0.013, both used by this text), then the
page 0.18 s (0.016 above a warm one). With OPENBLAS_NUM_THREADS=1 the same run reads cold 11.1x.
numpy off the page path does not pay: the stdlib's bulk steps at 131k tokens (the ids' range
check, their distinct ids and indices, a delta-coded column) take about 14 ms each here against
0.1 to 0.8 ms with numpy, and the page takes about ten such steps (the trace's columns, the
pieces of the whole scan, the payload's columns): a first call would gain little of the
import's 0.11 s, and every warm page would pay it.

That last conclusion was wrong, and the next session undid it (a2a7d51 -> this commit, three runs of 9
rounds, 3 kernels each): with numpy's import about 0.15 s of CPU (0.065 of its own, the rest its BLAS
threads spinning idle for a tenth of a second after it loads), no page that imports numpy can make a
first call of 10x. A page is now written with the standard library's arrays: runs of body deltas
are kept and written as runs (2.2k units, not 121k deltas: the payload's delta columns are a block
of the run's constant with each unit's first written over), a run's text is decoded once at build,
each token's index and its fast-path flag are read for all tokens in one C loop each (itemgetter),
the rare events are columns, and the step a span was fed by is worked out, not searched, for one
token a step; numpy is imported only when a caller asks for a numpy view (Trace.tokens,
step_ends, the delta columns) or for log-probs. With the lints, the API view and the message
records made faster alongside (records written to a writable twin that takes Message's class):
warm 5.14x, 5.21x -> 4.91x, 4.64x, 4.90x; cold 12.7x-15.0x -> 9.47x, 9.34x, 9.54x; 219 -> 170 B/token.
The margins are thin. The encode reference itself moves 0.028-0.036 s between runs; five more runs of
the final commit, while the machine ran slower (the vocabulary took 0.37-0.48 s to load, not 0.33),
read warm 4.88x-4.96x and cold 9.17x, 9.57x, 9.98x, 10.41x and 11.28x. A first call is now imports
(anywidget and ipywidgets 0.057 s, the package 0.032 s, and the lints' json-repair, jsonschema-rs
and tool-declaration reader 0.02 s), first use (the scanner's entries for 4.3k ids, 0.02 s) and the
page; what is left to take is the page itself, or the frozen dataclasses' 1 ms each at import.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

from benchmarks import checked_rounds, corpus_parser, find_corpus

ROOT = Path(__file__).resolve().parents[1]
CONTEXT = 131_072  # gpt-oss's context length, in tokens
RATIO_LIMIT = 5.0  # warm
COLD_LIMIT = 10.0  # a fresh kernel's first call
MEMORY_LIMIT = 300  # bytes a token
# A file every corpus has: find_corpus checks for it.
HOLDING = "aldehir_tool_calling/cities_3_cot_true_trial-1.md"

_MEMORY = """
import gc, resource, sys

def peak():
    # this process's own high-water mark: Linux keeps the parent's in ru_maxrss across fork and exec
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)

import harmony_viz as hv
from harmony_viz.tokens import encoding
encoding()
text = open(sys.argv[1], encoding="utf-8").read()
w = hv.replay("<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hello<|return|>")
w.save_html(sys.argv[2])
w.close()
gc.collect()
base = peak()
w = hv.replay(text)
w.save_html(sys.argv[2])
w.close()
print(base, peak())
"""


def transcripts(corpus: Path) -> list[list[int]]:
    """Every distinct real transcript of the corpus as token ids, in a fixed order (the same text is kept once)."""
    from harmony_viz.runs import load_file
    from harmony_viz.tokens import encoding

    enc = encoding()
    streams: list[list[int]] = []
    for path in sorted((corpus / "aldehir_tool_calling").glob("*.md")):
        run = load_file(path)[-1]  # a trial's last turn holds its whole conversation
        streams.append([*run.prompt_token_ids, *run.completion_token_ids])
    nd = corpus / "ndurner_gpt-oss-rt-run"
    texts: list[str] = []
    for stem in ("findings-tournament", "findings-rag"):
        path = nd / f"{stem}.json"
        if path.is_file():
            texts += json.loads(path.read_text(encoding="utf-8"))["harmony_response_walkthroughs"]
    for path in sorted(corpus.glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and "output_text" in line:
                texts.append(json.loads(line)["output_text"].rstrip())
    runs = nd / "finding_5_outputs.zip"  # 160 red-team runs (finding5_runs/ holds 12 of them)
    if runs.is_file():
        with zipfile.ZipFile(runs) as z:
            for name in sorted(z.namelist()):
                if name.endswith(".json"):
                    run = json.loads(z.read(name))
                    if isinstance(run, dict) and isinstance(run.get("output_text"), str):
                        texts.append(run["output_text"])
    else:
        texts += [json.loads(p.read_text(encoding="utf-8"))["output_text"] for p in sorted((nd / "finding5_runs").glob("*.json"))]
    seen: set[str] = set()
    for text in texts:
        if text not in seen:
            seen.add(text)
            streams.append(enc.encode(text, allowed_special="all"))
    return [s for s in streams if s]


def context_stream(corpus: Path, n_tokens: int) -> tuple[list[int], int, bool]:
    """``(ids, transcripts used, repeated)``: distinct transcripts back to back, each closed by a stop token, cut at ``n_tokens``."""
    from harmony_viz.tokens import CALL, END, RETURN

    pieces = transcripts(corpus)
    if not pieces:
        raise SystemExit(f"bench_page_write: no transcripts under {corpus}")
    out: list[int] = []
    used = 0
    while len(out) < n_tokens:
        ids = pieces[used % len(pieces)]
        out.extend(ids if ids[-1] in (END, RETURN, CALL) else [*ids, END])  # runs may end mid-message
        used += 1
    return out[:n_tokens], min(used, len(pieces)), used > len(pieces)


def _cpu(fn: Callable[[], object]) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def timing(text: str, rounds: int, page: Path) -> dict[str, float]:
    """Median CPU seconds of ``encode(text)`` and ``replay(text).save_html(page)``, rounds interleaved."""
    import harmony_viz as hv
    from harmony_viz.tokens import encoding

    enc = encoding()

    def page_of(text: str) -> None:
        w = hv.replay(text)
        w.save_html(page)
        w.close()  # as a notebook's user closes a widget done with: nothing kept from round to round

    page_of(text[:2000])  # imports and lookup tables before timing
    fns: dict[str, Callable[[], object]] = {
        "encode": lambda: enc.encode(text, allowed_special="all"),
        "save_html": lambda: page_of(text),
    }
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            times[k].append(_cpu(fn))
    return {k: statistics.median(v) for k, v in times.items()}


_COLD_SETUP = """
import json, sys, time
from harmony_viz.tokens import encoding
t = time.process_time()
enc = encoding()
vocabulary = time.process_time() - t
text = open({text!r}, encoding="utf-8").read()
"""
_COLD = """
t = time.process_time()
import harmony_viz as hv
w = hv.replay(text)
w.save_html({page!r})
w.close()
cold = time.process_time() - t
times = []
for _ in range(5):
    t = time.process_time()
    enc.encode(text, allowed_special="all")
    times.append(time.process_time() - t)
print(json.dumps({{"cold": cold, "encode": sorted(times)[2], "vocabulary": vocabulary, "prefix": sys.prefix}}))
"""


def cold_call(text_file: Path, page: Path, kernels: int) -> dict[str, float]:
    """A user's first page in a fresh Jupyter kernel, against ``encode`` in that kernel: medians over ``kernels`` kernels.

    The modules are compiled to bytecode first, by a process of their own (not timed).
    """
    try:
        from jupyter_client.manager import start_new_kernel
    except ImportError:
        raise SystemExit("bench_page_write: the first call is timed in a Jupyter kernel: pip install ipykernel jupyter_client") from None

    # As an installed package is: compiled once (pip writes the bytecode on install), read compiled
    # after; in a cache of the run's own, whatever PYTHONDONTWRITEBYTECODE says, the checkout untouched.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])), "PYTHONPYCACHEPREFIX": str(page.parent / "pycache")}
    small = "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hello<|return|>"
    primed = subprocess.run([sys.executable, "-c", f"import harmony_viz as hv; hv.replay({small!r}).save_html({str(page)!r})"],
                            capture_output=True, text=True, env=env, check=False)
    if primed.returncode != 0:
        raise SystemExit(f"bench_page_write: compiling the page's modules failed: {primed.stderr.strip()[-500:]}")
    runs: list[dict[str, float]] = []
    for _ in range(kernels):
        manager, client = start_new_kernel(env=env)
        try:
            out: list[str] = []

            def hook(msg: dict[str, object], out: list[str] = out) -> None:
                content = msg["content"]
                assert isinstance(content, dict)
                if msg["msg_type"] == "stream":
                    out.append(content["text"])
                elif msg["msg_type"] == "error":
                    raise SystemExit(f"bench_page_write: the cold run failed: {content['ename']}: {content['evalue']}")

            for code in (_COLD_SETUP.format(text=str(text_file)), _COLD.format(page=str(page))):
                client.execute_interactive(code, output_hook=hook, timeout=600)
            run = json.loads("".join(out).strip().splitlines()[-1])
            if run.pop("prefix") != sys.prefix:  # the python3 kernelspec found may be another Python's
                raise SystemExit(f"bench_page_write: the python3 kernel runs another Python than {sys.executable}; `{sys.executable} -m ipykernel install --user` makes it this one")
            runs.append(run)
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
    ratios = [r["cold"] / r["encode"] if r["encode"] > 0 else float("inf") for r in runs]
    return {f"cold_{k}": statistics.median(r[k] for r in runs) for k in ("cold", "encode", "vocabulary")} | {"cold_ratio": statistics.median(ratios)}


def peak_memory(text_file: Path, page: Path, rounds: int) -> tuple[int, int]:
    """``(base, peak)`` bytes of RSS of a fresh process writing the page (medians over ``rounds`` processes)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    bases, peaks = [], []
    for _ in range(rounds):
        done = subprocess.run([sys.executable, "-c", _MEMORY, str(text_file), str(page)], capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise SystemExit(f"bench_page_write: the memory run failed: {done.stderr.strip()[-500:]}")
        base, peak = map(int, done.stdout.split()[-2:])
        bases.append(base)
        peaks.append(peak)
    return int(statistics.median(bases)), int(statistics.median(peaks))


def bench(ids: list[int], rounds: int) -> dict[str, float]:
    """The figures for the page of ``ids``: seconds, the ratio, the page's size and its peak memory per token."""
    from harmony_viz.tokens import encoding

    text = encoding().decode(ids)
    with tempfile.TemporaryDirectory() as tmp:
        src, page = Path(tmp) / "context.txt", Path(tmp) / "page.html"
        src.write_text(text, encoding="utf-8")
        t = timing(text, rounds, page)
        size = page.stat().st_size
        base, peak = peak_memory(src, page, min(rounds, 3))
        cold = cold_call(src, page, min(rounds, 3))
    return {**t, **cold, "ratio": t["save_html"] / t["encode"] if t["encode"] > 0 else float("inf"), "bytes": size,
            "base": base, "peak": peak, "per_token": max(0, peak - base) / len(ids), "chars": len(text)}


def format_report(r: dict[str, float], n_tokens: int, used: int, repeated: bool, rounds: int) -> list[str]:
    again = "; the corpus ran out: repeated" if repeated else ", none repeated"
    ratio_ok = "within limit" if r["ratio"] <= RATIO_LIMIT else "OVER LIMIT"
    memory_ok = "within limit" if r["per_token"] <= MEMORY_LIMIT else "OVER LIMIT"
    cold_ok = "within limit" if r["cold_ratio"] <= COLD_LIMIT else "OVER LIMIT"
    kernels = min(rounds, 3)
    return [
        f"text: {n_tokens:,} tokens, {int(r['chars']):,} characters, of {used:,} distinct real transcripts back to back{again}",
        f"page ({r['bytes'] / 1e6:.1f} MB; one process, vocabulary loaded, a small page written, CPU seconds, median of {rounds} interleaved rounds): "
        f"encode {r['encode']:.3f} s, replay(text).save_html {r['save_html']:.3f} s",
        f"  save_html / encode {r['ratio']:.2f}x (limit {RATIO_LIMIT:.0f}x); {ratio_ok}",
        f"first call in a fresh Jupyter kernel (imports included; the vocabulary loaded before, {r['cold_vocabulary']:.3f} s, as encode has it; "
        f"median of {kernels}): replay(text).save_html {r['cold_cold']:.3f} s, encode {r['cold_encode']:.3f} s",
        f"  first save_html / encode {r['cold_ratio']:.2f}x (limit {COLD_LIMIT:.0f}x); {cold_ok}",
        f"  peak memory above the warm start (vocabulary loaded, a small page written): {max(0, r['peak'] - r['base']) / 1e6:.1f} MB = "
        f"{r['per_token']:.0f} B/token (VmHWM of a fresh process, median of {kernels}; limit {MEMORY_LIMIT}); {memory_ok}",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = corpus_parser("bench_page_write", __doc__ or "", rounds=5)
    parser.add_argument("--tokens", type=int, default=CONTEXT, metavar="N", help=f"length of the page's stream (default {CONTEXT:,}, gpt-oss's context)")
    args = parser.parse_args(argv)
    checked_rounds(parser, args.rounds)
    if args.tokens < 1:
        parser.error(f"--tokens {args.tokens}: give at least 1")
    corpus = find_corpus(args.corpus, HOLDING, "bench_page_write")
    ids, used, repeated = context_stream(corpus, args.tokens)
    for line in format_report(bench(ids, args.rounds), len(ids), used, repeated, args.rounds):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
