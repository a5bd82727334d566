"""Benchmark: server-check's own cost per stream, as a ratio of the server's response time.

Every shipped stream goes through every API of a live replay server, ``--repeat`` times.
For each check, the server's time is the request's wall time (send to last byte, measured
by the client) and our cost is what the check adds: projecting the same tokens, reducing
both answers and comparing them. Both are measured in the same run, on the same machine.
The figure is the ratio of medians per API, and overall.

    python -m benchmarks.bench_server_check                       # starts a vLLM replay server (1-2 min)
    python -m benchmarks.bench_server_check --engine llama.cpp --chat-template gpt-oss.jinja
    python -m benchmarks.bench_server_check --base-url http://127.0.0.1:8080/v1   # any running replay server
"""

from __future__ import annotations

import statistics
from collections import defaultdict

from benchmarks import on_server, server_parser
from harmony_viz.servers import lens


def measure(base_url: str, repeat: int) -> dict[str, list[tuple[float, float]]]:
    """(server seconds, check seconds) per api, over every stream and repeat."""
    out: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for _ in range(repeat):
        for r in lens.check_streams(base_url, lens.shipped_streams(), request=lens.shipped_request()):
            out["_engine"].append(r.engine)  # type: ignore[arg-type]
            if r.error is None and r.served:  # an API the engine does not serve took no server time
                out[r.api].append((r.server_seconds, r.check_seconds))
    return out


def report(samples: dict[str, list[tuple[float, float]]]) -> None:
    engines = sorted({e for e in samples.get("_engine", [])})
    samples = {k: v for k, v in samples.items() if k != "_engine"}
    print(f"engine: {', '.join(engines) or 'unknown'}")
    print(f"{'api':<17}{'checks':>7}{'server ms':>11}{'check ms':>10}{'check/server':>14}")
    everything = []
    for api, pairs in samples.items():
        everything += pairs
        server = statistics.median(p[0] for p in pairs)
        check = statistics.median(p[1] for p in pairs)
        print(f"{api:<17}{len(pairs):>7}{server * 1e3:>11.1f}{check * 1e3:>10.1f}{check / server:>14.3f}")
    server = statistics.median(p[0] for p in everything)
    check = statistics.median(p[1] for p in everything)
    print(f"{'all':<17}{len(everything):>7}{server * 1e3:>11.1f}{check * 1e3:>10.1f}{check / server:>14.3f}")
    print(f"server-check's own cost per stream: {check / server:.1%} of the server's response time (ratio of medians)")


def main() -> None:
    args = server_parser(__doc__, repeat=3).parse_args()
    report(on_server(args, lambda url: measure(url, args.repeat)))


if __name__ == "__main__":
    main()
