"""``harmony-viz server-check``: where a server's answer departs from the tokens it returned."""

from __future__ import annotations

import argparse
import sys

from harmony_viz.cli._common import CLIError, command, write_json

EPILOG = """examples:
  harmony-viz server-check --base-url http://127.0.0.1:8000/v1 --api all seed001.txt
  harmony-viz server-check --base-url http://127.0.0.1:8000/v1 --request req.json --json stream.json
  harmony-viz server-check --base-url http://127.0.0.1:8080/v1 stream.txt   # llama.cpp, detected from /props
  harmony-viz server-check --engine sglang stream.txt     # SGLang 0.5.23's parser, offline
  harmony-viz server-check capture.json          # offline: a capture made by `harmony-viz capture`

Each STREAM is a completion that follows <|start|>assistant: a JSON array of token ids, or
Harmony text (one trailing newline is ignored). Live, it is forced through the server: on vLLM
with vllm_xargs.script (the replay server's logits processor), on llama.cpp with a token-id
grammar (no tools sent: llama.cpp refuses a grammar with tools); max_tokens = its length.
Discrepancies are findings: the exit status is 0 when the check ran, 2 on bad input or an
unreachable server. Codes and severities: see the README (server lens).
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = command(subparsers, "server-check", run, help="replay streams through a server (or read captures) and list where its answer departs from the tokens", description="Compare a server's Chat Completions / Responses answer with our projection of the same tokens.", epilog=EPILOG)
    p.add_argument("files", nargs="+", metavar="STREAM|CAPTURE", help="stream files (with --base-url) or capture files (without)")
    p.add_argument("--base-url", metavar="URL", help="the server, e.g. http://127.0.0.1:8000/v1 (omit to check captures offline)")
    p.add_argument("--engine", choices=["auto", "vllm", "llama.cpp", "sglang"], default="auto",
                   help="the engine behind --base-url (default auto: asked of the server); sglang runs SGLang's parser offline, no URL")
    p.add_argument("--sglang-python", metavar="PY", help="the Python of SGLang's venv (default: $HARMONY_VIZ_SGLANG_PYTHON, else .venv-sglang)")
    p.add_argument("--model", metavar="NAME", help="model name (default: the first one the server lists)")
    p.add_argument("--request", metavar="REQUEST.json", help="a Chat Completions request body (messages, tools); Responses requests are derived from it")
    p.add_argument("--api", choices=["chat", "chat-stream", "responses", "responses-stream", "all"], default="all", help="which API to check (default all)")
    p.add_argument("--save-captures", metavar="DIR", help="also save each exchange as a capture (DIR/STEM.API.json) to check again offline")
    p.add_argument("--json", action="store_true", help="one JSON object a line per stream per api")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds per request (default 120)")


def _saving(results, folder: str, request: dict):  # noqa: ANN001, ANN202
    """Pass results on, saving each as a capture (``STEM.API.json``) on the way."""
    from pathlib import Path

    from harmony_viz.servers import capture_of_result, save_capture

    Path(folder).mkdir(parents=True, exist_ok=True)
    for r in results:
        run = capture_of_result(r, {**request, "model": "sglang-0.5.23-parser"}, base_url="offline:sglang", model="sglang-0.5.23-parser")
        save_capture(run, Path(folder) / f"{Path(r.file).stem}.{r.api}.json")
        yield r


def run(args: argparse.Namespace) -> int:
    from harmony_viz.servers import APIS, CheckInputError, LaunchError, ServerError, check_captures, check_sglang, check_streams, format_result, read_request

    try:
        if args.engine == "sglang":
            if args.base_url:
                raise CLIError("--engine sglang runs SGLang's parser offline: it takes no --base-url")
            apis = ("chat", "chat-stream") if args.api == "all" else (args.api,)
            if set(apis) - {"chat", "chat-stream"}:
                raise CLIError("SGLang's parser gives Chat Completions answers only: --api chat, chat-stream or all")
            request = read_request(args.request)
            results = check_sglang(args.files, python=args.sglang_python, request=request, apis=apis)
            if args.save_captures:
                results = _saving(results, args.save_captures, request)
        elif args.base_url:
            apis = APIS if args.api == "all" else (args.api,)
            engine = None if args.engine == "auto" else args.engine
            results = check_streams(args.base_url, args.files, model=args.model, request=read_request(args.request), apis=apis, timeout=args.timeout,
                                    save_captures=args.save_captures, engine=engine)
        else:
            if args.request or args.model or args.api != "all" or args.save_captures or args.engine != "auto":
                raise CLIError("--request, --model, --api, --engine and --save-captures need --base-url; without it the files are captures, checked offline")
            results = check_captures(args.files)
        last = None
        for r in results:
            if args.json:
                write_json(r.to_json())
            else:  # a table per stream: its name once, then a row per api
                print(format_result(r, with_file=r.file != last))
                sys.stdout.flush()
            last = r.file
    except (CheckInputError, ServerError, LaunchError, ValueError) as exc:
        raise CLIError(str(exc)) from None
    return 0
