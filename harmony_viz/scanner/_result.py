"""Whole-stream scanning: ``scan()`` and the messages it assembles from the events."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from harmony_viz.scanner._events import (
    ContentDelta,
    ContentKind,
    Diagnostic,
    Event,
    MessageEnd,
    MessageStart,
    Terminator,
    ToolCallEnd,
    ToolCallStart,
)
from harmony_viz.scanner._scanner import Scanner


@dataclass(frozen=True, slots=True)
class ParsedMessage:
    """One message as read from the stream; ``start``/``end`` span its header to its terminator."""

    index: int
    role: str
    name: str | None
    recipient: str | None
    channel: str | None
    content_type: str | None
    text: str
    kind: ContentKind
    terminator: Terminator
    start: int
    end: int

    def to_json(self) -> dict[str, Any]:
        """The message in the shape ``openai_harmony.Message.to_json()`` uses (as a dict, not a string).

        ``name`` is always present (null when absent); ``channel``, ``recipient`` and
        ``content_type`` are omitted when absent, as the reference does.
        """
        out: dict[str, Any] = {"role": self.role, "name": self.name, "content": [{"type": "text", "text": self.text}]}
        if self.channel is not None:
            out["channel"] = self.channel
        if self.recipient is not None:
            out["recipient"] = self.recipient
        if self.content_type is not None:
            out["content_type"] = self.content_type
        return out


@dataclass(frozen=True, slots=True)
class ScanResult:
    """Everything one scan produced: the events in order, the messages, the diagnostics."""

    events: list[Event]
    messages: list[ParsedMessage]
    diagnostics: list[Diagnostic]

    def to_json(self) -> dict[str, Any]:
        """``{"messages": [...], "diagnostics": [...]}``, as ``harmony-viz parse`` prints it."""
        return {"messages": [m.to_json() for m in self.messages], "diagnostics": [d.to_json() for d in self.diagnostics]}


def assemble(events: Sequence[Event]) -> ScanResult:
    """Build messages and the diagnostic list from a complete event sequence."""
    messages: list[ParsedMessage] = []
    diagnostics: list[Diagnostic] = []
    open_start: MessageStart | None = None
    parts: list[str] = []
    for ev in events:
        if type(ev) is ContentDelta:
            parts.append(ev.text)
        elif type(ev) is MessageStart:
            open_start, parts = ev, []
        elif type(ev) is MessageEnd and open_start is not None:
            s = open_start
            messages.append(ParsedMessage(s.message, s.role, s.name, s.recipient, s.channel, s.content_type, "".join(parts), s.kind, ev.terminator, s.start, ev.end))
            open_start = None
        elif type(ev) is Diagnostic:
            diagnostics.append(ev)
    return ScanResult(list(events), messages, diagnostics)


def scan(source: str | Sequence[int], *, role: str | None = None) -> ScanResult:
    """Scan a whole stream (Harmony text or token ids) in one go.

    >>> r = scan("<|start|>assistant<|channel|>final<|message|>Hi<|return|>")
    >>> r.messages[0].to_json()
    {'role': 'assistant', 'name': None, 'content': [{'type': 'text', 'text': 'Hi'}], 'channel': 'final'}
    >>> r.diagnostics
    []
    """
    scanner = Scanner(role=role)
    events = scanner.feed(source)
    events.extend(scanner.flush())
    return assemble(events)


_TYPE_NAMES = {
    MessageStart: "message_start",
    ContentDelta: "content_delta",
    ToolCallStart: "tool_call_start",
    ToolCallEnd: "tool_call_end",
    MessageEnd: "message_end",
    Diagnostic: "diagnostic",
}
_FIELDS: dict[type, tuple[str, ...]] = {
    ContentDelta: ContentDelta._fields,
    **{cls: tuple(f.name for f in fields(cls)) for cls in (MessageStart, ToolCallStart, ToolCallEnd, MessageEnd, Diagnostic)},
}


def event_to_json(event: Event) -> dict[str, Any]:
    """One event as a JSON-able dict: ``{"type": "content_delta", "message": 0, ...}``."""
    cls = type(event)
    out: dict[str, Any] = {"type": _TYPE_NAMES[cls]}
    for name in _FIELDS[cls]:
        out[name] = getattr(event, name)
    return out
