"""Benchmark: what projecting costs per step, as a ratio to scanning the same tokens.

The reference is the scanner itself, timed interleaved in the same run (median of
``rounds``), so the ratios hold on any machine. ``python -m benchmarks.bench_scanner --extra``
prints it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence


def bench_projections(tokens: Sequence[int], *, rounds: int = 5) -> dict[str, float]:
    """Median seconds for: scanning one token a step, + folding into a Projector (streams
    built), + the chat view after every step, + the Responses view after every step."""
    from harmony_viz.projections import Projector
    from harmony_viz.scanner import Scanner

    def scan() -> None:
        s = Scanner()
        for t in tokens:
            s.feed([t])
        s.flush()

    def project(view: str | None) -> Callable[[], None]:
        def run() -> None:
            s, p = Scanner(), Projector()
            for t in tokens:
                p.add(s.feed([t]))
                if view:
                    p.current(view)  # type: ignore[arg-type]
            p.add(s.flush())
            p.finish()
            if view is None:
                p.current("chat-stream")
                p.current("responses-stream")

        return run

    cases = {"scan": scan, "scan+project+streams": project(None), "scan+chat view per step": project("chat"), "scan+responses view per step": project("responses")}
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def format_report(result: dict[str, float], n_tokens: int) -> str:
    """One line per case: milliseconds, ratio to the scan alone, microseconds per token."""
    base = result["scan"]
    return "\n".join(
        f"{name:30s} {secs * 1000:9.1f} ms  {secs / base:6.2f}x scan  {secs / max(n_tokens, 1) * 1e6:7.1f} us/token" for name, secs in result.items()
    )
