"""``harmony-viz lint``: the dialect's rules and the prompt checks, as JSON diagnostics."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from harmony_viz.cli._common import CLIError, add_role, command, read_input, write_json

EXAMPLES = """\
examples:
  harmony-viz lint transcript.txt                       # prompt + completion, Harmony text
  harmony-viz lint completion.txt --role assistant --tools tools.json
  harmony-viz lint conversation.json --strict           # exit 1 on any warning or error

Input: Harmony text, a JSON array of token ids, or conversation JSON (openai-harmony's
shape or a Chat Completions request; rendered first, tools taken from it). Output: one
line {"diagnostics": [{code, severity, message, start, end}, ...]}; spans count tokens
for token ids and characters otherwise. Exit 0, or 1 with --strict when a warning or
error was found, 2 on bad input.
"""


def add_parser(subparsers: Any) -> None:
    p = command(subparsers, "lint", run, help="check model output against the dialect's rules, and the prompt itself", description="Check a Harmony stream: calls to undeclared tools, arguments that miss the "
        "schema, reasoning on visible channels, and prompts that make gpt-oss fail.", epilog=EXAMPLES)
    p.add_argument("file", metavar="FILE|-", help="file to read, or - for standard input")
    add_role(p)
    p.add_argument("--tools", metavar="TOOLS.json", help="the declared tools: an OpenAI tools array (overrides the prompt's)")
    p.add_argument("--strict", action="store_true", help="exit 1 when anything at warning or above is found")


def load_tools(path: str) -> list[Any]:
    from harmony_viz._lint import ToolParseError, tools_from_json

    text = read_input(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CLIError(f"--tools {path}: not JSON ({exc.msg}, line {exc.lineno} column {exc.colno}); expected an OpenAI tools array") from None
    try:
        return tools_from_json(data)
    except ToolParseError as exc:
        raise CLIError(f"--tools {path}: {exc}") from None


def _source(text: str, path: str) -> tuple[Any, list[Any] | None]:
    """What to scan (text or ids), and tools carried by conversation JSON."""
    stripped = text.lstrip()
    if not stripped.startswith(("[", "{")):
        return text, None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text, None  # Harmony text may well start with a bracket
    if isinstance(data, list):
        if all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in data):
            return data, None
        raise CLIError(f"{path}: a JSON array, but not of token ids (non-negative integers); pass Harmony text, token ids or conversation JSON")
    if isinstance(data, Mapping) and isinstance(data.get("messages"), list):
        return _render(data, path)
    raise CLIError(f"{path}: JSON that is neither token ids nor a conversation with 'messages'")


def _render(data: Mapping[str, Any], path: str) -> tuple[str, list[Any]]:
    from harmony_viz._lint import ToolParseError, tools_from_json
    from harmony_viz.cli._render import detect_form
    from harmony_viz.render import Conversation, RenderError, conversation_from_chat, render_text

    try:
        conv = conversation_from_chat(dict(data)) if detect_form(data) == "chat" else Conversation.from_json(dict(data))
        text = render_text(conv)
    except RenderError as exc:
        raise CLIError(f"{path}: {exc}") from None
    try:
        tools = tools_from_json(data)
    except ToolParseError as exc:
        raise CLIError(f"{path}: {exc}") from None
    return text, tools


def run(args: argparse.Namespace) -> int:
    from harmony_viz._lint import lint

    text = read_input(args.file)
    source, json_tools = _source(text, args.file)
    tools = load_tools(args.tools) if args.tools else json_tools
    diagnostics = lint(source, role=args.role, tools=tools)
    write_json({"diagnostics": [d.to_json() for d in diagnostics]})
    if args.strict and any(d.severity in ("error", "warning") for d in diagnostics):
        return 1
    return 0
