"""``harmony-viz render``: a conversation (Harmony JSON or a Chat Completions request) → Harmony text or ids."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from harmony_viz.cli._common import CLIError, command, read_input, write_json, write_text

EXAMPLES = """\
examples:
  harmony-viz render conversation.json            # Harmony text, exactly as gpt-oss sees it
  harmony-viz render request.json --tokens        # a Chat Completions request, as token ids
  cat request.json | harmony-viz render - --for-completion

The input form is detected unless --from is given: a message with channel, recipient,
content_type or author, or a system_content/developer_content part, means Harmony; top-level
tools, model or reasoning_effort, or messages with tool_calls/tool_call_id, mean chat;
otherwise Harmony.
"""

_HARMONY_KEYS = ("channel", "recipient", "content_type", "author")
_HARMONY_PARTS = ("system_content", "developer_content")
_CHAT_TOP_KEYS = ("tools", "model", "reasoning_effort")
_CHAT_MESSAGE_KEYS = ("tool_calls", "tool_call_id")


def detect_form(data: Any) -> str:
    """``"harmony"`` or ``"chat"`` by the rules in the help text."""
    messages = data.get("messages") if isinstance(data, Mapping) else None
    messages = [m for m in messages if isinstance(m, Mapping)] if isinstance(messages, list) else []
    for m in messages:
        if any(k in m for k in _HARMONY_KEYS):
            return "harmony"
        parts = m.get("content")
        if isinstance(parts, list) and any(isinstance(p, Mapping) and p.get("type") in _HARMONY_PARTS for p in parts):
            return "harmony"
    if isinstance(data, Mapping) and any(k in data for k in _CHAT_TOP_KEYS):
        return "chat"
    if any(k in m for m in messages for k in _CHAT_MESSAGE_KEYS):
        return "chat"
    return "harmony"


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
    from harmony_viz.render import (
        Conversation,
        RenderError,
        Role,
        conversation_from_chat,
        parse_json_text,
        render_conversation,
        render_conversation_for_completion,
    )

    text = read_input(args.file)
    name = "<stdin>" if args.file == "-" else args.file
    try:
        data = parse_json_text(text, name)
        form = args.form or detect_form(data)
        conv = conversation_from_chat(data) if form == "chat" else Conversation.from_dict(data)
        if args.for_completion:
            ids = render_conversation_for_completion(conv, Role.ASSISTANT)
        else:
            ids = render_conversation(conv)
    except RenderError as exc:
        raise CLIError(str(exc)) from None
    if args.tokens:
        write_json(ids)
    else:
        from harmony_viz.tokens import encoding

        write_text(encoding().decode(ids))
    return 0
