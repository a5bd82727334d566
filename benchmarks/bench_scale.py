"""Scale benchmark of ``stats``: runs/s and peak RSS for 10k, 100k and 1M runs, one job against two.

The input is the bundled runs repeated (each copy with its own ids) as one JSONL file per
size, written to a temporary folder. Each measurement runs in a fresh Python process that
reports its own peak RSS and that of its largest worker. The reference is today's
in-memory path (load every run, scan, build every row: what ``stats --json`` does),
measured in the same run at every size up to ``--memory-max``; the ratio is taken at the
largest size it ran. ``cores`` is CPU time over wall time: on a shared machine it shows how
much of a second core two jobs actually got.

    python benchmarks/bench_scale.py                          # 10k, 100k, 1M (1M takes a while)
    python benchmarks/bench_scale.py --sizes 10000,100000 --memory-max 100000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def make_input(n: int, folder: Path) -> Path:
    """``n`` runs: the bundled runs over and over, ids made unique by a copy number."""
    from harmony_viz.data import sample_paths
    from harmony_viz.runs import load_runs

    lines = []
    for run in load_runs(sample_paths()):
        obj = run.to_json()
        lines.append((obj.pop("id"), json.dumps(obj, ensure_ascii=False)[1:]))  # the object without its opening brace
    path = folder / f"runs-{n}.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            run_id, rest = lines[i % len(lines)]
            f.write(f'{{"id": {json.dumps(f"{run_id}~{i // len(lines)}")}, {rest}\n')
    return path


def one(mode: str, path: str, jobs: int, out: str) -> None:
    """Child process: do one measurement and print it as JSON (seconds, rows, peak RSS of self and workers)."""
    t0, c0 = time.perf_counter(), os.times()
    if mode == "memory":
        from harmony_viz.runs import load_runs
        from harmony_viz.stats import analyze_runs

        rows = [u.to_json() for u in analyze_runs(load_runs([path], progress=False), progress=False)]
        count = len(rows)
    else:
        from harmony_viz.scale import summarise, write_parquet

        count = write_parquet([path], out, jobs=jobs, progress=False)
        summarise(out)  # the aggregates come from DuckDB over the file, as stats --parquet prints them
    seconds = time.perf_counter() - t0
    c1 = os.times()
    # CPU seconds of this process and its workers: wall / CPU shows how many cores it really got.
    cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "cpu_s": cpu, "rows": count, "rss_mb": me, "worker_rss_mb": workers}))


def measure(mode: str, path: Path, jobs: int, folder: Path) -> dict | None:
    cmd = [sys.executable, __file__, "--one", mode, str(path), str(jobs), str(folder / "rows.parquet")]
    done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode != 0:
        print(f"  {mode} jobs={jobs}: failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:] or ''}", file=sys.stderr)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def cores(r: dict) -> float:
    """CPU seconds over wall seconds: about 1 for one job; below 2 for two jobs when other work held a core."""
    return r.get("cpu_s", 0.0) / r["seconds"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000", help="run counts, comma separated")
    ap.add_argument("--jobs", default="1,2", help="job counts to compare, comma separated")
    ap.add_argument("--memory-max", type=int, default=100_000, help="largest size to run the in-memory reference at")
    ap.add_argument("--one", nargs=4, metavar=("MODE", "PATH", "JOBS", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.setdefault("TIKTOKEN_ENCODINGS_BASE", str(ROOT.parent / "shared" / "vocab"))
    if args.one:
        mode, path, jobs, out = args.one
        one(mode, path, int(jobs), out)
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    job_counts = [int(j) for j in args.jobs.split(",")]
    print(f"{'runs':>9} {'engine':<10} {'s':>8} {'runs/s':>8} {'cores':>5} {'peak MB':>8} {'worker MB':>9}  vs")
    reference: tuple[int, dict] | None = None
    streamed: dict[tuple[int, int], dict] = {}
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        folder = Path(tmp)
        for n in sizes:
            path = make_input(n, folder)
            size_mb = path.stat().st_size / 2**20
            print(f"# {n} runs, {size_mb:.0f} MB of JSONL", flush=True)
            for jobs in job_counts:
                r = measure("stream", path, jobs, folder)
                if r is None:
                    continue
                streamed[(n, jobs)] = r
                base = streamed.get((n, job_counts[0]))
                vs = f"{base['seconds'] / r['seconds']:.2f}x faster than {job_counts[0]} job" if base and jobs != job_counts[0] else ""
                print(f"{n:>9} {f'parquet j{jobs}':<10} {r['seconds']:>8.1f} {n / r['seconds']:>8.0f} {cores(r):>5.2f} {r['rss_mb']:>8.0f} {r['worker_rss_mb']:>9.0f}  {vs}", flush=True)
            if n <= args.memory_max:
                r = measure("memory", path, 1, folder)
                if r is not None:
                    reference = (n, r)
                    print(f"{n:>9} {'in-memory':<10} {r['seconds']:>8.1f} {n / r['seconds']:>8.0f} {cores(r):>5.2f} {r['rss_mb']:>8.0f} {'-':>9}  (today's path)", flush=True)
            path.unlink()
    if reference is not None:
        n, ref = reference
        print(f"# against today's in-memory path at {n} runs (the largest it ran here):")
        for jobs in job_counts:
            r = streamed.get((n, jobs))
            if r:
                peak = max(r["rss_mb"], r["worker_rss_mb"])
                print(f"#   parquet, {jobs} job(s): {ref['seconds'] / r['seconds']:.2f}x the speed, peak RSS {peak:.0f} MB vs {ref['rss_mb']:.0f} MB ({ref['rss_mb'] / peak:.1f}x less)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
