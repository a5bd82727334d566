"""A Harmony conversation back to the Chat Completions request a chat template takes.

The inverse of ``conversation_from_chat``, as far as a request can say it: analysis becomes
``thinking`` on the next assistant message, a preamble becomes the ``content`` beside the
calls that follow it, consecutive calls one ``tool_calls`` list (arguments kept as the JSON
string the model wrote), a tool's result a ``tool`` message answering its latest call.
System and developer messages given as plain text (a scanned stream) are read back:
reasoning effort from the system text, instructions and TypeScript tools from the developer's.
"""

from __future__ import annotations

import re
from typing import Any

from harmony_viz.render import Conversation, DeveloperContent, Message, Role, SystemContent, TextContent

_EFFORT = re.compile(r"^Reasoning: (low|medium|high)$", re.MULTILINE)
_INSTRUCTIONS = "# Instructions\n\n"
_TOOLS = "# Tools"


def _plain(msg: Message) -> str:
    return "".join(c.text for c in msg.content if isinstance(c, TextContent))


def _function_tools(dev: DeveloperContent) -> list[dict[str, Any]]:
    ns = (dev.tools or {}).get("functions")
    out = []
    for t in ns.tools if ns else ():
        fn: dict[str, Any] = {"name": t.name, "description": t.description}
        if t.parameters is not None:
            fn["parameters"] = t.parameters
        out.append({"type": "function", "function": fn})
    return out


def _developer_text(text: str) -> tuple[str | None, list[dict[str, Any]]]:
    """Instructions and function tools read back from a rendered developer message."""
    from harmony_viz._lint import ToolParseError, tools_from_typescript

    head, _sep, _rest = text.partition(_TOOLS)
    instructions = head[len(_INSTRUCTIONS):].strip("\n") if head.startswith(_INSTRUCTIONS) else (head.strip() or None)
    try:
        declared = tools_from_typescript(text) if _TOOLS in text else []
    except ToolParseError:
        declared = []
    tools = []
    for t in declared:
        if t.namespace == "functions":
            fn: dict[str, Any] = {"name": t.name, "description": t.description}
            if t.parameters is not None:
                fn["parameters"] = dict(t.parameters)
            tools.append({"type": "function", "function": fn})
    return instructions, tools


def request_from_conversation(conversation: Conversation) -> dict[str, Any]:
    """The Chat Completions request that renders as ``conversation`` (as near as requests allow)."""
    messages: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] = []
    effort: str | None = None
    thinking: str | None = None
    preamble: str | None = None
    calls: list[dict[str, Any]] = []
    pending: dict[str, str] = {}  # tool -> id of its latest call

    def flush_calls() -> None:
        nonlocal thinking, preamble, calls
        if not calls:
            return
        msg: dict[str, Any] = {"role": "assistant", "tool_calls": calls}
        if preamble is not None:
            msg["content"] = preamble
        if thinking is not None:
            msg["thinking"] = thinking
        messages.append(msg)
        thinking, preamble, calls = None, None, []

    for m in conversation.messages:
        role = m.author.role
        if role is Role.ASSISTANT and m.recipient not in (None, "all"):
            name = m.recipient.removeprefix("functions.")
            call_id = f"call_{sum(len(x.get('tool_calls', [])) for x in messages) + len(calls)}"
            calls.append({"id": call_id, "type": "function", "function": {"name": name, "arguments": _plain(m)}})
            pending[m.recipient] = call_id
            continue
        if role is Role.ASSISTANT and m.channel == "analysis":
            flush_calls()
            thinking = _plain(m) if thinking is None else thinking + "\n\n" + _plain(m)
            continue
        if role is Role.ASSISTANT and m.channel == "commentary":
            flush_calls()
            preamble = _plain(m)
            continue
        flush_calls()
        if role is Role.ASSISTANT:
            msg = {"role": "assistant", "content": _plain(m)}
            if thinking is not None:
                msg["thinking"] = thinking
            messages.append(msg)
            thinking = preamble = None
        elif role is Role.SYSTEM:
            sys = next((c for c in m.content if isinstance(c, SystemContent)), None)
            if sys is not None and sys.reasoning_effort is not None:
                effort = sys.reasoning_effort.value.lower()
            elif sys is None and (found := _EFFORT.search(_plain(m))):
                effort = found.group(1)
        elif role is Role.DEVELOPER:
            dev = next((c for c in m.content if isinstance(c, DeveloperContent)), None)
            instructions, found_tools = (dev.instructions, _function_tools(dev)) if dev is not None else _developer_text(_plain(m))
            tools.extend(found_tools)
            if instructions:
                messages.append({"role": "system", "content": instructions})
        elif role is Role.USER:
            messages.append({"role": "user", "content": _plain(m)})
        elif role is Role.TOOL:
            author = m.author.name or ""
            messages.append({"role": "tool", "tool_call_id": pending.get(author, f"call_{author}"), "name": author.removeprefix("functions."), "content": _plain(m)})
    flush_calls()
    if thinking is not None or preamble is not None:
        msg = {"role": "assistant", "content": preamble or ""}
        if thinking is not None:
            msg["thinking"] = thinking
        messages.append(msg)
    request: dict[str, Any] = {"messages": messages}
    if tools:
        request["tools"] = tools
    if effort is not None:
        request["reasoning_effort"] = effort
    return request
