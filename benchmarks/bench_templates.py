"""Template lens at scale: conversations per second and peak memory over a 100k-row Parquet dataset.

Each phase runs in its own process, so its peak RSS (ru_maxrss) is its own:
- ``import``: the modules and the vocabulary loaded, nothing rendered (the memory floor);
- ``template``: the reference, the raw Jinja render alone (transformers' render_jinja_template) of every row;
- ``lens``: ``harmony-viz template-check``'s path: read in batches, render both ways, scan, align, count;
- ``lens-10%``: the same on the first tenth of the rows, to show memory stays flat as rows grow.

    python benchmarks/bench_templates.py                        # 100k rows, ../shared/templates/gpt-oss.jinja
    python benchmarks/bench_templates.py --rows 20000 --template path/to/chat_template.jinja
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import queue
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TEMPLATE = ROOT.parent / "shared" / "templates" / "gpt-oss.jinja"
WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Current weather in a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]}}}
CITIES = ["Paris", "Lyon", "Tokyo", "Lima", "Oslo", "Cairo", "Quito", "Perth"]


def _call(i: int, city: str) -> dict:
    return {"id": f"c{i}", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}


def row(i: int) -> dict:
    """Row ``i`` of the dataset: five shapes in turn, as a fine-tuning set mixes them."""
    a, b = CITIES[i % len(CITIES)], CITIES[(i * 3 + 1) % len(CITIES)]
    kind = i % 5
    user = {"role": "user", "content": f"What is the weather in {a}? (question {i})"}
    system = {"role": "system", "content": "You are a concise weather assistant."}
    if kind == 0:  # plain chat
        msgs = [system, user, {"role": "assistant", "content": f"It is sunny in {a}."}]
    elif kind == 1:  # reasoning, then the answer
        msgs = [user, {"role": "assistant", "thinking": f"The user asks about {a}; answer briefly.", "content": f"Sunny in {a}."}]
    elif kind == 2:  # one call, its result, the answer
        msgs = [system, user, {"role": "assistant", "tool_calls": [_call(1, a)]},
                {"role": "tool", "tool_call_id": "c1", "content": f"{a}: 21 C, clear"}, {"role": "assistant", "content": f"21 C and clear in {a}."}]
    elif kind == 3:  # a preamble and parallel calls
        msgs = [user, {"role": "assistant", "content": "Let me check both cities.", "tool_calls": [_call(1, a), _call(2, b)]},
                {"role": "tool", "tool_call_id": "c1", "content": "21 C"}, {"role": "tool", "tool_call_id": "c2", "content": "12 C"},
                {"role": "assistant", "content": f"{a}: 21 C; {b}: 12 C."}]
    else:  # a pending call (the prompt the model continues)
        msgs = [system, user, {"role": "assistant", "thinking": "I need the tool.", "tool_calls": [_call(1, a)]}]
    return {"messages": msgs, "tools": [WEATHER] if kind in (2, 3, 4) else None, "reasoning_effort": ["low", "medium", "high"][i % 3]}


def write_dataset(path: Path, rows: int, batch: int = 5000) -> None:
    """``rows`` rows written batch by batch (one schema for all, taken from a batch holding every shape)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.Table.from_pylist([row(i) for i in range(5)]).schema
    with pq.ParquetWriter(path, schema) as writer:
        for start in range(0, rows, batch):
            writer.write_table(pa.Table.from_pylist([row(i) for i in range(start, min(rows, start + batch))], schema=schema))


def _phase(name: str, data: str, template_path: str, limit: int, out: mp.Queue) -> None:
    from itertools import islice

    import transformers.utils.chat_template_utils  # noqa: F401  (the floor holds what every phase loads)

    from harmony_viz.templates import DatasetSummary, check_requests, load_template, read_requests, render_template
    from harmony_viz.tokens import encoding

    encoding()  # the o200k vocabulary, ~100 MiB, loaded once whatever the row count

    template = load_template(template_path)
    n = 0
    summary = None
    start = time.perf_counter()
    if name == "template":
        for _index, request in islice(read_requests(data), limit):
            render_template(template, request, date="2025-08-05")
            n += 1
    elif name.startswith("lens"):
        summary = DatasetSummary()
        for _index, result in check_requests(islice(read_requests(data), limit), template, date="2025-08-05"):
            summary.add(result)
        n = summary.rows
    seconds = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out.put({"phase": name, "rows": n, "seconds": seconds, "peak_mib": peak_mib, "summary": summary.to_json() if summary else None})


def run_phase(name: str, data: Path, template: Path, limit: int) -> dict:
    ctx = mp.get_context("spawn")  # a fresh process: its peak memory is this phase's alone
    q = ctx.Queue()
    p = ctx.Process(target=_phase, args=(name, str(data), str(template), limit, q))
    p.start()
    while p.is_alive() or not q.empty():
        try:
            result = q.get(timeout=1)
        except queue.Empty:  # still running
            continue
        p.join()
        return result
    raise SystemExit(f"bench_templates: phase {name} failed (exit {p.exitcode})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--template", type=Path, default=DEFAULT_TEMPLATE)
    args = ap.parse_args()
    if not args.template.is_file():
        print(f"bench_templates: {args.template}: no such file; pass --template", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "requests.parquet"
        t0 = time.perf_counter()
        write_dataset(data, args.rows)
        print(f"dataset: {args.rows} rows, {data.stat().st_size / 2**20:.1f} MiB Parquet, written in {time.perf_counter() - t0:.1f} s")
        results = {name: run_phase(name, data, args.template, limit)
                   for name, limit in (("import", 0), ("template", args.rows), ("lens-10%", args.rows // 10), ("lens", args.rows))}
    floor = results["import"]["peak_mib"]
    print(f"{'phase':<10} {'rows':>8} {'seconds':>8} {'conv/s':>8} {'peak MiB':>9} {'above import':>13}")
    for name, r in results.items():
        rate = r["rows"] / r["seconds"] if r["rows"] else float("nan")
        print(f"{name:<10} {r['rows']:>8} {r['seconds']:>8.1f} {rate:>8.0f} {r['peak_mib']:>9.1f} {r['peak_mib'] - floor:>13.1f}")
    lens, ref, tenth = results["lens"], results["template"], results["lens-10%"]
    print(f"lens speed / raw template render: {(lens['rows'] / lens['seconds']) / (ref['rows'] / ref['seconds']):.3f}")
    print(f"lens peak memory above import, {args.rows} rows vs {args.rows // 10}: "
          f"{(lens['peak_mib'] - floor):.1f} / {(tenth['peak_mib'] - floor):.1f} MiB (ratio {(lens['peak_mib'] - floor) / max(tenth['peak_mib'] - floor, 0.1):.2f})")
    print("counts per code:", json.dumps(lens["summary"]["differences"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
