"""``harmony-viz render``: a conversation (Harmony JSON or a Chat Completions request) → Harmony text or ids."""

from __future__ import annotations

import argparse
from typing import Any

from harmony_viz.cli._common import CLIError, command, read_source, say_read, write_json, write_text

EXAMPLES = """\
examples:
  harmony-viz render conversation.json            # Harmony text, exactly as gpt-oss sees it
  harmony-viz render request.json --tokens        # a Chat Completions request, as token ids
  cat request.json | harmony-viz render - --for-completion

The input form is detected unless --from is given, and said on stderr: a message with
channel, recipient or content_type, or a system_content/developer_content part, means
Harmony JSON; a message with string content, tool_calls, tool_call_id, reasoning,
reasoning_content or thinking, or tools of type function, means a Chat Completions
request; both or neither: a Chat Completions request.
"""

def add_parser(subparsers: Any) -> None:
    p = command(subparsers, "render", run, help="render a conversation to Harmony text or token ids", description="Render a conversation exactly as openai-harmony 0.0.8 does: Harmony text, "
        "or token ids with --tokens.", epilog=EXAMPLES)
    p.add_argument("file", metavar="FILE|-", help="JSON file to read, or - for standard input")
    p.add_argument("--tokens", action="store_true", help="print a JSON array of token ids instead of text")
    p.add_argument(
        "--for-completion",
        action="store_true",
        help="append <|start|>assistant, the prompt for the next assistant turn",
    )
    p.add_argument(
        "--from",
        dest="form",
        choices=("harmony", "chat"),
        help="input form: Harmony conversation JSON or a Chat Completions request (default: detect)",
    )


def run(args: argparse.Namespace) -> int:
    from harmony_viz.render import RenderError, Role, render_conversation, render_conversation_for_completion

    found = read_source(args.file, args, form={"harmony": "conversation", "chat": "chat"}.get(args.form))
    if found.empty:  # an empty file, [] or whitespace: most likely the wrong file; nothing here to render
        raise CLIError(f"{found.name}: {found.form}, nothing to render; give Harmony conversation JSON or a Chat Completions request")
    try:
        conv = found.conversation()
        if args.for_completion:
            ids = render_conversation_for_completion(conv, Role.ASSISTANT)
        else:
            ids = render_conversation(conv)
    except RenderError as exc:
        raise CLIError(f"{found.name}: {exc}") from None
    say_read(found)  # once the input is known good: bad input stays one line
    if args.tokens:
        write_json(ids)
    else:
        from harmony_viz.tokens import encoding

        write_text(encoding().decode(ids))
    return 0
