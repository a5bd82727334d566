"""One side of the comparison: a token stream, its text, and its messages as scanned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harmony_viz.scanner import MessageStart, scan
from harmony_viz.tokens import encoding

_STOPS = frozenset({"<|end|>", "<|call|>", "<|return|>"})
_CHANNEL = "<|channel|>"


@dataclass(frozen=True, slots=True)
class RenderedMessage:
    """A scanned message with its pieces of text; spans are token positions in the side's stream.

    ``header`` runs from ``<|start|>`` to ``<|message|>`` inclusive, ``body`` is the content,
    ``raw`` is all of it with the stop token. ``author`` is the role, or the tool for a
    tool result (``functions.get_weather``).
    """

    index: int
    author: str
    recipient: str | None
    channel: str | None
    content_type: str | None
    terminator: str
    header: str
    body: str
    raw: str
    start: int
    header_end: int
    body_end: int
    end: int

    @property
    def recipient_in_role(self) -> bool | None:
        """True when ``to=`` comes before the channel, False after it, None without both."""
        if self.recipient is None or _CHANNEL not in self.header or " to=" not in self.header:
            return None
        return self.header.index(" to=") < self.header.index(_CHANNEL)

    @property
    def is_call(self) -> bool:
        return self.author == "assistant" and self.recipient is not None

    @property
    def is_preamble(self) -> bool:
        return self.author == "assistant" and self.recipient is None and self.channel == "commentary"

    @property
    def is_tool_result(self) -> bool:
        return self.author not in ("system", "developer", "user", "assistant")


@dataclass(frozen=True, slots=True)
class Side:
    """A render: its token ids, its text and its messages."""

    ids: tuple[int, ...]
    text: str
    messages: tuple[RenderedMessage, ...]

    def quote(self, start: int, end: int) -> str:
        return encoding().decode(list(self.ids[start:end]))


def read_side(ids: Sequence[int]) -> Side:
    """Scan ``ids`` as a whole conversation and cut each message into header, body and stop."""
    ids = tuple(ids)
    decode = encoding().decode
    result = scan(list(ids), role=None)
    headers = {e.message: e for e in result.events if type(e) is MessageStart}
    out = []
    for m in result.messages:
        head = headers.get(m.index)
        header_end = head.end if head is not None else m.start
        body_end = m.end - 1 if m.terminator in _STOPS else m.end
        body_end = max(body_end, header_end)
        author = m.name if m.role == "tool" and m.name else (m.role if m.name is None else f"{m.role}:{m.name}")
        out.append(RenderedMessage(
            m.index, author, m.recipient, m.channel, m.content_type, m.terminator,
            decode(list(ids[m.start:header_end])), decode(list(ids[header_end:body_end])), decode(list(ids[m.start:m.end])),
            m.start, header_end, body_end, m.end,
        ))
    return Side(ids, decode(list(ids)), tuple(out))
