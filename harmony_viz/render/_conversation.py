"""Messages and conversations, and their JSON in the shape ``openai_harmony``'s ``to_dict``/``to_json`` write.

Builders return new objects (``msg.with_channel("final")`` leaves ``msg`` alone). The parts a message holds
(author, content, tools) are in ``_model.py``, and their JSON in ``_json.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from harmony_viz.render._errors import RenderError
from harmony_viz.render._json import MISSING, content_from_dict, content_to_dict, json_object, optional_str, parse_json_text, typename
from harmony_viz.render._model import Author, Content, Role, TextContent


def _as_content(content: str | Content) -> Content:
    return TextContent(content) if isinstance(content, str) else content


@dataclass(frozen=True, slots=True)
class Message:
    """One message: author, content parts, and the header fields channel, recipient, content type."""

    author: Author
    content: tuple[Content, ...] = ()
    channel: str | None = None
    recipient: str | None = None
    content_type: str | None = None

    @classmethod
    def from_author_and_content(cls, author: Author, content: str | Content) -> Message:
        return cls(author, (_as_content(content),))

    @classmethod
    def from_role_and_content(cls, role: Role | str, content: str | Content) -> Message:
        """``Message.from_role_and_content("user", "Hi")``: the usual way to make a message."""
        return cls(Author(Role.parse(role)), (_as_content(content),))

    @classmethod
    def from_role_and_contents(cls, role: Role | str, contents: Sequence[str | Content]) -> Message:
        return cls(Author(Role.parse(role)), tuple(_as_content(c) for c in contents))

    def adding_content(self, content: str | Content) -> Message:
        return replace(self, content=(*self.content, _as_content(content)))

    def with_channel(self, channel: str) -> Message:
        return replace(self, channel=channel)

    def with_recipient(self, recipient: str) -> Message:
        return replace(self, recipient=recipient)

    def with_content_type(self, content_type: str) -> Message:
        return replace(self, content_type=content_type)

    def to_dict(self) -> dict[str, Any]:
        """The dict ``openai_harmony.Message.to_dict()`` makes."""
        return message_to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Message:
        return message_from_dict(data, "message")


@dataclass(frozen=True, slots=True)
class Conversation:
    """A sequence of messages, the unit the renderer works on."""

    messages: tuple[Message, ...] = ()

    @classmethod
    def from_messages(cls, messages: Iterable[Message]) -> Conversation:
        return cls(tuple(messages))

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.messages)

    def __len__(self) -> int:
        return len(self.messages)

    def to_dict(self) -> dict[str, Any]:
        return {"messages": [m.to_dict() for m in self.messages]}

    def to_json(self) -> str:
        """The exact string ``openai_harmony.Conversation.to_json()`` writes for this conversation."""
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Conversation:
        return conversation_from_dict(data)

    @classmethod
    def from_json(cls, payload: str | bytes | Mapping[str, Any]) -> Conversation:
        """Read what ``openai_harmony.Conversation.to_json()`` writes (a string, or the parsed dict).

        A missing optional field reads as None (what the reference's Rust renderer does), so
        ``Conversation.from_json(c.to_json()) == c``.
        """
        return conversation_from_json(payload)


# ---------------------------------------------------------------- JSON


def message_to_dict(msg: Message) -> dict[str, Any]:
    """A message as ``openai_harmony.Message.to_dict()`` writes it."""
    out: dict[str, Any] = {
        "role": msg.author.role.value,
        "name": msg.author.name,
        "content": [content_to_dict(c) for c in msg.content],
    }
    if msg.channel is not None:
        out["channel"] = msg.channel
    if msg.recipient is not None:
        out["recipient"] = msg.recipient
    if msg.content_type is not None:
        out["content_type"] = msg.content_type
    return out


def message_from_dict(data: Any, path: str) -> Message:
    """One message; a plain-string ``content`` is a single text part."""
    data = json_object(data, path)
    if "role" not in data and isinstance(data.get("author"), Mapping):
        # pydantic's model_dump() nests the author; to_dict() flattens it.
        data = {**data, **data["author"]}
    if "role" not in data:
        raise RenderError(f"{path}.role", "missing; expected one of user, assistant, system, developer, tool")
    role = data["role"]
    if not isinstance(role, str):
        raise RenderError(f"{path}.role", f"expected a string, got {typename(role)}")
    author = Author(Role.parse(role, f"{path}.role"), optional_str(data, "name", path))
    raw = data.get("content", MISSING)
    if raw is MISSING:
        raise RenderError(f"{path}.content", "missing; write a string or an array of content parts")
    if isinstance(raw, str):
        content: tuple[Content, ...] = (TextContent(raw),)
    elif isinstance(raw, list):
        content = tuple(content_from_dict(c, f"{path}.content[{i}]") for i, c in enumerate(raw))
    else:
        raise RenderError(f"{path}.content", f"expected a string or an array, got {typename(raw)}")
    return Message(
        author,
        content,
        channel=optional_str(data, "channel", path),
        recipient=optional_str(data, "recipient", path),
        content_type=optional_str(data, "content_type", path),
    )


def conversation_from_dict(data: Any) -> Conversation:
    data = json_object(data, "conversation")
    messages = data.get("messages", MISSING)
    if messages is MISSING:
        raise RenderError("messages", 'missing; a conversation is {"messages": [...]}')
    if not isinstance(messages, list):
        raise RenderError("messages", f"expected an array, got {typename(messages)}")
    return Conversation(tuple(message_from_dict(m, f"messages[{i}]") for i, m in enumerate(messages)))


def conversation_from_json(payload: str | bytes | Mapping[str, Any]) -> Conversation:
    data = payload if isinstance(payload, Mapping) else parse_json_text(payload)
    return conversation_from_dict(data)
