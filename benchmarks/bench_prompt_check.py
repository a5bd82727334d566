"""Benchmark: prompt-check's cost per request, as a ratio of the server's response time.

A handful of Chat Completions requests (one message; tools; a pending tool call with and
without a preamble; two parallel calls; a finished turn then a new question) go to a live
replay server ``--repeat`` times. For each, in the same run and on the same machine:

- the server's response time: a real chat completion of the request (``--max-tokens``, the
  client's wall time, send to last byte);
- prompt-check's own cost: our render of the request and the comparison with the server's
  prompt (``compare_prompt``); and the fetch of the server's prompt (render endpoint or
  ``/apply-template`` + ``/tokenize``), reported apart since it is the server's work.

The figures are ratios of medians.

    python -m benchmarks.bench_prompt_check                        # starts a vLLM replay server (1-2 min)
    python -m benchmarks.bench_prompt_check --base-url http://127.0.0.1:8080/v1   # any running replay server
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

from benchmarks import on_server, server_parser
from harmony_viz.servers import build_request, client_for, send, server_prompt
from harmony_viz.servers.core import compare_prompt
from harmony_viz.servers.engines import detect_engine

WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Current weather in a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
USER = {"role": "user", "content": "Weather in Paris and Lyon?"}


def _call(i: int, city: str) -> dict[str, Any]:
    return {"id": f"c{i}", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}


def requests() -> dict[str, dict[str, Any]]:
    pending = {"role": "assistant", "reasoning_content": "Need the weather in both cities.", "tool_calls": [_call(0, "Paris")]}
    return {
        "one message": {"messages": [USER]},
        "tools": {"messages": [{"role": "system", "content": "Be brief."}, USER], "tools": [WEATHER]},
        "pending call": {"messages": [USER, pending, {"role": "tool", "tool_call_id": "c0", "content": "sunny"}], "tools": [WEATHER]},
        "call + preamble": {"messages": [USER, {**pending, "content": "Let me check."}, {"role": "tool", "tool_call_id": "c0", "content": "sunny"}],
                            "tools": [WEATHER]},
        "parallel calls": {"messages": [USER, {**pending, "tool_calls": [_call(0, "Paris"), _call(1, "Lyon")]},
                                        {"role": "tool", "tool_call_id": "c0", "content": "sunny"}, {"role": "tool", "tool_call_id": "c1", "content": "rain"}],
                           "tools": [WEATHER]},
        "finished turn": {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "reasoning_content": "Greet.", "content": "Hello!"}, USER]},
    }


def measure(base_url: str, repeat: int, max_tokens: int) -> dict[str, list[tuple[float, float, float]]]:
    """(server response seconds, prompt fetch seconds, our seconds) per request, over every repeat."""
    engine = detect_engine(base_url)
    client = client_for(base_url)
    model = client.models.list().data[0].id
    out: dict[str, list[tuple[float, float, float]]] = {}
    for _ in range(repeat):
        for name, req in requests().items():
            ex = send(client, "chat", build_request("chat", req, model=model, max_tokens=max_tokens, script=None))
            got = server_prompt(base_url, req, engine=engine, model=model)
            assert got.ids is not None, got.error
            t0 = time.perf_counter()
            compare_prompt(req, got.ids)
            ours = time.perf_counter() - t0
            out.setdefault(name, []).append((ex.elapsed, got.seconds, ours))
    print(f"engine: {engine}")
    return out


def report(samples: dict[str, list[tuple[float, float, float]]]) -> None:
    print(f"{'request':<17}{'n':>3}{'server ms':>11}{'fetch ms':>10}{'ours ms':>9}{'ours/server':>13}{'(fetch+ours)/server':>21}")
    every = []
    for name, rows in samples.items():
        every += rows
        s, f, o = (statistics.median(r[i] for r in rows) for i in range(3))
        print(f"{name:<17}{len(rows):>3}{s * 1e3:>11.1f}{f * 1e3:>10.1f}{o * 1e3:>9.2f}{o / s:>13.3f}{(f + o) / s:>21.3f}")
    s, f, o = (statistics.median(r[i] for r in every) for i in range(3))
    print(f"{'all':<17}{len(every):>3}{s * 1e3:>11.1f}{f * 1e3:>10.1f}{o * 1e3:>9.2f}{o / s:>13.3f}{(f + o) / s:>21.3f}")
    print(f"prompt-check's own cost per request: {o / s:.1%} of the server's response time; with the prompt fetch: {(f + o) / s:.1%} (ratios of medians)")


def main() -> None:
    parser = server_parser(__doc__, repeat=5)
    parser.add_argument("--max-tokens", type=int, default=32, help="tokens each timed completion generates (default 32)")
    args = parser.parse_args()
    report(on_server(args, lambda url: measure(url, args.repeat, args.max_tokens)))


if __name__ == "__main__":
    main()
