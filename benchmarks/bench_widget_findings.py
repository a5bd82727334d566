"""Findings benchmark of the replay: a 100k-token page carrying 5,000 findings, driven in headless chromium.

The stream is real gpt-oss transcripts back to back; its own findings (the scanner's and the
lints', about 900 at 100k tokens) are topped up to ``--findings`` with findings of the same
shapes spread over the stream (one to 40 tokens, now and then a whole message; every severity
and source), placed by the same code the page uses. Prints the payload the findings add per
token and per finding, the Python cost of finding them (the lints) and placing them, the
page's first paint, the step update p50/p95 (sequential and random jumps), opening the token
card on a chip with findings, and n (the next finding), against the targets of issue 28:
first paint < 1.5 s, step p95 < 16 ms, card < 16 ms.

    python -m benchmarks.bench_widget_findings                      # 100k tokens, 5,000 findings
    python -m benchmarks.bench_widget_findings --tokens 20000 --findings 1000
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_widget import ROOT, painted_page, pct, stream

CODES = (("html-escape", "warning", "lint"), ("unknown-argument", "info", "lint"), ("bad-channel", "error", "scanner"),
         ("text-dropped", "error", "server"), ("recipient-layout", "info", "prompt"), ("reasoning-in-content", "warning", "server"))


def findings_for(trace, target: int, seed: int = 0) -> tuple[list, int, float, float]:
    """``(placed, own, lint_s, place_s)``: the stream's own findings, topped up to ``target``, in the order they show."""
    from harmony_viz._replay import Lints
    from harmony_viz.findings import Finding, Span
    from harmony_viz.trace import merge, place, scanner_findings

    t0 = time.perf_counter()
    linted, _ = Lints().of(trace)
    lint_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    own = merge(scanner_findings(trace), place(trace, [(d, "lint", (d.start, d.end)) for d in linted]))
    place_s = time.perf_counter() - t0
    rng = random.Random(seed)
    n = int(trace.tokens.size)
    messages = [m for m in trace.headers if m.end is not None]
    extra = []
    for k in range(max(0, target - len(own))):
        code, severity, source = CODES[k % len(CODES)]
        if k % 50 == 0 and messages:
            m = rng.choice(messages)
            span = (m.start, m.end)
        else:
            a = rng.randrange(n)
            span = (a, min(n, a + rng.randint(1, 40)))
        extra.append((Finding(code, severity, f"{code} #{k % 97}", Span(*span)), source, span))
    return merge([p for p in own if p.source == "scanner"], [p for p in own if p.source != "scanner"] + place(trace, extra)), len(own), lint_s, place_s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--tokens", type=int, default=100_000)
    ap.add_argument("--findings", type=int, default=5_000)
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    ap.add_argument("--steps", type=int, default=600, help="step updates to time")
    ap.add_argument("--cards", type=int, default=200, help="card openings to time")
    args = ap.parse_args(argv)
    if args.tokens < 1 or args.findings < 0:
        ap.error("--tokens must be at least 1 and --findings at least 0")

    from harmony_viz._replay import ApiViews, page_html
    from harmony_viz.trace import Trace

    ids = stream(args.tokens, args.corpus)
    trace = Trace.build(ids, "token")
    placed, own, lint_s, place_s = findings_for(trace, args.findings)
    api_columns, api_meta = ApiViews(trace).page_data()
    bare_meta, bare = trace.to_payload(api_columns, findings=[])
    meta, columns = trace.to_payload(api_columns, findings=placed)
    meta["api"] = api_meta
    bare_size = len(bare) + len(json.dumps(bare_meta))
    size = len(columns) + len(json.dumps(meta)) - len(json.dumps(api_meta))
    grown_bin, grown_json = len(columns) - len(bare), size - bare_size - (len(columns) - len(bare))
    print(f"stream: {len(ids):,} tokens, {trace.n_steps:,} steps, {len(trace.headers):,} messages; findings {len(placed):,} "
          f"({own:,} its own: scanner and lints, the rest spread over it)")
    print(f"payload: {size / len(ids):.2f} bytes/token, of which findings {(size - bare_size) / len(ids):.2f} "
          f"({grown_bin / max(1, len(placed)):.1f} B/finding in columns, JSON {grown_json:,} bytes: {len(meta['findings']['messages']):,} distinct messages)")
    print(f"python: lints {lint_s:.2f} s, placing the stream's own findings {place_s:.3f} s")

    with tempfile.TemporaryDirectory() as tmp:
        page_path = Path(tmp) / "bench.html"
        page_path.write_text(page_html(trace, step=0, data=(meta, columns)), encoding="utf-8")
        print(f"page: {page_path.stat().st_size / 1e6:.1f} MB")
        with painted_page(page_path) as (page, marks):
            first = statistics.median(m["p"] for m in marks)
            timing = page.evaluate(
                """([start, n, cards]) => {
                    const v = window.harmonyViz.view, root = document.querySelector('[data-hv=root]');
                    const max = Number(document.querySelector('[data-hv=scrub]').max);
                    const seq = [], jump = [], card = [], next = [];
                    let marked = 0;
                    v.goTo(start);
                    for (let i = 1; i <= n; i++) {
                        const t0 = performance.now(); v.goTo(start + i); void root.offsetHeight; seq.push(performance.now() - t0);
                        marked = Math.max(marked, document.querySelectorAll('[data-hv=token][data-codes]').length);
                    }
                    let x = 12345;
                    const rand = () => { x = (x * 1103515245 + 12345) % 2147483648; return x; };
                    for (let i = 0; i < n / 4; i++) {
                        const s = rand() % max;
                        const t0 = performance.now(); v.goTo(s); void root.offsetHeight; jump.push(performance.now() - t0);
                    }
                    // the card: hover a chip with findings (the pointer's mouseover), until the card is laid out
                    for (let i = 0; i < cards; i++) {
                        v.goTo(rand() % max); void root.offsetHeight;
                        const chips = document.querySelectorAll('[data-hv=token][data-codes]');
                        if (!chips.length) continue;
                        const chip = chips[rand() % chips.length];
                        const t0 = performance.now();
                        chip.dispatchEvent(new MouseEvent('mouseover', {bubbles: true, clientX: 200, clientY: 200}));
                        void document.querySelector('[data-hv=token-card]').offsetHeight; card.push(performance.now() - t0);
                    }
                    document.querySelector('[data-hv=tokens]').dispatchEvent(new MouseEvent('mouseleave'));
                    v.goTo(0); root.focus();
                    for (let i = 0; i < n / 4; i++) {
                        const t0 = performance.now();
                        root.dispatchEvent(new KeyboardEvent('keydown', {key: 'n', bubbles: true})); void root.offsetHeight;
                        next.push(performance.now() - t0);
                    }
                    return {seq, jump, card, next, marked};
                }""",
                [trace.n_steps // 2, args.steps, args.cards],
            )
    seq, jump, card, nxt = timing["seq"], timing["jump"], timing["card"], timing["next"]
    print(f"browser: first paint with tokens {first:.0f} ms after navigation start (median of 3); up to {timing['marked']} marked chips drawn")
    print(f"step update (next, {len(seq)} steps from the middle): p50 {pct(seq, 50):.2f} ms, p95 {pct(seq, 95):.2f} ms, max {max(seq):.2f} ms")
    print(f"step update (random jumps, {len(jump)}): p50 {pct(jump, 50):.2f} ms, p95 {pct(jump, 95):.2f} ms, max {max(jump):.2f} ms")
    if card:
        print(f"token card (hover a chip with findings, {len(card)}): p50 {pct(card, 50):.2f} ms, p95 {pct(card, 95):.2f} ms, max {max(card):.2f} ms")
    print(f"n, the next finding ({len(nxt)}): p50 {pct(nxt, 50):.2f} ms, p95 {pct(nxt, 95):.2f} ms, max {max(nxt):.2f} ms")
    ok = first < 1500 and pct(seq, 95) < 16 and (not card or pct(card, 95) < 16)
    print("targets (first paint < 1500 ms, step p95 < 16 ms, card p95 < 16 ms):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
