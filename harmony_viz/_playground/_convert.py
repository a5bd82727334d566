"""Between the playground's two sides: what a user passes in, conversations, token streams and scans."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from harmony_viz import scanner
from harmony_viz.render import Author, Conversation, Message, RenderError, RenderOptions, Role, TextContent, render_conversation_for_training
from harmony_viz.scanner import ScanResult
from harmony_viz.tokens import check_ids, encoding

# Every message is rendered: with the reference's auto_drop_analysis, earlier reasoning
# would vanish from the stream while its card stays, and cards and tokens would disagree.
RENDER_OPTIONS = RenderOptions(drop_analysis=False)

_ROLES = {r.value for r in Role}


def render(conversation: Conversation) -> list[int]:
    """The conversation as tokens, every message kept (openai-harmony with ``auto_drop_analysis=False``).

    A conversation that ends in an assistant ``final`` ends in ``<|return|>``, as the model
    writes it (the reference's ``render_conversation_for_training``); otherwise the lints
    would flag every finished conversation for its ``<|end|>``.
    """
    return render_conversation_for_training(conversation, options=RENDER_OPTIONS)


def message_from_parsed(m: scanner.Message) -> Message:
    """A scanned message as a renderable one; a header role that is no role names a tool, as in the reference."""
    if m.role in _ROLES:
        author = Author(Role(m.role), m.name)
    else:
        author = Author(Role.TOOL, m.role if m.name is None else f"{m.role}:{m.name}")
    return Message(author, (TextContent(m.text),), m.channel, m.recipient, m.content_type)


def conversation_from_scan(result: ScanResult) -> Conversation:
    """The messages a scan read, as a Conversation (system and developer content stay plain text)."""
    return Conversation(tuple(message_from_parsed(m) for m in result.messages))


def coerce_conversation(value: Any) -> Conversation:
    """A Conversation from a Conversation, its JSON (string or dict), or a list of messages (objects or dicts).

    Raises RenderError naming the bad part.
    """
    if isinstance(value, Conversation):
        return value
    if isinstance(value, str):
        return Conversation.from_json(value)
    if isinstance(value, Mapping):
        return Conversation.from_dict(value)
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        items = list(value)
        if all(isinstance(m, Message) for m in items):
            return Conversation(tuple(items))
        return Conversation.from_dict({"messages": [m.to_dict() if isinstance(m, Message) else m for m in items]})
    raise RenderError("conversation", f"expected a Conversation, its JSON, or a list of messages, got {type(value).__name__}")


def check_tokens(value: Any) -> list[int]:
    """``value`` as a list of token ids, or ValueError naming the first bad entry and the valid range."""
    if isinstance(value, (str, bytes, bytearray)) or not isinstance(value, Sequence):
        raise ValueError(f"tokens must be a list of token ids (ints), got {type(value).__name__}; "
                         "to give Harmony text, set `text` instead")
    return check_ids(value)


def parse_ids_text(text: str) -> list[int]:
    """Token ids from what a user typed: a JSON list (``[200006, 1428]``) or ids separated by spaces or commas."""
    stripped = text.strip()
    try:
        value = json.loads(stripped) if stripped.startswith("[") else [int(p) for p in stripped.replace(",", " ").split()]
    except (ValueError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read token ids from {stripped[:40]!r}: {exc}; write a JSON list such as [200006, 1428]") from None
    return check_tokens(value)


def decode_tokens(tokens: Sequence[int]) -> str:
    """The stream as text (bytes that are not UTF-8 on their own read as U+FFFD)."""
    return encoding().decode(list(tokens))
