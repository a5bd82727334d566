"""Benchmark: the conformance suite's own work per case, as a ratio of the servers' response time.

The whole shipped suite goes through each engine named (a replay server started for it, or
one running), once. For every case the servers' time is the wall time of its requests (send
to last byte, as the client measures it; for a prompt case, the time the server took to show
its prompt) and our work is what the runner adds: projecting the tokens, reducing and
comparing the answers, rendering and comparing the prompt. Both are measured in the same run.
The figure is the median over the suite's cases of our work / the servers' time (limit 5 %),
with the run time of the whole suite per engine.

    python -m benchmarks.bench_conformance                                   # starts the reference server and llama.cpp
    python -m benchmarks.bench_conformance --engines gpt-oss                 # one engine
    python -m benchmarks.bench_conformance --url llama.cpp=http://127.0.0.1:8080/v1
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time
from pathlib import Path

LIMIT = 0.05
TEMPLATE = Path(__file__).resolve().parents[2] / "shared" / "templates" / "gpt-oss.jinja"


def per_case(outcomes: list) -> list[float]:  # noqa: ANN001
    """Our work / the servers' time for each case that reached a server."""
    ours: dict[str, float] = {}
    theirs: dict[str, float] = {}
    for o in outcomes:
        if o.status in ("error", "not-served"):
            continue
        ours[o.case.id] = ours.get(o.case.id, 0.0) + o.seconds
        theirs[o.case.id] = theirs.get(o.case.id, 0.0) + o.server_seconds
    return [ours[c] / theirs[c] for c in ours if theirs[c] > 0]


def main(argv: list[str] | None = None) -> int:
    from harmony_viz.conformance import Target, conformance_summary, load_suite, run_suite
    from harmony_viz.servers import lens

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default="gpt-oss,llama.cpp", help="replay servers to start (default gpt-oss,llama.cpp)")
    parser.add_argument("--url", action="append", default=[], metavar="ENGINE=URL", help="a running server instead of starting one")
    args = parser.parse_args(argv)
    urls = dict(u.split("=", 1) for u in args.url)
    cases = load_suite()
    ratios: list[float] = []
    failed = False
    print(f"suite: {len(cases)} cases ({sum(c.kind == 'answer' for c in cases)} answer, {sum(c.kind == 'prompt' for c in cases)} prompt)")
    print(f"{'engine':<10}{'results':>8}{'run s':>8}{'server s':>10}{'ours s':>8}{'median ours/server':>20}")
    for engine in [e for e in args.engines.split(",") if e] + [e for e in urls if e not in args.engines.split(",")]:
        with contextlib.ExitStack() as stack:
            url = urls.get(engine)
            if url is None:
                template = os.environ.get("HARMONY_VIZ_CHAT_TEMPLATE") or (str(TEMPLATE) if engine == "llama.cpp" else None)
                url = stack.enter_context(lens.start_replay_server(engine=engine, chat_template=template)).url
            t0 = time.perf_counter()
            outcomes = run_suite(cases, [Target(engine, url)])
            wall = time.perf_counter() - t0
        counts = conformance_summary(outcomes)
        if counts["errors"]:
            print(f"{engine}: {counts['errors']} results could not be asked: {next(o.reason for o in outcomes if o.status == 'error')}")
            failed = True
            continue
        mine = per_case(outcomes)
        ratios += mine
        server = sum(o.server_seconds for o in outcomes)
        ours = sum(o.seconds for o in outcomes)
        print(f"{engine:<10}{counts['total']:>8}{wall:>8.1f}{server:>10.2f}{ours:>8.2f}{statistics.median(mine):>19.1%}")
    if not ratios:
        return 1
    median = statistics.median(ratios)
    print(f"the suite's own work per case: {median:.1%} of the servers' response time (median over {len(ratios)} case-engine pairs; limit {LIMIT:.0%})")
    return 1 if failed or median > LIMIT else 0


if __name__ == "__main__":
    raise SystemExit(main())
