"""A Chat Completions request, made ready for each side: the chat template and our renderer.

Both sides get the conversation as given (arguments as strings stay strings, objects stay
objects), so that what the lens reports is what the template does to your data. Only
JSON's "absent" spellings are normalised for the template (a ``null`` key, an empty
``tool_calls``): Jinja reads ``"tool_calls" in message`` as true for them and fails.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


class LensError(ValueError):
    """A request one side cannot render; the message is one line and says which side."""


def check_request(request: Any) -> Mapping[str, Any]:
    """``request`` if it looks like a Chat Completions request, else LensError."""
    if not isinstance(request, Mapping):
        raise LensError(f"expected a JSON object with messages, got {type(request).__name__}")
    if not isinstance(request.get("messages"), list):
        raise LensError("messages: missing or not an array; a Chat Completions request has messages: [...]")
    if request.get("tools") is not None and not isinstance(request["tools"], list):
        raise LensError("tools: expected an array of function tools")
    return request


def _flat_text(content: Any) -> Any:
    """Text parts joined into one string, as the template concatenates content with ``+``."""
    if isinstance(content, list) and all(isinstance(p, Mapping) and p.get("type") == "text" for p in content):
        return "".join(str(p.get("text", "")) for p in content)
    return content


def _present(d: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def template_messages(messages: list[Any]) -> list[Any]:
    """The messages as a template expects them: no null keys, no empty tool_calls, text parts joined."""
    out: list[Any] = []
    for m in messages:
        if not isinstance(m, Mapping):
            out.append(m)
            continue
        msg = _present(m)
        if "content" in msg:
            msg["content"] = _flat_text(msg["content"])
        calls = msg.get("tool_calls")
        if isinstance(calls, list) and not calls:
            del msg["tool_calls"]
        elif isinstance(calls, list):
            msg["tool_calls"] = [
                {**_present(c), "function": _present(c["function"])} if isinstance(c, Mapping) and isinstance(c.get("function"), Mapping) else c
                for c in calls
            ]
        out.append(msg)
    return out


def _json_value(content: Any) -> bool:
    """Content that is a JSON value rather than text (or a list of text parts)."""
    if isinstance(content, (Mapping, int, float, bool)):
        return True
    return isinstance(content, list) and not all(isinstance(p, Mapping) and p.get("type") == "text" for p in content)


def ours_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """The request for our renderer: a tool result given as a JSON value becomes its JSON text."""
    messages = []
    for m in request["messages"]:
        if isinstance(m, Mapping) and m.get("role") == "tool" and _json_value(m.get("content")):
            m = {**m, "content": json.dumps(m["content"], ensure_ascii=False)}
        messages.append(m)
    return {**request, "messages": messages}
