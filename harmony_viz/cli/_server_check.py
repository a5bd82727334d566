"""``harmony-viz server-check``: where a server's answer departs from the tokens it returned."""

from __future__ import annotations

import argparse
import sys

from harmony_viz.cli._common import CLIError, command, write_json
from harmony_viz.cli._engines import add_engine_options, engine_names, engine_options

EPILOG = """examples:
  harmony-viz server-check --base-url http://127.0.0.1:8000/v1 --api all seed001.txt
  harmony-viz server-check --base-url http://127.0.0.1:8000/v1 --request req.json --json stream.json
  harmony-viz server-check --base-url http://127.0.0.1:8080/v1 stream.txt   # llama.cpp, detected from /props
  harmony-viz server-check --engine sglang stream.txt     # SGLang 0.5.23's parser, offline
  harmony-viz server-check --base-url http://127.0.0.1:8001/v1 stream.txt   # the reference server (Responses only)
  harmony-viz server-check capture.json          # offline: a capture made by `harmony-viz capture`

Each STREAM is a completion that follows <|start|>assistant: a JSON array of token ids, or
Harmony text (one trailing newline is ignored). Live, it is forced through the server: on vLLM
with vllm_xargs.script (the replay server's logits processor), on llama.cpp with a token-id
grammar (no tools sent: llama.cpp refuses a grammar with tools), on the reference server by its
infer_next_token hook; max_tokens = its length. An API an engine does not serve is "not served".
Discrepancies are findings: the exit status is 0 when the check ran, 2 on bad input or an
unreachable server. Codes and severities: see docs/server-lens.md.
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    from harmony_viz.servers.core import APIS

    p = command(subparsers, "server-check", run, help="replay streams through a server (or read captures) and list where its answer departs from the tokens", description="Compare a server's Chat Completions / Responses answer with our projection of the same tokens.", epilog=EPILOG)
    p.add_argument("files", nargs="+", metavar="STREAM|CAPTURE", help="stream files (with --base-url) or capture files (without)")
    p.add_argument("--base-url", metavar="URL", help="the server, e.g. http://127.0.0.1:8000/v1 (omit to check captures offline)")
    p.add_argument("--engine", choices=engine_names(auto=True), default="auto",
                   help="the engine behind --base-url (default auto: asked of the server); an offline one (sglang: SGLang's parser) takes no URL")
    add_engine_options(p, "server-check")
    p.add_argument("--model", metavar="NAME", help="model name (default: the first one the server lists)")
    p.add_argument("--request", metavar="REQUEST.json", help="a Chat Completions request body (messages, tools); Responses requests are derived from it")
    p.add_argument("--api", choices=[*APIS, "all"], default="all", help="which API to check (default all)")
    p.add_argument("--save-captures", metavar="DIR", help="also save each exchange as a capture (DIR/STEM.API.json) to check again offline")
    p.add_argument("--json", action="store_true", help="one JSON object a line per stream per api")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds per request (default 120)")


def run(args: argparse.Namespace) -> int:
    from harmony_viz.servers import (
        APIS,
        CheckInputError,
        LaunchError,
        ServerError,
        check_captures,
        check_engine,
        check_streams,
        engines,
        format_result,
        read_request,
    )

    try:
        apis = APIS if args.api == "all" else (args.api,)
        offline = args.engine != "auto" and engines.get(args.engine).offline
        if offline:
            if args.base_url:
                raise CLIError(f"--engine {args.engine} runs offline: it takes no --base-url")
            results = check_engine(args.engine, args.files, request=read_request(args.request), apis=apis, options=engine_options(args),
                                   save_captures=args.save_captures)
        elif args.base_url:
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
