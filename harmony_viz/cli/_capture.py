"""``harmony-viz capture``: keep one real request to an OpenAI-compatible server as a run."""

from __future__ import annotations

import argparse
import sys

from harmony_viz.cli._common import CLIError, add_out, command

EPILOG = """examples:
  harmony-viz capture --base-url http://127.0.0.1:8000/v1 --prompt "Weather in Paris?" --stream -o cap.json
  harmony-viz capture --base-url https://my-host/v1 --model gpt-oss-120b --request req.json --api responses -o cap.json
  harmony-viz server-check cap.json && harmony-viz html cap.json -o cap.html
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    from harmony_viz.servers.core import REQUEST_KINDS

    p = command(subparsers, "capture", run, help="send one request to any OpenAI-compatible server and keep everything it returned, as a run", description="Send one Chat Completions or Responses request (vLLM, SGLang, Ollama, llama.cpp, LM Studio...) and "
        "keep the request, every chunk or event with its arrival time, the final object and, when the server offers "
        "them, the token ids. The capture is a run: html, replay, stats and server-check accept it.", epilog=EPILOG)
    p.add_argument("--base-url", required=True, metavar="URL", help="the server, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--model", metavar="NAME", help="model name (default: the first one the server lists)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--prompt", metavar="TEXT", help="one user message")
    what.add_argument("--request", metavar="REQUEST.json", help="a Chat Completions request body (messages, tools)")
    p.add_argument("--api", choices=list(REQUEST_KINDS), help="which API (default chat; responses for a server that serves no Chat API, as the reference server)")
    p.add_argument("--stream", action="store_true", help="stream the answer (chunks/events kept with arrival times)")
    p.add_argument("--max-tokens", type=int, metavar="N", help="maximum tokens to generate")
    add_out(p, metavar="CAPTURE.json", required=True, help="file to write")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S", help="seconds for the request (default 300)")


def run(args: argparse.Namespace) -> int:
    from harmony_viz.servers import CheckInputError, ServerError, capture, read_request

    if args.max_tokens is not None and args.max_tokens < 1:
        raise CLIError(f"--max-tokens must be at least 1, got {args.max_tokens}")
    try:
        request = read_request(args.request) if args.request else None
        run = capture(args.base_url, prompt=args.prompt, request=request, model=args.model, api=args.api, stream=args.stream,
                      max_tokens=args.max_tokens, out=args.out, timeout=args.timeout)
    except (CheckInputError, ServerError, ValueError, OSError) as exc:
        raise CLIError(str(exc)) from None
    server = run.metadata.extra["server"]
    got = f"{len(run.completion_token_ids)} token ids ({server['token_ids_source']})" if server["token_ids_source"] else server["token_ids_note"]
    err = f"; the server answered {server['error']}" if server["error"] else ""
    engine = f", {server['engine']}" if server.get("engine") else ""
    print(f"captured {server['api']} from {args.base_url} ({run.metadata.model}{engine}): {got}{err}; wrote {args.out}", file=sys.stderr)
    return 0
