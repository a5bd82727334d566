"""Request shapes: a Chat Completions body and a Responses body, each as the other (the one converter, both ways).

``responses_of_chat`` is what every Responses request the lens sends is made of (a replay, a
capture, a prompt through the reference server), and ``chat_of_responses`` reads a Responses body
back as the Chat request our renderer takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harmony_viz.templates import LensError


def request_kind(request: Mapping[str, Any]) -> str:
    """``chat`` for a Chat Completions body (messages), ``responses`` for a Responses body (input); LensError otherwise."""
    if isinstance(request, Mapping) and isinstance(request.get("messages"), list):
        return "chat"
    if isinstance(request, Mapping) and isinstance(request.get("input"), (list, str)):
        return "responses"
    raise LensError("expected a Chat Completions request (messages: [...]) or a Responses request (input: [...])")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""


def responses_of_chat(chat: Mapping[str, Any], *, easy_messages: bool = False) -> dict[str, Any]:
    """A Chat Completions request as Responses input, item by item, as the reference server reads it.

    System and developer text become ``instructions``; an assistant turn becomes its reasoning item
    (``content: [{"type": "reasoning_text"}]``, which the reference reads, not ``summary``), its
    message and its ``function_call`` items; a tool message becomes a ``function_call_output``.
    Tools are flattened, ``reasoning_effort`` is ``reasoning.effort``, ``response_format`` is ``text.format`` (a json_schema one flattened, as Responses takes it).
    ``easy_messages`` writes a user's message without its item type (``{"role", "content"}``, the
    API's easy input message), as a replay sends it; every Responses server reads both.
    """
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    for m in chat.get("messages") or []:
        role, text = m.get("role"), _text(m.get("content"))
        if role in ("system", "developer"):
            instructions.append(text)
        elif role == "tool":
            items.append({"type": "function_call_output", "call_id": m.get("tool_call_id") or "", "output": text})
        elif role == "assistant":
            thought = next((m[k] for k in ("reasoning", "reasoning_content", "thinking") if isinstance(m.get(k), str) and m[k]), None)
            if thought:
                items.append({"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": thought}]})
            if text:
                items.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})
            for call in m.get("tool_calls") or []:
                fn = call.get("function") or {}
                items.append({"type": "function_call", "call_id": call.get("id") or "", "name": fn.get("name") or "", "arguments": fn.get("arguments") or ""})
        else:
            typed = {} if easy_messages else {"type": "message"}
            items.append({**typed, "role": role or "user", "content": text})
    out: dict[str, Any] = {"input": items}
    if instructions:
        out["instructions"] = "\n".join(instructions)
    tools = [{"type": "function", "name": t["function"]["name"], "description": t["function"].get("description", ""),
              "parameters": t["function"].get("parameters") or {"type": "object", "properties": {}}}
             for t in chat.get("tools") or [] if t.get("type") == "function" and isinstance(t.get("function"), Mapping)]
    if tools:
        out["tools"] = tools
    if chat.get("reasoning_effort"):
        out["reasoning"] = {"effort": chat["reasoning_effort"]}
    fmt = chat.get("response_format")
    if fmt:
        if isinstance(fmt, Mapping) and fmt.get("type") == "json_schema" and isinstance(fmt.get("json_schema"), Mapping):
            # Responses takes a json_schema format flat ({type, name, schema, strict}); Chat nests it under json_schema
            fmt = {"type": "json_schema", **fmt["json_schema"]}
        out["text"] = {"format": fmt}
    return out


def chat_of_responses(body: Mapping[str, Any]) -> dict[str, Any]:
    """A Responses body as the Chat Completions request it stands for (instructions, input items, function tools, effort)."""
    messages: list[dict[str, Any]] = []
    if isinstance(body.get("instructions"), str):
        messages.append({"role": "developer", "content": body["instructions"]})
    items = body.get("input")
    items = [{"type": "message", "role": "user", "content": items}] if isinstance(items, str) else list(items or [])
    reasoning: list[str] = []

    def assistant() -> dict[str, Any]:
        # reasoning, text and calls of one assistant turn go into one Chat message
        if not messages or messages[-1]["role"] != "assistant" or messages[-1].get("content") and not reasoning:
            messages.append({"role": "assistant", "content": None})
        msg = messages[-1]
        if reasoning:
            msg["reasoning"] = "".join(reasoning)
            reasoning.clear()
        return msg

    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise LensError(f"input[{i}]: expected an object, got {type(item).__name__}")
        kind = item.get("type", "message")
        if kind == "reasoning":
            parts = item.get("content") or item.get("summary") or []
            reasoning.append("".join(str(p.get("text", "")) for p in parts if isinstance(p, Mapping)))
        elif kind == "message" and item.get("role") == "assistant":
            assistant()["content"] = _text(item.get("content"))
        elif kind == "message":
            messages.append({"role": item.get("role", "user"), "content": _text(item.get("content"))})
        elif kind == "function_call":
            msg = assistant()
            msg.setdefault("tool_calls", []).append({"id": item.get("call_id"), "type": "function",
                                                     "function": {"name": item.get("name"), "arguments": item.get("arguments", "")}})
        elif kind == "function_call_output":
            messages.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": item.get("output", "")})
        else:
            raise LensError(f"input[{i}]: item type {kind!r} cannot be rendered (message, reasoning, function_call, function_call_output)")
    out: dict[str, Any] = {"messages": messages}
    tools = [{"type": "function", "function": {k: t[k] for k in ("name", "description", "parameters") if k in t}}
             for t in body.get("tools") or [] if isinstance(t, Mapping) and t.get("type") == "function"]
    if tools:
        out["tools"] = tools
    effort = (body.get("reasoning") or {}).get("effort") if isinstance(body.get("reasoning"), Mapping) else None
    if effort is not None:
        out["reasoning_effort"] = effort
    return out
