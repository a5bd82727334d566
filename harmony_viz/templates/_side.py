"""One side of the comparison: a token stream, its text, and its messages as scanned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harmony_viz.scanner import Message, scan
from harmony_viz.tokens import encoding

_STOPS = frozenset({"<|end|>", "<|call|>", "<|return|>"})
_CHANNEL = "<|channel|>"


def _of_record(name: str) -> Any:
    return property(lambda self: getattr(self.message, name), doc=f"The scanner record's ``{name}``.")


@dataclass(frozen=True, slots=True)
class RenderedMessage:
    """The scanner's :class:`~harmony_viz.scanner.Message` with its pieces of text; spans are token positions in the side's stream.

    What the message is (a call, a preamble, a tool's result) is the scanner's ``kind``, by the
    one visibility rule. ``header`` runs from ``<|start|>`` to ``<|message|>`` inclusive, ``body``
    is the content, ``raw`` is all of it with the stop token. ``author`` is the role (with its
    name), or the tool for a tool result (``functions.get_weather``).
    """

    message: Message
    header: str
    body: str
    raw: str
    body_end: int

    # The fields the comparison reads most are the record's own; the rest is ``message.*``.
    recipient = _of_record("recipient")
    channel = _of_record("channel")
    start = _of_record("start")
    header_end = _of_record("header_end")

    @property
    def author(self) -> str:
        m = self.message
        return m.name if m.role == "tool" and m.name else (m.role if m.name is None else f"{m.role}:{m.name}")

    @property
    def end(self) -> int:
        return self.message.end if self.message.end is not None else self.body_end

    @property
    def recipient_in_role(self) -> bool | None:
        """True when ``to=`` comes before the channel, False after it, None without both."""
        if self.recipient is None or _CHANNEL not in self.header or " to=" not in self.header:
            return None
        return self.header.index(" to=") < self.header.index(_CHANNEL)

    @property
    def is_call(self) -> bool:
        return self.message.is_call

    @property
    def is_preamble(self) -> bool:
        return self.message.kind == "preamble"

    @property
    def is_tool_result(self) -> bool:
        return self.message.is_tool_author


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
    out = []
    for m in scan(list(ids), role=None).messages:
        end = m.end if m.end is not None else len(ids)
        body_end = max(end - 1 if m.terminator in _STOPS else end, m.header_end)
        header, body, raw = (decode(list(ids[a:b])) for a, b in ((m.start, m.header_end), (m.header_end, body_end), (m.start, end)))
        out.append(RenderedMessage(m, header, body, raw, body_end))
    return Side(ids, decode(list(ids)), tuple(out))
