"""``harmony-viz matrix``: every stream through every engine named, as one table."""

from __future__ import annotations

import argparse
import sys

from harmony_viz.cli._common import CLIError, command, write_json
from harmony_viz.cli._engines import add_engine_options, add_engine_targets, engine_options, engine_targets, target_flags

EPILOG = """examples:
  harmony-viz matrix zoo/*.txt --vllm http://127.0.0.1:8000/v1 --llama-cpp http://127.0.0.1:8080/v1 --sglang
  harmony-viz matrix zoo/*.txt --gpt-oss http://127.0.0.1:8001/v1   # OpenAI's reference server: Responses only
  harmony-viz matrix stream.txt --llama-cpp http://127.0.0.1:8080/v1 --json

Each cell is the worst severity of that engine's answer and its codes, `ok` when it matches
the tokens. Exit status: 0 when every cell was checked (discrepancies are findings), 1 when
some cell could not be (each said on stderr), 2 on bad input.
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = command(subparsers, "matrix", run, help="every stream through every engine (vLLM, llama.cpp, SGLang's parser, the reference server): one table",
                description="Replay each stream through each engine named and tabulate where each answer departs from the tokens.", epilog=EPILOG)
    p.add_argument("files", nargs="+", metavar="STREAM", help="completions after <|start|>assistant: Harmony text or a JSON array of ids")
    add_engine_targets(p)
    add_engine_options(p, "matrix")
    p.add_argument("--request", metavar="REQUEST.json", help="a Chat Completions request body (messages, tools) to replay under")
    p.add_argument("--json", action="store_true", help="one JSON object a line per stream, engine and api (as server-check --json)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds per request (default 120)")


def run(args: argparse.Namespace) -> int:
    from harmony_viz.servers import CheckInputError, matrix, matrix_table, read_request

    targets = engine_targets(args)
    if not targets:
        raise CLIError(f"name at least one engine: {target_flags()}")
    try:
        cells = matrix(args.files, request=read_request(args.request), timeout=args.timeout, **targets, **engine_options(args))
    except (CheckInputError, ValueError) as exc:
        raise CLIError(str(exc)) from None
    failed = [c for c in cells if c.failure is not None]
    said = set()
    for c in failed:
        if (c.engine, c.failure) not in said:  # one line per engine and reason, not per cell
            print(f"harmony-viz matrix: {c.engine}: not checked: {c.failure}", file=sys.stderr)
            said.add((c.engine, c.failure))
    if args.json:
        for c in cells:
            if c.result is not None:
                write_json(c.result.to_json())
    else:
        print(matrix_table(cells))
    return 1 if failed else 0
