"""A server's answer reduced to what the lens compares: visible text, reasoning, calls, finish, items.

The same reduction is applied to the server's object (or its chunks/events, joined) and to
our projection of the same tokens, so the comparison never depends on ids, timestamps or
field order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harmony_viz.servers.core._logprobs import ids_from_logprobs

REASONING_FIELDS = ("reasoning_content", "reasoning")


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call: its name (without ``functions.``), arguments as sent, and the item type.

    ``late``: in a Responses stream, the call came whole in its ``output_item.done`` only (no
    ``output_item.added``, no argument deltas), so a client that builds calls as they stream misses it.
    """

    name: str
    arguments: str
    kind: str = "function"
    late: bool = False


@dataclass(frozen=True, slots=True)
class Item:
    """One Responses output item: its type and its text (a call's name for calls)."""

    type: str
    text: str


@dataclass(frozen=True, slots=True)
class Answer:
    """What an API answer says, whatever its shape.

    ``content`` and ``reasoning`` are texts joined with newlines ('' when absent);
    ``reasoning_fields`` says which field names carried reasoning (Chat Completions);
    ``finish`` is the chat ``finish_reason``, or for Responses ``completed``/``incomplete:<reason>``;
    ``token_ids`` is None when the API returned none.
    """

    content: str = ""
    reasoning: str = ""
    reasoning_fields: tuple[str, ...] = ()
    calls: tuple[Call, ...] = ()
    finish: str | None = None
    reasoning_tokens: int | None = None
    items: tuple[Item, ...] = ()
    token_ids: tuple[int, ...] | None = None
    reasoning_in_items: bool = False
    token_ids_from: str | None = None  # "return_token_ids" (vLLM's token_ids) or "logprobs" (llama.cpp's logprobs ids)


def _short_name(name: str) -> str:
    return name[len("functions."):] if name.startswith("functions.") else name


def _reasoning_tokens(usage: Any, details_key: str) -> int | None:
    if not isinstance(usage, dict):
        return None
    details = usage.get(details_key)
    value = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _join(parts: list[str]) -> str:
    return "\n".join(p for p in parts if p)


def from_chat(obj: dict[str, Any]) -> Answer:
    """A ``chat.completion`` object (first choice)."""
    choices = obj.get("choices") or [{}]
    choice = choices[0] or {}
    message = choice.get("message") or {}
    fields = tuple(f for f in REASONING_FIELDS if message.get(f))
    reasoning = next((message[f] for f in fields), "")
    calls = tuple(
        Call(_short_name(str((c.get("function") or {}).get("name") or "")), str((c.get("function") or {}).get("arguments") or ""))
        for c in message.get("tool_calls") or []
    )
    ids = choice.get("token_ids")
    source = "return_token_ids" if isinstance(ids, list) else None
    if source is None:
        ids = ids_from_logprobs("chat", {"choices": [choice]})
        source = "logprobs" if ids is not None else None
    return Answer(
        content=message.get("content") or "",
        reasoning=reasoning or "",
        reasoning_fields=fields,
        calls=calls,
        finish=choice.get("finish_reason"),
        reasoning_tokens=_reasoning_tokens(obj.get("usage"), "completion_tokens_details"),
        token_ids=tuple(ids) if isinstance(ids, (list, tuple)) else None,
        token_ids_from=source,
    )


def from_chat_chunks(chunks: list[dict[str, Any]]) -> Answer:
    """``chat.completion.chunk`` objects, joined as a client would join them."""
    # Pieces joined once at the end: adding each chunk's text to a string copied it over and
    # over (a server streams a chunk per token).
    pieces: dict[str, list[str]] = {"content": [], **{f: [] for f in REASONING_FIELDS}}
    calls: dict[int, tuple[list[str], list[str]]] = {}
    finish = None
    usage = None
    ids: list[int] = []
    has_ids = False
    for chunk in chunks:
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            for key, got in pieces.items():
                if isinstance(delta.get(key), str):
                    got.append(delta[key])
            for call in delta.get("tool_calls") or []:
                entry = calls.setdefault(int(call.get("index") or 0), ([], []))
                fn = call.get("function") or {}
                entry[0].append(fn.get("name") or "")
                entry[1].append(fn.get("arguments") or "")
            finish = choice.get("finish_reason") or finish
            if isinstance(choice.get("token_ids"), list):
                has_ids = True
                ids.extend(choice["token_ids"])
    source = "return_token_ids" if has_ids else None
    if not has_ids:
        from_logprobs = ids_from_logprobs("chat-stream", chunks)
        has_ids, ids = from_logprobs is not None, list(from_logprobs or ())
        source = "logprobs" if has_ids else None
    text = {key: "".join(got) for key, got in pieces.items()}
    fields = tuple(f for f in REASONING_FIELDS if text[f])
    return Answer(
        content=text["content"],
        reasoning=next((text[f] for f in fields), ""),
        reasoning_fields=fields,
        calls=tuple(Call(_short_name("".join(n)), "".join(a)) for _, (n, a) in sorted(calls.items())),
        finish=finish,
        reasoning_tokens=_reasoning_tokens(usage, "completion_tokens_details"),
        token_ids=tuple(ids) if has_ids else None,
        token_ids_from=source,
    )


