"""``harmony-viz prompt-check``: the prompt a server fed the model, against the prompt the Harmony format gives the request."""

from __future__ import annotations

import argparse
from typing import Any

from harmony_viz.cli._common import CLIError, command, difference_lines, write_json

EPILOG = """\
examples:
  harmony-viz prompt-check --base-url http://127.0.0.1:8000/v1 request.json      # vLLM (detected)
  harmony-viz prompt-check --base-url http://127.0.0.1:8080/v1 --json a.json b.json   # llama.cpp
  harmony-viz prompt-check --base-url http://127.0.0.1:8001/v1 request.json      # the reference server (sent as Responses input)
  harmony-viz prompt-check capture.json          # offline: the prompt ids a capture kept
  harmony-viz prompt-check runs.jsonl            # offline: a tool loop recorded with `record --server`, turn by turn

A REQUEST is a Chat Completions body (messages with reasoning / reasoning_content / thinking,
tool_calls, tool results, tools, reasoning_effort, response_format), or a Responses body
(input items) for a server that can show its prompt (vLLM's /v1/responses/render). The
server's prompt comes from vLLM's /v1/chat/completions/render (or return_token_ids), from
llama.cpp's /apply-template + /tokenize, from the reference server's first infer_next_token
call (`replay-server --engine gpt-oss`), or from a server's prompt_token_ids. Ours is our
renderer's (= openai-harmony), dated as the server's prompt is, at the server's default
effort when the request names none. Differences carry codes (see docs/prompt-lens.md).
--json prints one object a line: {file, engine, prompt_source, identical, differences:
[{code, severity, message, ours, server, where: {ours, server}}], error}.
Exit 0 when every prompt is identical, 1 when some differ, 2 on bad input, an unreachable
server, or a server whose prompt cannot be seen.
"""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = command(subparsers, "prompt-check", run, help="compare the prompt a server rendered for a request with the Harmony format's",
                description="Get the prompt a server fed the model for each request (or the prompt ids a capture kept) and name every "
                            "difference from our render of the same request.", epilog=EPILOG)
    p.add_argument("files", nargs="+", metavar="REQUEST.json|CAPTURE.json", help="request bodies (with --base-url) or captures (offline)")
    p.add_argument("--base-url", metavar="URL", help="the server, e.g. http://127.0.0.1:8000/v1 (not needed for captures that hold prompt ids)")
    p.add_argument("--engine", choices=["auto", *(e.name for e in _servers())], default="auto", help="the engine behind --base-url (default auto: asked of the server)")
    p.add_argument("--model", metavar="NAME", help="model name (default: the request's, else the first one the server lists)")
    p.add_argument("--json", action="store_true", help="one JSON object a line per file")


def _servers():  # noqa: ANN202
    from harmony_viz.servers import engines

    return [e for e in engines.engines() if not e.offline]


def _print(r: Any) -> None:
    state = "identical" if r.identical else (f"refused: {r.error}" if r.error else f"{len(r.differences)} difference(s)")
    print(f"{r.file}: {r.engine or '?'} via {r.prompt_source}: {state}")
    for d in r.differences:
        if d.code != "request-rejected":  # its text is on the line above
            print("\n".join(difference_lines(d)))


def run(args: argparse.Namespace) -> int:
    from harmony_viz.servers import ServerError, check_path
    from harmony_viz.templates import LensError

    engine = None if args.engine == "auto" else args.engine
    results = []
    for path in args.files:
        try:
            checks = check_path(path, base_url=args.base_url, engine=engine, model=args.model)
        except (LensError, ServerError) as exc:
            raise CLIError(str(exc) if str(exc).startswith(path) else f"{path}: {exc}") from None
        for r in checks:
            write_json(r.to_json()) if args.json else _print(r)
        results += checks
    return 0 if all(r.identical for r in results) else 1
