"""Scale benchmark of the replay: a 100k-token stream, saved as a page, driven in headless chromium.

Prints the payload size per token, the Python cost of building the trace (as a ratio to
feeding the bare scanner, measured in the same run), the page's first paint, and the time
of a step update (script + style + layout, synchronous) as p50/p95/max, next to a trivial
DOM update measured the same way as the reference.

    python benchmarks/bench_widget.py                 # 100k tokens of real transcripts
    python benchmarks/bench_widget.py --tokens 20000 --chunking every:4
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def painted_page(path: Path, loads: int = 3) -> Iterator[tuple[Any, list[dict[str, float]]]]:
    """A chromium tab that loaded the page at ``path`` ``loads`` times, and each load's marks in ms from navigation start:
    ``p`` the first paint with tokens, ``r`` the widget built, ``dcl`` the HTML parsed."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 950})
        marks = []
        for _ in range(loads):
            page.goto(path.as_uri())
            page.wait_for_function("() => performance.getEntriesByName('hv-painted').length > 0", timeout=60_000)
            marks.append(page.evaluate("() => ({r: performance.getEntriesByName('hv-rendered')[0].startTime, p: performance.getEntriesByName('hv-painted')[0].startTime, dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventStart})"))
        try:
            yield page, marks
        finally:
            browser.close()


def stream(n_tokens: int, corpus: Path | None) -> list[int]:
    """``n_tokens`` of real gpt-oss transcripts back to back, or a synthetic stream without a corpus."""
    from benchmarks import tile
    from harmony_viz.tokens import encoding

    enc = encoding()
    texts: list[str] = []
    if corpus and (corpus / "ndurner_gpt-oss-rt-run" / "finding5_runs").is_dir():
        for p in sorted((corpus / "ndurner_gpt-oss-rt-run" / "finding5_runs").glob("*.json")):
            d = json.loads(p.read_text(encoding="utf-8"))
            texts.append(d["prefill_text"] + d["completion_text"])
    if not texts:
        words = "the model thinks about tool calls and channels before it answers in the final channel".split()
        body = " ".join(words[i % len(words)] for i in range(3000))
        texts = [f"<|start|>user<|message|>Question {i}?<|end|><|start|>assistant<|channel|>analysis<|message|>{body}<|end|>"
                 f"<|start|>assistant<|channel|>final<|message|>Answer {i}.<|return|>" for i in range(4)]
    return tile([enc.encode(t, allowed_special="all") for t in texts], n_tokens)


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=100_000)
    ap.add_argument("--chunking", default="token")
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    ap.add_argument("--steps", type=int, default=600, help="step updates to time")
    args = ap.parse_args()

    from harmony_viz._replay import page_html
    from harmony_viz.scanner import Scanner
    from harmony_viz.trace import Trace

    ids = stream(args.tokens, args.corpus)
    t0 = time.perf_counter()
    s = Scanner()
    for t in ids:
        s.feed([t])
    s.flush()
    bare = time.perf_counter() - t0
    t0 = time.perf_counter()
    trace = Trace.build(ids, args.chunking)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    meta, columns = trace.to_payload()
    encode = time.perf_counter() - t0
    payload = len(columns) + len(json.dumps(meta))
    print(f"stream: {len(ids):,} tokens, {trace.n_steps:,} steps ({args.chunking}), {len(trace.messages):,} messages")
    print(f"payload: {payload:,} bytes = {payload / len(ids):.2f} bytes/token (binary columns {len(columns) / len(ids):.2f}, JSON {(payload - len(columns)) / len(ids):.2f})")
    print(f"python: scanner alone, one token per feed {bare:.2f} s; Trace.build {build:.2f} s ({build / bare:.2f}x the bare scanner); payload encoding {encode:.2f} s")

    with tempfile.TemporaryDirectory() as tmp:
        page_path = Path(tmp) / "bench.html"
        t0 = time.perf_counter()
        page_path.write_text(page_html(trace, step=0), encoding="utf-8")
        print(f"page: {page_path.stat().st_size / 1e6:.1f} MB written in {time.perf_counter() - t0:.2f} s (includes the API view data)")
        with painted_page(page_path) as (page, paints):
            chips = page.locator("[data-hv=token]").count()
            first = statistics.median(m["p"] for m in paints)
            print(f"browser: first paint with tokens {first:.0f} ms after navigation start (median of 3; HTML parsed at "
                  f"{statistics.median(m['dcl'] for m in paints):.0f} ms, widget built at {statistics.median(m['r'] for m in paints):.0f} ms); "
                  f"{chips} token chips in the DOM of {len(ids):,}")
            mid = trace.n_steps // 2
            timing = page.evaluate(
                """([start, n]) => {
                    const v = window.harmonyViz.view, root = document.querySelector('[data-hv=root]');
                    const seq = [], jump = [], ref = [];
                    v.goTo(start);
                    for (let i = 1; i <= n; i++) {
                        const t0 = performance.now(); v.goTo(start + i); void root.offsetHeight; seq.push(performance.now() - t0);
                    }
                    let x = 12345;
                    const max = Number(document.querySelector('[data-hv=scrub]').max);
                    for (let i = 0; i < n / 4; i++) {
                        x = (x * 1103515245 + 12345) % 2147483648;
                        const t0 = performance.now(); v.goTo(x % max); void root.offsetHeight; jump.push(performance.now() - t0);
                    }
                    const probe = document.querySelector('[data-hv=step]');
                    for (let i = 0; i < n; i++) {
                        const t0 = performance.now(); probe.textContent = 'step ' + i; void root.offsetHeight; ref.push(performance.now() - t0);
                    }
                    return {seq, jump, ref};
                }""",
                [mid, args.steps],
            )
    seq, jump, ref = timing["seq"], timing["jump"], timing["ref"]
    print(f"step update (next, {len(seq)} steps from the middle): p50 {pct(seq, 50):.2f} ms, p95 {pct(seq, 95):.2f} ms, max {max(seq):.2f} ms")
    print(f"step update (random jumps, {len(jump)}): p50 {pct(jump, 50):.2f} ms, p95 {pct(jump, 95):.2f} ms, max {max(jump):.2f} ms")
    print(f"reference (one textContent change + layout): p50 {pct(ref, 50):.3f} ms, p95 {pct(ref, 95):.3f} ms; "
          f"next-step p95 is {pct(seq, 95) / max(pct(ref, 95), 1e-3):.0f}x the reference")
    ok = first < 1500 and pct(seq, 95) < 16 and payload / len(ids) <= 16
    print("targets (first paint < 1500 ms, step p95 < 16 ms, <= 16 bytes/token):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
