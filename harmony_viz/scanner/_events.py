"""What the scanner emits: small immutable events, each with the span that caused it.

Spans (``start``, ``end``) count in the scanner's input unit: token indices when it is fed
token ids, character offsets when it is fed text. ``message`` is the index of the message
the event belongs to (0-based, in stream order), or -1 outside any message.

Content deltas are NamedTuples because there is one per fed token on the hot path; the
rarer events are frozen slotted dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple, Union

from harmony_viz.findings import Finding, Span

# What a piece of content is, from a reader's point of view. The same words are used by
# the projections, the stats frames and the widget's colours.
ContentKind = Literal["reasoning", "preamble", "final", "tool_call", "tool_result", "other"]
CONTENT_KINDS: tuple[str, ...] = ("reasoning", "preamble", "final", "tool_call", "tool_result", "other")

# How a message ended: its stop token, the token that implied the end by beginning the next
# header (a new <|start|>, or a <|channel|> written in the body), or end of stream.
Terminator = Literal["<|end|>", "<|call|>", "<|return|>", "<|start|>", "<|channel|>", "eos"]


@dataclass(frozen=True, slots=True)
class MessageStart:
    """A header was read: the message's fields as written (absent fields are None)."""

    message: int
    role: str
    name: str | None
    recipient: str | None
    channel: str | None
    content_type: str | None
    kind: ContentKind
    start: int
    end: int


class ContentDelta(NamedTuple):
    """Text added to the body of message ``message``."""

    message: int
    kind: ContentKind
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """A message addressed to a tool began. ``name`` drops ``functions.``; builtins keep their namespace."""

    message: int
    call_id: str
    name: str
    namespace: str | None
    recipient: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """A tool call's body is complete.

    ``arguments`` is the raw body verbatim; ``parsed`` the arguments as parsed (repaired
    where needed) or None when nothing could be recovered; ``error`` says what was wrong
    with the raw JSON, None when it parsed strictly.
    """

    message: int
    call_id: str
    name: str
    arguments: str
    parsed: Any
    error: str | None
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class MessageEnd:
    """A message ended, and how."""

    message: int
    terminator: Terminator
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Diagnostic(Finding):
    """Something wrong or notable in one stream (the scanner's or a lint's): a finding whose ``where`` is its span."""

    where: Span

    @property
    def start(self) -> int:
        return self.where.start

    @property
    def end(self) -> int:
        return self.where.end

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "message": self.message, "start": self.start, "end": self.end}


Event = Union[MessageStart, ContentDelta, ToolCallStart, ToolCallEnd, MessageEnd, Diagnostic]

# The scanner makes a MessageStart and a MessageEnd for every message: these make the same records by writing their
# fields to a writable twin (the same slots, in order) that then takes the record's class, where a frozen dataclass's
# __init__ calls object.__setattr__ once a field (three times the time for a MessageStart).
_new = object.__new__


class _StartFields:
    __slots__ = MessageStart.__slots__


class _EndFields:
    __slots__ = MessageEnd.__slots__


def message_start(message: int, role: str, name: str | None, recipient: str | None, channel: str | None, content_type: str | None,
                  kind: ContentKind, start: int, end: int) -> MessageStart:
    """``MessageStart(...)``, made faster (its fields in order)."""
    e = _new(_StartFields)
    e.message, e.role, e.name, e.recipient, e.channel, e.content_type, e.kind, e.start, e.end = (
        message, role, name, recipient, channel, content_type, kind, start, end)
    e.__class__ = MessageStart  # type: ignore[assignment]
    return e  # type: ignore[return-value]


def message_end(message: int, terminator: Terminator, start: int, end: int) -> MessageEnd:
    """``MessageEnd(...)``, made faster (its fields in order)."""
    e = _new(_EndFields)
    e.message, e.terminator, e.start, e.end = message, terminator, start, end
    e.__class__ = MessageEnd  # type: ignore[assignment]
    return e  # type: ignore[return-value]


ScanState = Literal["outside", "header", "body"]
# The scanner's states (it compares them by identity).
OUTSIDE: Final = "outside"
HEADER: Final = "header"
BODY: Final = "body"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The scanner's state after a feed; O(1) to take (no copies of the stream).

    ``message`` is the index of the current (open) message, -1 when outside one;
    ``position`` is how much input has been consumed (tokens or characters).
    """

    state: ScanState
    pending_header: str
    held_back: str
    message: int
    role: str | None
    name: str | None
    recipient: str | None
    channel: str | None
    content_type: str | None
    messages: int
    diagnostics: int
    position: int
