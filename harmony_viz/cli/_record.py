"""``harmony-viz record``: record gpt-oss runs with transformers into a JSONL run file."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

from harmony_viz.cli._common import CLIError, add_out, command, read_input
from harmony_viz.cli._record_server import run_server

EPILOG = """examples:
  harmony-viz record --model openai/gpt-oss-20b --prompt "What is 17 * 23?" --demo-tools -o runs.jsonl
  harmony-viz record --model tiny-gpt-oss --prompts prompts.txt --effort low,medium,high -o runs.jsonl
  harmony-viz stats runs.jsonl
  harmony-viz record --server http://127.0.0.1:8000/v1 --model openai/gpt-oss-20b --prompts prompts.jsonl \
      --n 4 --concurrency 16 --reasoning-effort high --demo-tools --resume -o runs.jsonl

--prompts FILE holds one prompt a line (blank lines and lines starting with # skipped);
a line that is a JSON string, or a JSON object with "prompt", may hold newlines. - reads stdin.
An object may also give "id" (names its runs: ID#0, ID#1… through a server, STAMP-ID-EFFORT
with transformers), "reasoning_effort" and "tools" ("demo" or "none"); both recorders read them.
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = command(subparsers, "record", run, help="record gpt-oss runs with transformers (tool calls answered) into a JSONL run file", description="Run gpt-oss through Hugging Face transformers on prompts rendered by our renderer, "
        "answer its tool calls, and append each finished run to a JSONL run file.", epilog=EPILOG)
    p.add_argument("--model", required=True, metavar="ID|PATH|NAME", help="hub id (openai/gpt-oss-20b) or local checkpoint folder; with --server, the served model name")
    p.add_argument("--server", metavar="URL", help="record through this OpenAI-compatible server (e.g. vLLM at http://127.0.0.1:8000/v1) instead of transformers")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--prompt", metavar="TEXT", help="one prompt")
    src.add_argument("--prompts", metavar="FILE", help="prompts, one a line (- for stdin)")
    p.add_argument("--effort", "--reasoning-effort", dest="effort", default="medium", metavar="LIST", help="reasoning efforts, comma separated (default medium)")
    p.add_argument("--max-new-tokens", "--max-tokens", dest="max_new_tokens", type=int, default=2048, metavar="N", help="model tokens per run, all turns (default 2048)")
    p.add_argument("--max-turns", type=int, default=8, metavar="N", help="generation segments per run (default 8)")
    p.add_argument("--demo-tools", action="store_true", help="the model may call the demo tools (calculator, get_weather), answered as it runs")
    # --tools names a TOOLS.json in every other command; here it once meant demo|none.
    p.add_argument("--tools", metavar="TOOLS.json", help=argparse.SUPPRESS)
    p.add_argument("--instructions", metavar="TEXT", help="developer instructions")
    p.add_argument("--temperature", type=float, default=1.0, metavar="T", help="0 for greedy (default 1.0)")
    p.add_argument("--top-p", type=float, default=1.0, metavar="P", help="nucleus sampling (default 1.0)")
    p.add_argument("--top-logprobs", type=int, default=0, metavar="K", help="keep log-probs and the top K alternatives (default 0: none)")
    p.add_argument("--seed", type=int, metavar="N", help="seed for sampling")
    p.add_argument("--device", default="auto", metavar="DEV", help="auto (default), cpu, cuda or cuda:N")
    p.add_argument("--dtype", default="auto", metavar="TYPE", help="auto (default), bfloat16, float16 or float32")
    add_out(p, metavar="RUNS.jsonl", required=True, help="run file; runs are appended as they end")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    srv = p.add_argument_group("through a server (--server)")
    srv.add_argument("--n", type=int, default=1, metavar="N", help="runs per prompt (seeds SEED, SEED+1…; default 1)")
    srv.add_argument("--concurrency", type=int, default=8, metavar="C", help="requests in flight at once (default 8)")
    srv.add_argument("--resume", action="store_true", help="skip runs whose id is already in -o/--out")
    srv.add_argument("--timeout", type=float, default=300.0, metavar="S", help="seconds per request before it is retried (default 300)")
    srv.add_argument("--retries", type=int, default=4, metavar="N", help="retries on 429, 5xx, timeouts (default 4, with backoff)")


def prompt_specs(args: argparse.Namespace) -> list[Any]:
    """The prompts to record, for either recorder: ``--prompt``, or ``--prompts FILE`` read by the one prompts reader."""
    from harmony_viz._record import PromptSpec, read_prompt_specs

    if args.prompt is not None:
        return [PromptSpec("p00000", args.prompt)]
    try:
        return read_prompt_specs(read_input(args.prompts), args.prompts)
    except ValueError as exc:
        raise CLIError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    if args.tools is not None:
        raise CLIError(f"--tools names a TOOLS.json (as in lint and parse), not a tool set: record with the demo tools is --demo-tools (got --tools {args.tools})")
    if args.server:
        return run_server(args, prompt_specs(args))
    for name, default in (("n", 1), ("concurrency", 8), ("resume", False)):
        if getattr(args, name) != default:
            raise CLIError(f"--{name} needs --server (recording with transformers makes one run at a time)")
    from harmony_viz._record import MissingExtraError, ModelLoadError, Sampling, check_effort, load_model, record_batch

    specs = prompt_specs(args)
    # Check every option before loading the model, which can take minutes.
    try:
        efforts = [check_effort(e) for e in args.effort.split(",") if e.strip()]
        Sampling(temperature=args.temperature, top_p=args.top_p, top_logprobs=args.top_logprobs)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if not efforts:
        raise CLIError("--effort is empty; give low, medium, high or a comma-separated list")
    for name in ("max_new_tokens", "max_turns"):
        if getattr(args, name) < 1:
            raise CLIError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    try:
        loaded = load_model(args.model, device=args.device, dtype=args.dtype, progress=not args.no_progress)
        runs = record_batch(
            loaded,
            specs,
            efforts=efforts,
            out=args.out,
            progress=not args.no_progress,
            tools="demo" if args.demo_tools else None,
            instructions=args.instructions,
            max_new_tokens=args.max_new_tokens,
            max_turns=args.max_turns,
            temperature=args.temperature,
            top_p=args.top_p,
            top_logprobs=args.top_logprobs,
            seed=args.seed,
        )
    except (MissingExtraError, ModelLoadError, ValueError) as exc:
        raise CLIError(str(exc)) from None
    stops = Counter(r.metadata.extra["stop_reason"] for r in runs)
    summary = ", ".join(f"{n} {reason}" for reason, n in sorted(stops.items()))
    print(f"recorded {len(runs)} run(s) to {args.out} ({summary}); next: harmony-viz stats {args.out}", file=sys.stderr)
    return 0
