"""``harmony-viz record --server``: record through an OpenAI-compatible server, many prompts at once."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from harmony_viz.cli._common import CLIError


def run_server(args: argparse.Namespace, specs: list[Any]) -> int:
    """Record ``specs`` (the prompts ``record`` read) through ``args.server``."""
    from harmony_viz._record import PromptSpec, ServerOptions, check_effort, record_server_batch

    try:
        efforts = [check_effort(e) for e in args.effort.split(",") if e.strip()]
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if not efforts:
        raise CLIError("--reasoning-effort is empty; give low, medium, high or a comma-separated list")
    for name in ("n", "concurrency", "max_new_tokens", "max_turns"):
        if getattr(args, name) < 1:
            raise CLIError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.retries < 0:
        raise CLIError(f"--retries must be 0 or more, got {args.retries}")
    if args.top_logprobs:
        raise CLIError("--top-logprobs is for transformers recording; through a server the runs keep token ids and times")
    if len(efforts) > 1:  # one run set per effort, ids made distinct; a line's own effort wins, as with transformers
        specs = [PromptSpec(f"{s.id}-{e}", s.prompt, e, s.tools) for s in specs for e in ([s.reasoning_effort] if s.reasoning_effort else efforts)]
    _check_server(args.server, args.model)
    options = ServerOptions(
        model=args.model, reasoning_effort=efforts[0], tools="demo" if args.demo_tools else None, instructions=args.instructions,
        max_tokens=args.max_new_tokens, max_turns=args.max_turns, temperature=args.temperature, top_p=args.top_p, seed=args.seed,
        timeout=args.timeout, attempts=args.retries + 1,
    )  # fmt: skip
    batch = record_server_batch(args.server, specs, options, n=args.n, concurrency=args.concurrency, out=args.out,
                                resume=args.resume, progress=not args.no_progress)  # fmt: skip
    reasons = ", ".join(f"{n} {r}" for r, n in sorted(batch.stop_reasons.items())) or "none"
    line = f"recorded {batch.recorded} run(s) to {args.out} ({reasons})"
    if batch.skipped:
        line += f"; skipped {batch.skipped} already in the file"
    print(line + f"; next: harmony-viz stats {args.out}", file=sys.stderr)
    if batch.without_ids:
        print(f"warning: the server returned no token ids for {batch.without_ids} run(s) (vLLM's return_token_ids); "
              "those runs keep the server's answer only", file=sys.stderr)  # fmt: skip
    for f in batch.failures:
        print(f"failed for good: {f.run_id}: {f.error} (after {f.attempts} attempt(s)); --resume records it again", file=sys.stderr)
    return 1 if batch.failures else 0


def _check_server(url: str, model: str) -> None:
    """One quick request before the batch: a wrong URL or model name is one line, not a failure per prompt."""
    import openai

    client = openai.OpenAI(base_url=url, api_key="EMPTY", timeout=20.0, max_retries=2)
    try:
        names = [m.id for m in client.models.list()]
    except openai.APIConnectionError as exc:
        raise CLIError(f"cannot reach {url}: {exc.__cause__ or exc}") from None
    except openai.APIStatusError as exc:
        raise CLIError(f"{url}models answered {exc.status_code}: {exc.message}") from None
    if names and model not in names:
        raise CLIError(f"{url} serves {', '.join(names)}, not {model!r}; pass --model {names[0]}")