def _item_text(item: dict[str, Any]) -> str:
    parts = [c.get("text") or "" for c in item.get("content") or [] if isinstance(c, dict)]
    if not any(parts):  # reasoning may come as a summary only
        parts = [c.get("text") or "" for c in item.get("summary") or [] if isinstance(c, dict)]
    return "".join(parts)


def _response_finish(obj: dict[str, Any]) -> str | None:
    status = obj.get("status")
    if status == "incomplete":
        reason = (obj.get("incomplete_details") or {}).get("reason")
        return f"incomplete:{reason}" if reason else "incomplete"
    return status


def from_response(obj: dict[str, Any]) -> Answer:
    """A Responses ``response`` object."""
    content, reasoning, calls, items = [], [], [], []
    for item in obj.get("output") or []:
        kind = item.get("type")
        if kind == "message":
            content.append(_item_text(item))
            items.append(Item("message", _item_text(item)))
        elif kind == "reasoning":
            reasoning.append(_item_text(item))
            items.append(Item("reasoning", _item_text(item)))
        elif kind in ("function_call", "mcp_call", "custom_tool_call"):
            args = item.get("arguments") if kind != "custom_tool_call" else item.get("input")
            calls.append(Call(_short_name(str(item.get("name") or "")), str(args or ""), kind))
            items.append(Item(kind, _short_name(str(item.get("name") or ""))))
        else:
            items.append(Item(str(kind), ""))
    return Answer(
        content=_join(content),
        reasoning=_join(reasoning),
        calls=tuple(calls),
        finish=_response_finish(obj),
        reasoning_tokens=_reasoning_tokens(obj.get("usage"), "output_tokens_details"),
        items=tuple(items),
        reasoning_in_items=bool(reasoning),
    )


def final_response(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The ``response`` carried by the last ``response.completed``/``.incomplete``/``.failed`` event."""
    for event in reversed(events):
        if event.get("type") in ("response.completed", "response.incomplete", "response.failed") and isinstance(event.get("response"), dict):
            return event["response"]
    return None


def from_response_events(events: list[dict[str, Any]]) -> Answer:
    """Responses stream events, joined from their deltas (items and finish from the last response)."""
    # Each item's deltas kept as pieces and joined once (not a string grown per event).
    content: dict[int, list[str]] = {}
    reasoning: dict[int, list[str]] = {}
    args: dict[int, list[str]] = {}
    names: dict[int, tuple[str, str]] = {}
    added: set[int] = set()  # calls announced by output_item.added
    streamed: set[int] = set()  # calls whose arguments came as deltas
    for event in events:
        kind = event.get("type")
        at = int(event.get("output_index") or 0)
        if kind == "response.output_text.delta":
            content.setdefault(at, []).append(event.get("delta") or "")
        elif kind in ("response.reasoning_text.delta", "response.reasoning_summary_text.delta"):
            reasoning.setdefault(at, []).append(event.get("delta") or "")
        elif kind in ("response.function_call_arguments.delta", "response.mcp_call_arguments.delta"):
            args.setdefault(at, []).append(event.get("delta") or "")
            streamed.add(at)
        elif kind in ("response.output_item.added", "response.output_item.done"):
            item = event.get("item") or {}
            if item.get("type") in ("function_call", "mcp_call"):
                names[at] = (_short_name(str(item.get("name") or "")), str(item.get("type")))
                if kind == "response.output_item.added":
                    added.add(at)
                if kind == "response.output_item.done" and at not in args and item.get("arguments"):
                    args[at] = [str(item["arguments"])]  # sent whole, without deltas
    final = final_response(events)
    done = from_response(final) if final is not None else Answer()
    return Answer(
        content=_join(["".join(content[k]) for k in sorted(content)]),
        reasoning=_join(["".join(reasoning[k]) for k in sorted(reasoning)]),
        calls=tuple(Call(names[k][0], "".join(args.get(k, ())), names[k][1], late=k not in added and k not in streamed) for k in sorted(names)),
        finish=done.finish,
        reasoning_tokens=done.reasoning_tokens,
        items=done.items,
        reasoning_in_items=bool(reasoning) or done.reasoning_in_items,
    )


def answer_of(api: str, server: Any) -> Answer:
    """The answer of ``server`` (an object, or a list of chunks/events) for ``api``."""
    if api == "chat":
        return from_chat(server)
    if api == "chat-stream":
        return from_chat_chunks(server)
    if api == "responses":
        return from_response(server)
    if api == "responses-stream":
        return from_response_events(server)
    raise ValueError(f"unknown api {api!r}; expected chat, chat-stream, responses or responses-stream")
